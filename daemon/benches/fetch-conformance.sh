#!/usr/bin/env bash
# Fetches the conformance corpora (code nobody here wrote, at pinned versions) from
# the package registries with their ordinary clients, into
# target/conformance-corpus/<language>/, and prints that directory. A corpus's pins
# change only with its fetch function here (or rust-corpus/Cargo.lock); a corpus
# fetched by older pins is fetched again (each `.done` holds the pins' hash). Idempotent: each
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
# `once` and the registries' fetchers.
source "$here/fetch-lib.sh"

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
# Corpora of C, C++, C#.
# C and C++: upstream tarballs from Debian (`debian_orig`): after the extensions
# (`c|h`), DIR PATH SHA256 per tarball, each unpacked into DIR with only those files.
c_family_orig() {
  local exts=$1; shift
  while (($# >= 3)); do
    (tmp=$tmp/$1; mkdir -p "$tmp"; debian_orig "$2" "$3"
     find "$tmp" -regextype egrep -type f ! -regex ".*\.($exts)" -delete)
    shift 3
  done
  find "$tmp" -type d -empty -delete
}
# C#: pythonnet's runtime (`src/runtime`), from its sdist on PyPI.
csharp_sdist() {
  python3 -m pip download --no-deps --no-binary :all: --dest "$tmp/dl" pythonnet==3.0.5
  tar -xzf "$tmp"/dl/pythonnet-3.0.5.tar.gz -C "$tmp/dl"
  mv "$tmp/dl/pythonnet-3.0.5/src/runtime" "$tmp/pythonnet-3.0.5"
  rm -rf "$tmp/dl"
  find "$tmp" -type f ! -name '*.cs' -delete
}
once c c_family_orig 'c|h' \
  libuv-1.44.2 libu/libuv1/libuv1_1.44.2.orig.tar.gz d79b4b06ef04be85fb890bf39d55942cc64c2e15fd14eaa32dae5dce94485484
once cpp c_family_orig 'cc|cpp|h' \
  leveldb-1.23 l/leveldb/leveldb_1.23.orig.tar.gz 9a37f8a6174f09bd622bc723b55881dc541cd50747cbd08831c2a82d620f6d76 \
  fmtlib-9.1.0 f/fmtlib/fmtlib_9.1.0+ds1.orig.tar.gz 84ce1c2d0be3a9863935137969dcec6970125caac032f82474640bfc81463583
once csharp csharp_sdist
# Corpora of Ruby, PHP, shell, Lua.
once ruby debian_sources rb,rake,gemspec,ru \
  puma-5.6.5 '*' p/puma/puma_5.6.5.orig.tar.gz 8c056fddcf3acefb4547bff3533741cd8e8a1b08c3ff0a60a5ec68f208b4659b \
  hashie-5.0.0 '*' r/ruby-hashie/ruby-hashie_5.0.0.orig.tar.gz f16d5394d732678d6287a334aeb41e88bb12fe78c22c4b749ffcb0570014f59a
once php debian_sources php,phtml \
  composer-2.5.5 'src/*' c/composer/composer_2.5.5.orig.tar.xz 9d24f477e5a3c1c2ab12c1cf734a0d66d4572740d9edad44e462c5dc60983bce \
  monolog-2.9.1 'src/*' p/php-monolog/php-monolog_2.9.1.orig.tar.xz 55d7d62eee001d4e68fe0d53841ede53bd583f4e0e3a172877d9a939f4b3c79e
once bash debian_sources sh,bash \
  dracut-059 '*' d/dracut/dracut_059.orig.tar.xz 11c338ba8a71d07874753f1dba1c261f2f3cef9f2ba5d14dfc2c13f4047e266a \
  bats-support-0.3.0 '*' b/bats-support/bats-support_0.3.0.orig.tar.gz 7815237aafeb42ddcc1b8c698fc5808026d33317d8701d5ec2396e9634e2918f
once lua debian_sources lua \
  luarocks-3.8.0 '*' l/luarocks/luarocks_3.8.0+dfsg1.orig.tar.xz 6c691772a341d1873d9bcfb63c91ad0ae213df56a002067f1f9619a8f09e0f77 \
  awesome-4.3 'lib/*' a/awesome/awesome_4.3.orig.tar.xz 78264d6f012350b371e339127aca485260bc0aa935eff578ba75ce1a00e11753
# Corpora of Scala, Swift, Elixir.
# Scala: the `-sources.jar`s of cats-core (Scala 2 style, cross-built for 3) and of
# the Scala 3 library (enums, givens, extensions), their `.scala` files.
scala_sources() {
  local coords
  for coords in "$@"; do maven_sources "$coords"; done
  find "$tmp" -type f ! -name '*.scala' -delete
}
# Swift: an npm package that ships its iOS sources, their `.swift` files.
swift_npm() {
  (cd "$tmp" && npm pack --silent "$1" && tar -xzf ./*.tgz && rm ./*.tgz)
  find "$tmp" -type f ! -name '*.swift' -delete
}
# Elixir: Elixir's own libraries (Debian's elixir-lang), `lib/*/lib`, not the tests.
elixir_orig() {
  debian_orig "$@"
  find "$tmp" -type f ! \( -path "$tmp/lib/*/lib/*" \( -name '*.ex' -o -name '*.exs' \) \) -delete
}
once scala scala_sources org.typelevel:cats-core_3:2.12.0 org.scala-lang:scala3-library_3:3.3.4
once swift swift_npm expo-modules-core@2.2.3
once elixir elixir_orig e/elixir-lang/elixir-lang_1.14.0.dfsg.orig.tar.xz \
  3dfa724f36b90d1bc41b9626a8ea0c293255c3a21a4d608c576ce39e2a23e5c9
# Corpora of Haskell, OCaml, R.
# Hackage's megaparsec and aeson, OCaml's re and menhir, CRAN's dplyr (its `R/`, not
# the tests), as Debian packages them (`debian_sources` above).
once haskell debian_sources hs \
  megaparsec-9.2.2 '*' h/haskell-megaparsec/haskell-megaparsec_9.2.2.orig.tar.gz a48b03e55c0b9efcc88ce4236186fb6eee3acb64336987dd9c98daf4d96aa234 \
  aeson-2.0.3.0 '*' h/haskell-aeson/haskell-aeson_2.0.3.0.orig.tar.gz 19760a2b84764fa3cee65c63df0c80d45497e2f0c3b95d4e6dc2083b8604b325
once ocaml debian_sources ml \
  ocaml-re-1.10.4 '*' o/ocaml-re/ocaml-re_1.10.4.orig.tar.bz2 83eb3e4300aa9b1dc7820749010f4362ea83524742130524d78c20ce99ca747c \
  menhir-20220210 '*' m/menhir/menhir_20220210+ds.orig.tar.xz f72379b0600e3536d80ae1ea9e765f1caca4e7c8d111fd3023bc0d49f50329ad
once r debian_sources R,r \
  dplyr-1.0.10 'R/*' r/r-cran-dplyr/r-cran-dplyr_1.0.10.orig.tar.gz 3ab639f627b4e439052df18f193f0ccab223225a4ae2ff8c18aba4f9807e0f2b

once rust cargo_vendor
once python python_sdist
once typescript npm_pack
once go go_modules
once java maven_sources com.google.code.gson:gson:2.11.0
once kotlin maven_sources org.jetbrains.kotlinx:kotlinx-coroutines-core-jvm:1.8.1
echo "$out"
