#!/usr/bin/env bash
# Fetches the conformance corpora (code nobody here wrote, at pinned versions) from
# the package registries with their ordinary clients, into
# target/conformance-corpus/<language>/, and prints that directory. A pinned set
# changes only with this script or rust-corpus/Cargo.lock; a corpus fetched by an
# older pin is fetched again (each `.done` holds the pins' hash). Idempotent: each
# corpus is fetched once, never committed. Used by the
# conformance bench (daemon/benches/conformance.rs) and its CI sample test
# (daemon/tests/conformance.rs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${LEAN_CTX_CONFORMANCE_CORPUS:-$(cd "$here/../.." && pwd)/target/conformance-corpus}"
mkdir -p "$out"
# Tests that need the corpora run at once (threads of one test binary, several
# binaries): one fetch at a time, so none removes the `.tmp` another is filling; the
# others wait here and then find `.done`.
exec 9>"$out/.lock"
flock 9
tmp="$out/.tmp"
pins=$(cat "$here/fetch-conformance.sh" "$here/rust-corpus/Cargo.lock" | sha256sum | cut -c1-16)

# once NAME: runs the rest of the arguments unless NAME was fetched already; the
# command fills "$tmp", which then becomes "$out/NAME".
once() {
  local name=$1; shift
  [[ $(cat "$out/$name/.done" 2>/dev/null) == "$pins" ]] && return 0
  rm -rf "$tmp" "$out/$name"; mkdir -p "$tmp"
  if ! "$@" >"$out/$name.log" 2>&1; then cat "$out/$name.log" >&2; exit 1; fi
  mv "$tmp" "$out/$name"; echo "$pins" >"$out/$name/.done"
}

# Python: an sdist from PyPI (decorators, properties, dataclass-like classes).
python_sdist() {
  python3 -m pip download --no-deps --no-binary :all: --dest "$tmp/dl" attrs==25.3.0
  tar -xzf "$tmp"/dl/attrs-25.3.0.tar.gz -C "$tmp"
  rm -rf "$tmp/dl"
}
# TypeScript: an npm package that ships its TypeScript sources.
npm_pack() {
  (cd "$tmp" && npm pack --silent zod@3.23.8 && tar -xzf zod-3.23.8.tgz && rm zod-3.23.8.tgz)
}
# Go: modules from the Go module proxy (the environment's GOPROXY), copied out of
# the module cache.
go_modules() {
  export GOFLAGS=-mod=mod GOMODCACHE="$tmp/.modcache"
  local m
  for m in github.com/google/uuid@v1.6.0 golang.org/x/sync@v0.10.0; do
    dir=$(go mod download -json "$m" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
    mkdir -p "$tmp/${m%@*}"; cp -r "$dir"/. "$tmp/${m%@*}"
  done
  chmod -R u+w "$tmp/.modcache"; rm -rf "$tmp/.modcache"
}
# Rust: the crates rust-corpus/Cargo.lock pins, vendored from crates.io (one
# directory per crate, `<name>-<version>`). Never cargo's registry: what it holds
# depends on what the machine built before.
cargo_vendor() {
  cargo vendor --locked --versioned-dirs --manifest-path "$here/rust-corpus/Cargo.toml" "$tmp"
}
# Java and Kotlin: `-sources.jar`s from Maven Central.
maven_sources() {
  local coords=$1
  mvn -B -q dependency:get -Dtransitive=false -Dartifact="$coords:jar:sources"
  local g=${coords%%:*} rest=${coords#*:}; local a=${rest%%:*} v=${rest#*:}
  (cd "$tmp" && unzip -q -o "$HOME/.m2/repository/${g//.//}/$a/$v/$a-$v-sources.jar")
}

once rust cargo_vendor
once python python_sdist
once typescript npm_pack
once go go_modules
once java maven_sources com.google.code.gson:gson:2.11.0
once kotlin maven_sources org.jetbrains.kotlinx:kotlinx-coroutines-core-jvm:1.8.1
echo "$out"
