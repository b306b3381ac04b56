#!/usr/bin/env bash
# Builds the scale bench's corpus: one git repository of more than 100,000 source
# files, a reproducible composite of real, pinned packages from the registries
# (npm tarballs, PyPI sdists, Go modules, Maven source jars, and the Rust crates the
# index bench vendors), in target/scale-corpus/repo. Idempotent; never committed.
#
# Why a composite: no single public repository that large is reachable here (only
# the package registries are), and a mix of every indexed language is closer to a
# large monorepo than 100,000 files of one. Files are copied, never symlinked: the
# index refuses symlinks (README, Security).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
out="$repo_root/target/scale-corpus"
repo="$out/repo"
tmp="$out/.tmp"

if [[ -f "$out/.done" ]]; then
  echo "$repo"
  exit 0
fi

bash "$here/fetch-corpus.sh" >/dev/null
rm -rf "$out"
mkdir -p "$repo" "$tmp"
log="$out/fetch.log"
run() { "$@" >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }; }

# Rust: the index bench's vendored crates.
cp -r "$repo_root/target/bench-corpus/repo/vendor" "$repo/rust"

# npm: tarballs as published (no install, so no dependency resolution to drift).
npm_packages=(
  @mui/icons-material@5.16.7 @tabler/icons-react@3.22.0 @fluentui/react@8.121.0
  antd@5.22.0 core-js@3.39.0 date-fns@2.30.0 @mui/material@5.16.7
  es-abstract@1.23.5 lucide-react@0.460.0 effect@3.10.0 three@0.170.0
  aws-sdk@2.1692.0
)
for p in "${npm_packages[@]}"; do
  name=${p%@*}
  dest="$repo/npm/${name//\//__}"
  mkdir -p "$dest"
  tgz=$(cd "$tmp" && npm pack --silent "$p" 2>>"$log" | tail -1)
  run tar -xzf "$tmp/$tgz" -C "$dest" --strip-components=1
  rm -f "$tmp/$tgz"
done

# PyPI: pure-Python sdists.
for p in Django==5.1.4 sympy==1.13.3 ansible-core==2.18.1 salt==3007.1; do
  run python3 -m pip download --no-deps --no-binary :all: --dest "$tmp/py" "$p"
done
mkdir -p "$repo/python"
for f in "$tmp"/py/*.tar.gz; do run tar -xzf "$f" -C "$repo/python"; done

# Go modules through the module proxy.
export GOFLAGS=-mod=mod GOMODCACHE="$tmp/gomod"
for m in github.com/aws/aws-sdk-go@v1.55.5 golang.org/x/tools@v0.28.0 \
  k8s.io/kubernetes@v1.31.3 github.com/hashicorp/terraform-provider-aws@v1.60.0; do
  dir=$(go mod download -json "$m" 2>>"$log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  mkdir -p "$repo/go/${m%@*}"
  cp -r "$dir"/. "$repo/go/${m%@*}"
done
chmod -R u+w "$repo/go" "$tmp/gomod"

# Java and Kotlin: Maven source jars.
for c in org.hibernate.orm:hibernate-core:6.6.3.Final \
  org.jetbrains.kotlin:kotlin-compiler-embeddable:2.0.21 \
  org.eclipse.jdt:org.eclipse.jdt.core:3.40.0 org.springframework:spring-core:6.2.0 \
  com.google.guava:guava:33.3.1-jre org.jetbrains.kotlin:kotlin-stdlib:2.0.21; do
  run mvn -B -q dependency:get -Dtransitive=false -Dartifact="$c:jar:sources"
  g=${c%%:*} rest=${c#*:}
  a=${rest%%:*} v=${rest#*:}
  mkdir -p "$repo/jvm/$a"
  run unzip -q -o "$HOME/.m2/repository/${g//.//}/$a/$v/$a-$v-sources.jar" -d "$repo/jvm/$a"
done

rm -rf "$tmp"
cd "$repo"
run git init -q
run git -c user.name=bench -c user.email=bench@localhost add -A
run git -c user.name=bench -c user.email=bench@localhost commit -qm corpus
files=$(git ls-files | grep -cE '\.(rs|py|pyi|js|mjs|cjs|jsx|ts|mts|cts|tsx|go|java|kt|kts)$')
if ((files < 100000)); then
  echo "scale corpus has only $files source files (want 100,000)" >&2
  exit 1
fi
touch "$out/.done"
echo "$repo"
