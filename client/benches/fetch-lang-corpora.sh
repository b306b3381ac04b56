#!/usr/bin/env bash
# Fetches one pinned real corpus per language (code nobody here tuned for) from the
# package registries with their ordinary clients, into
# target/bench-corpus-langs/<language>/, each a git repository, and prints one line
# per corpus. Idempotent (a corpus is fetched again only when its pins change); never
# committed. Used by the per-language part of the index bench (client/benches/index.rs)
# and by the syntax crate's whole-corpus fast-path check (syntax/benches/fast_paths.rs).
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
# `once` and the registries' fetchers (shared with the conformance corpora), and
# what makes each corpus a git repository once it is filled.
source "$here/../../daemon/benches/fetch-lib.sh"
committed() {
  git init -q && git -c user.name=bench -c user.email=bench@localhost add -A \
    && git -c user.name=bench -c user.email=bench@localhost commit -qm corpus
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
# The languages added later: real projects from Debian's archive (`debian_sources`),
# several MiB of the language each. Their conformance corpora are 0.4-3.7 MiB, on
# which a first index is mostly the daemon's start and ctags' mostly its own. Scala
# and Swift (no ctags parser to compare with) keep their conformance corpora
# (daemon/benches/fetch-conformance.sh), each copied into a repository of its own.
conformance() {
  cp -r "$(bash "$here/../../daemon/benches/fetch-conformance.sh")/$1/." "$tmp"
  rm -f "$tmp/.done"
}
git_orig=(g/git/git_2.39.5.orig.tar.xz c58da92c378df4a986ca33266897a7397e86c22ee266a284d8c2432c39066b59)

once python python_sdist
once typescript npm_pack rxjs@7.8.1 effect@3.10.0
once javascript npm_pack lodash@4.17.21
once go go_module golang.org/x/tools@v0.28.0
once java maven_sources com.google.guava:guava:33.3.1-jre
once kotlin maven_sources org.jetbrains.kotlin:kotlin-stdlib:2.0.21
once c debian_sources c,h \
  git-2.39.5 '*' "${git_orig[@]}" \
  redis-7.0.15 '*' r/redis/redis_7.0.15.orig.tar.gz 4b1dc4ee6d622a09fff9c6777191209750fb5e5a725ef78ea012d6eef4c22982
once cpp debian_sources cc,cpp,h \
  rocksdb-7.8.3 '*' r/rocksdb/rocksdb_7.8.3.orig.tar.gz b85408a374770897332bf15e51620a5f35720dd416a4749e3899057f9cfaf84d
once csharp debian_sources cs \
  keepass2-2.47 '*' k/keepass2/keepass2_2.47+dfsg.orig.tar.xz 023ec3ec467c24b5bbc839973427cd2c0c31ab6f2f209d6172e68b56a5039309 \
  newtonsoft-json-6.0.8 '*' n/newtonsoft-json/newtonsoft-json_6.0.8+dfsg.orig.tar.gz 3b7c77da971bbe1c6fdbb5cbb634d106a86aa30c82647abd9b23d2f31be0c630 \
  nunit-2.6.4 '*' n/nunit/nunit_2.6.4+dfsg.orig.tar.bz2 daebaa04b4a4ccd2ecf120e8d6f315ef51092d06a6aa42223a12fc2cee3dd361
once ruby debian_sources rb,rake,gemspec,ru \
  rails-6.1.7.10 '*' r/rails/rails_6.1.7.10+dfsg.orig.tar.xz 54f0c056757697e2fd6887e622c23fac5eb862a65ac497e9e3a5081a3dc57f66 \
  vagrant-2.3.4 '*' v/vagrant/vagrant_2.3.4+dfsg.orig.tar.xz c868831cd7038949d65d4c7edde7b5ee63fdbbafd62596fad1ea126f40eadfb6 \
  rubocop-1.39.0 '*' r/rubocop/rubocop_1.39.0+dfsg.orig.tar.xz ba0ddf790c6afb418a9de66d272d7205e5ae448c65afbc29fbee56c7eb76ec11
once php debian_sources php,phtml \
  wordpress-6.1.9 '*' w/wordpress/wordpress_6.1.9+dfsg1.orig.tar.xz 42faeb7b4c5cd0e57cfe9863ed6d2758ace8dcdb4e95f0e382dbe737464f36c0 \
  phpmyadmin-5.2.1 '*' p/phpmyadmin/phpmyadmin_5.2.1+dfsg.orig.tar.xz 19cec99e6759af0f6ee8bbacc11584f0127c95d6a26b69ffe11a3de901fe5e60
once bash debian_sources sh,bash \
  git-2.39.5 't/*' "${git_orig[@]}" \
  dracut-059 '*' d/dracut/dracut_059.orig.tar.xz 11c338ba8a71d07874753f1dba1c261f2f3cef9f2ba5d14dfc2c13f4047e266a
once lua debian_sources lua \
  neovim-0.7.2 '*' n/neovim/neovim_0.7.2.orig.tar.xz e4f3f60c528b3e0f268102f0522a8c8a0a8473875583b6cd1768f0ad3c85a035 \
  nmap-7.93 '*' n/nmap/nmap_7.93+dfsg1.orig.tar.xz e35fef528f875ad7307e14aca50607303e378ffc66b801165332a28de8fca914 \
  prosody-0.12.3 '*' p/prosody/prosody_0.12.3.orig.tar.gz 35da0d031ff46040a2d638e004d4255e249b6323fe6212db9ddd76b401db2101 \
  awesome-4.3 '*' a/awesome/awesome_4.3.orig.tar.xz 78264d6f012350b371e339127aca485260bc0aa935eff578ba75ce1a00e11753
once haskell debian_sources hs \
  pandoc-2.17.1.1 '*' p/pandoc/pandoc_2.17.1.1.orig.tar.gz df7c605d084252fc28687dffe63ca57dd04a463698d323924d3be2f1f5df32 \
  git-annex-10.20230126 '*' g/git-annex/git-annex_10.20230126.orig.tar.xz 3b19bc6a74fe1b201238a78d47c6d9bd6bcf7a670711c99564d060e60d6da586 \
  shellcheck-0.9.0 '*' s/shellcheck/shellcheck_0.9.0.orig.tar.gz abbee3b729d525a959b06423a71fe3a17ed07b6220bc84394deffe8cd813331c
once elixir debian_sources ex,exs \
  elixir-1.14.0 'lib/*' e/elixir-lang/elixir-lang_1.14.0.dfsg.orig.tar.xz 3dfa724f36b90d1bc41b9626a8ea0c293255c3a21a4d608c576ce39e2a23e5c9
once ocaml debian_sources ml \
  ocaml-4.13.1 '*' o/ocaml/ocaml_4.13.1.orig.tar.gz 66a5353c5e7b33a8981446e857657aad45a3b82080ea5c67d4baa434eacfcf5f \
  ocaml-dune-2.9.3 '*' o/ocaml-dune/ocaml-dune_2.9.3.orig.tar.bz2 3e65ec73ab2c80d50d4ffd6c46cbfb22eacd0e5587a4be8af8ae69547d5f88d6
once r debian_sources R,r \
  r-base-4.2.2 'src/library/*' r/r-base/r-base_4.2.2.20221110.orig.tar.gz 8976903842d7df1f885c85a820826b8d4e8edef4ce4b49550683b851bd4a3a74
once scala conformance scala
once swift conformance swift
for lang in python typescript javascript go java kotlin c cpp csharp ruby php bash lua scala swift haskell elixir ocaml r; do
  echo "$lang: $out/$lang"
done
