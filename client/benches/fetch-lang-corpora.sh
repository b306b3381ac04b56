#!/usr/bin/env bash
# Fetches one pinned real corpus per language (code nobody here tuned for) from the
# package registries with their ordinary clients, into
# target/bench-corpus-langs/<language>/, each a git repository, and prints one line
# per corpus. Idempotent (a `.done` marker per corpus); never committed. Used by the
# per-language part of the index bench (client/benches/index.rs) and by the daemon's
# whole-corpus fast-path check (LEAN_CTX_BENCH_CORPORA).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${LEAN_CTX_BENCH_CORPORA:-$(cd "$here/../.." && pwd)/target/bench-corpus-langs}"
mkdir -p "$out"
# Tests that need the corpora run at once (threads of one test binary, several
# binaries): one fetch at a time, so none removes the `.tmp` another is filling; the
# others wait here and then find `.done`.
exec 9>"$out/.lock"
flock 9
tmp="$out/.tmp"

# once NAME CMD...: runs CMD unless NAME was fetched already; CMD fills "$tmp", which
# then becomes "$out/NAME", committed to a fresh git repository.
once() {
  local name=$1; shift
  [[ -f "$out/$name/.done" ]] && return 0
  rm -rf "$tmp" "$out/$name"; mkdir -p "$tmp"
  if ! "$@" >"$out/$name.log" 2>&1; then cat "$out/$name.log" >&2; exit 1; fi
  (cd "$tmp" && git init -q && git -c user.name=bench -c user.email=bench@localhost add -A \
    && git -c user.name=bench -c user.email=bench@localhost commit -qm corpus)
  mv "$tmp" "$out/$name"; touch "$out/$name/.done"
}

# Python: a large web framework's sdist from PyPI.
python_sdist() {
  python3 -m pip download --no-deps --no-binary :all: --dest "$tmp/dl" django==5.1.4
  tar -xzf "$tmp"/dl/[Dd]jango-5.1.4.tar.gz -C "$tmp"
  rm -rf "$tmp/dl"
}
# TypeScript and JavaScript: npm packages, each unpacked into a directory of its
# name (rxjs and effect ship their TypeScript sources).
npm_pack() {
  local spec tgz
  for spec in "$@"; do
    mkdir -p "$tmp/${spec%@*}"
    (cd "$tmp/${spec%@*}" && tgz=$(npm pack --silent "$spec") && tar -xzf "$tgz" && rm "$tgz")
  done
}
# Go: a module from the Go module proxy (the environment's GOPROXY), copied out of
# the module cache.
go_module() {
  export GOFLAGS=-mod=mod GOMODCACHE="$tmp/.modcache"
  local m=$1 dir
  dir=$(go mod download -json "$m" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  mkdir -p "$tmp/${m%@*}"; cp -r "$dir"/. "$tmp/${m%@*}"
  chmod -R u+w "$tmp/.modcache"; rm -rf "$tmp/.modcache"
}
# Java and Kotlin: `-sources.jar`s from Maven Central.
maven_sources() {
  local coords=$1
  mvn -B -q dependency:get -Dtransitive=false -Dartifact="$coords:jar:sources"
  local g=${coords%%:*} rest=${coords#*:}; local a=${rest%%:*} v=${rest#*:}
  (cd "$tmp" && unzip -q -o "$HOME/.m2/repository/${g//.//}/$a/$v/$a-$v-sources.jar")
}

# The languages added with the conformance corpora (C, C++, C#, Ruby, PHP, shell,
# Lua, Scala, Swift, Haskell, Elixir, OCaml, R): their pinned conformance corpora
# (daemon/benches/fetch-conformance.sh), each copied into a repository of its own.
conformance() {
  cp -r "$(bash "$here/../../daemon/benches/fetch-conformance.sh")/$1/." "$tmp"
  rm -f "$tmp/.done"
}

once python python_sdist
once typescript npm_pack rxjs@7.8.1 effect@3.10.0
once javascript npm_pack lodash@4.17.21
once go go_module golang.org/x/tools@v0.28.0
once java maven_sources com.google.guava:guava:33.3.1-jre
once kotlin maven_sources org.jetbrains.kotlin:kotlin-stdlib:2.0.21
added=(c cpp csharp ruby php bash lua scala swift haskell elixir ocaml r)
for lang in "${added[@]}"; do
  once "$lang" conformance "$lang"
done
for lang in python typescript javascript go java kotlin "${added[@]}"; do
  echo "$lang: $out/$lang"
done
