#!/usr/bin/env bash
# The mutation run BENCHMARKS.md reports ("Mutation testing"): cargo-mutants over
# the path jail (daemon/src/jail.rs), the edit/apply code (daemon/src/edit.rs) and
# the persisted store's load and seal checks (the functions of
# daemon/src/index/store/persist.rs that open, check or seal what is on disk). Each
# file's mutants run against the unit tests that exercise it (a name filter) and,
# for edit.rs, the conformance test too (it plans an edit of every symbol of a
# corpus sample: most of edit.rs is exercised there, not in unit tests). The
# end-to-end tests in client/tests are left out: each needs fresh binaries of the
# mutated tree. A measure, not a CI step: hours on two cores.
#
# Resumable: each file's results accumulate in OUT/<part> (OUT defaults to
# target/mutants); a later run passes --iterate and skips what an earlier one found
# caught or unviable, so a run stopped at a session's end goes on where it stopped.
# Usage:
#   daemon/benches/mutants.sh [OUT] [jail|edit|store ...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/target/mutants}"
shift || true
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(jail edit store)
command -v cargo-mutants >/dev/null || cargo install cargo-mutants --locked --version 27.1.0
store='persist\.rs.*(in|replace) (Writer::load|Writer::index|Store::load_listing|open_record|seal|header|mac|listing_mac|key_bytes|record_len_at|Window::get|read_key|read_private|open_private_dir|private_file|still_there|dev_ino)\b'
# mold, where installed, links each mutant's test binary in a fraction of ld's time
# (the link is most of an incremental build here).
command -v mold >/dev/null && export RUSTFLAGS="${RUSTFLAGS:-} -C link-arg=-fuse-ld=mold"
cd "$root"
for part in "${parts[@]}"; do
  case "$part" in
    jail) file=daemon/src/jail.rs filter='jail\.rs' tests=(--lib -- jail:: edit:: backing:: index::) ;;
    # The conformance test thinned to a tenth of its sample: whole, it took most of
    # a mutant's time. A mutant it misses thinned is tried again whole before it is
    # judged (`LEAN_CTX_CONFORMANCE_THIN=1`).
    # cargo-mutants builds a copy of the tree: the corpus is this tree's, not fetched
    # again into the copy.
    edit) file=daemon/src/edit.rs filter='edit\.rs' tests=(--lib --test conformance -- edit:: backing:: every_symbol)
      export LEAN_CTX_CONFORMANCE_THIN="${LEAN_CTX_CONFORMANCE_THIN:-10}"
      export LEAN_CTX_CONFORMANCE_CORPUS="${LEAN_CTX_CONFORMANCE_CORPUS:-$root/target/conformance-corpus}" ;;
    store) file=daemon/src/index/store/persist.rs filter="$store" tests=(--lib -- index::store) ;;
    *) echo "unknown part $part: jail, edit or store" >&2; exit 2 ;;
  esac
  mkdir -p "$out/$part"
  iterate=()
  [[ -f "$out/$part/mutants.out/outcomes.json" ]] && iterate=(--iterate)
  # A mutant is a hang only past 240 s: the filtered tests take seconds on an idle
  # machine and several times that beside other work (a mutant that makes the store's
  # writer panic leaves its lookups waiting, so hangs are common here). The unmutated baseline is not run (it timed
  # out once under load and stopped the run); the tree's tests pass in CI.
  nice -n 19 cargo mutants --file "$file" -F "$filter" \
    --test-package lean-ctx-daemon --profile mutants -j 1 --timeout 240 --baseline skip \
    -o "$out/$part" "${iterate[@]}" -- "${tests[@]}" || {
    # 2: some mutants missed, 3: some timed out; both are results, not failures.
    rc=$?
    [[ $rc == 2 || $rc == 3 ]] || exit "$rc"
  }
done
