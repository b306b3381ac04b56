#!/usr/bin/env bash
# Prints the path of gopls at the pinned version, building it once if it is missing.
#
# gopls v0.23.0 is the newest release that builds with the Go toolchain here (v0.24.0
# needs a newer Go). It is built from the Go module proxy with `go install` and cached
# outside the checkout, so a clean clone on the same machine reuses it. The build uses
# private GOPATH/GOCACHE directories under the cache entry, removed afterwards, so it
# neither fills nor reads the user's own Go caches, and GOTOOLCHAIN=local so no
# toolchain is downloaded.
#
# Override the cache with LEAN_CTX_TOOL_CACHE (as ensure-rust-analyzer.sh does).
set -euo pipefail
version=v0.23.0
cache="${LEAN_CTX_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lean-ctx-tools}/gopls-$version"
bin="$cache/bin/gopls"

# `gopls version` names the module version it was built from: a stale or foreign
# binary at the path is rebuilt rather than trusted.
works() { "$1" version 2>/dev/null | grep -q "golang.org/x/tools/gopls $version"; }

if works "$bin"; then echo "$bin"; exit 0; fi
command -v go >/dev/null || { echo "missing go: install Go 1.26 or newer" >&2; exit 1; }

echo "building gopls $version from the Go module proxy into $cache" >&2
mkdir -p "$cache"
build="$cache/build"
trap 'chmod -R u+w "$build" 2>/dev/null; rm -rf "$build"' EXIT
GOBIN="$cache/bin" GOPATH="$build/gopath" GOMODCACHE="$build/gopath/pkg/mod" \
  GOCACHE="$build/cache" GOTOOLCHAIN=local GOFLAGS=-modcacherw \
  go install "golang.org/x/tools/gopls@$version" >&2
works "$bin" || { echo "gopls $version built but does not run" >&2; exit 1; }
echo "$bin"
