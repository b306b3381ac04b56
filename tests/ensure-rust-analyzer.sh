#!/usr/bin/env bash
# Prints the path of a working rust-analyzer, building one if none is found.
#
# rustup's stable toolchain here has no rust-analyzer component (the `rust-analyzer`
# in ~/.cargo/bin is only rustup's proxy and fails), so we build the crates.io package
# `ra_ap_rust-analyzer` at a pinned version that compiles with the stable toolchain
# (0.0.349 does not; 0.0.340 does) and cache the binary outside the checkout, so a clean
# clone on the same machine reuses it. The build takes ~8 minutes on 2 cores.
#
# Override the cache with LEAN_CTX_TOOL_CACHE; a working rust-analyzer on PATH (for
# example rustup's component where it exists) is used as is.
set -euo pipefail
version=0.0.340
cache="${LEAN_CTX_TOOL_CACHE:-$HOME/.cache/lean-ctx-tools}/rust-analyzer-$version"
bin="$cache/bin/rust-analyzer"

works() { "$1" --version >/dev/null 2>&1; }

if works "$bin"; then echo "$bin"; exit 0; fi
if found=$(command -v rust-analyzer) && works "$found"; then echo "$found"; exit 0; fi

echo "building rust-analyzer $version from crates.io into $cache (about 8 minutes)" >&2
mkdir -p "$cache"
# A private target dir so the build never contends with the workspace's own.
CARGO_TARGET_DIR="$cache/target" cargo install --locked --quiet \
  --root "$cache" ra_ap_rust-analyzer --version "$version" >&2
rm -rf "$cache/target"
works "$bin" || { echo "rust-analyzer $version built but does not run" >&2; exit 1; }
echo "$bin"
