#!/usr/bin/env bash
# The mutation run BENCHMARKS.md reports ("Mutation testing"): cargo-mutants over
# the path jail (daemon/src/jail.rs), the edit/apply code (daemon/src/edit.rs) and
# the persisted store's load and seal checks (the functions of
# daemon/src/index/store/persist.rs that open, check or seal what is on disk),
# against the daemon's unit tests and its conformance test (which plans an edit of
# every symbol of a corpus sample: most of edit.rs is exercised there, not in unit
# tests). A measure, not a CI step: hours on two cores. The end-to-end tests in
# client/tests are left out (each needs fresh binaries of the mutated tree).
#
# Resumable: the results accumulate in OUT (default target/mutants); a later run
# passes --iterate and skips what an earlier one found caught or unviable, so a run
# stopped at a session's end goes on where it stopped. Usage:
#   daemon/benches/mutants.sh [OUT] [extra cargo-mutants arguments...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/target/mutants}"
shift || true
command -v cargo-mutants >/dev/null || cargo install cargo-mutants --locked --version 27.1.0
mkdir -p "$out"
iterate=()
[[ -f "$out/mutants.out/outcomes.json" ]] && iterate=(--iterate)
store='persist\.rs.*(in|replace) (Writer::load|Writer::index|Store::load_listing|open_record|seal|header|mac|listing_mac|key_bytes|record_len_at|Window::get|read_key|read_private|open_private_dir|private_file|still_there|dev_ino)\b'
cd "$root"
# The tests take about 70 s on an idle machine and several times that beside other
# work: a mutant is a hang only past 600 s. The unmutated baseline is not run (it
# timed out once under load and stopped the run); the tree's tests pass in CI.
exec nice -n 19 cargo mutants \
  --file daemon/src/jail.rs --file daemon/src/edit.rs --file daemon/src/index/store/persist.rs \
  -F "jail\.rs|edit\.rs|$store" \
  --test-package lean-ctx-daemon --profile mutants -j 1 --timeout 600 --baseline skip \
  -o "$out" "${iterate[@]}" "$@" -- --lib --test conformance
