#!/usr/bin/env bash
# Vendors the pinned benchmark corpus (client/benches/corpus/Cargo.lock) into
# target/bench-corpus/repo, makes it a git repository with a second worktree, and
# prints the number of .rs files. Idempotent; the corpus is never committed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
out="$repo_root/target/bench-corpus"
if [[ ! -f "$out/.done" ]]; then
  rm -rf "$out"
  mkdir -p "$out"
  if ! cargo vendor --locked --versioned-dirs --manifest-path "$here/corpus/Cargo.toml" "$out/repo/vendor" >"$out/vendor.log" 2>&1; then
    cat "$out/vendor.log"; exit 1
  fi
  cd "$out/repo"
  git init -q
  git -c user.name=bench -c user.email=bench@localhost add -A
  git -c user.name=bench -c user.email=bench@localhost commit -qm corpus
  git worktree add -q -b second "$out/second"
  touch "$out/.done"
fi
echo "corpus: $out/repo ($(find "$out/repo/vendor" -name '*.rs' | wc -l) .rs files), second worktree: $out/second"
