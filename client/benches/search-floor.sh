#!/usr/bin/env bash
# The floor of an indexed search's answer (BENCHMARKS.md, "Text search against
# ripgrep"): an answer of 1,000 lines must read at least the files holding them. Runs
# `lean-ctx search --text PATTERN --limit 1000` against a warm daemon of its own (temp
# directories), takes the answer's files, then times, alternating, whole process each:
# rg over only those files, rg over the whole tree, and lean-ctx. p50 of ROUNDS.
# Usage: client/benches/search-floor.sh DIR PATTERN [-i]   (needs target/release and rg)
set -euo pipefail
dir=$1 pattern=$2 case=${3:-}
rounds=${ROUNDS:-15}
root="$(cd "$(dirname "$0")/../.." && pwd)"
cli="$root/target/release/lean-ctx"
tmp=$(mktemp -d)
trap '"$cli" daemon stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{data,run,state,config}
chmod 700 "$tmp/run"
printf '[index]\nmax_file_bytes = 1073741824\nstore_max_bytes = 4294967296\ntext_index = true\n' >"$tmp/config/config.toml"
export LEAN_CTX_DATA_DIR="$tmp/data" LEAN_CTX_RUNTIME_DIR="$tmp/run" \
  LEAN_CTX_STATE_DIR="$tmp/state" LEAN_CTX_CONFIG_DIR="$tmp/config" \
  LEAN_CTX_DAEMON_BIN="$root/target/release/lean-ctxd"
cd "$dir"
ours=(search --text "$pattern" --limit 1000)
theirs=(--no-config -n -F)
[[ $case == -i ]] && ours+=(-i) && theirs+=(-i)
"$cli" --root . "${ours[@]}" >/dev/null # starts the daemon and waits for its index
"$cli" --root . "${ours[@]}" --json >"$tmp/answer.json"
mapfile -t files < <(python3 - "$tmp/answer.json" <<'PY'
import json, sys
seen = []
def walk(o):
    if isinstance(o, dict):
        if isinstance(o.get("path"), str) and o["path"] not in seen:
            seen.append(o["path"])
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(json.load(open(sys.argv[1])))
print("\n".join(seen))
PY
)
echo "the answer's files: ${#files[@]}, $(cat "${files[@]}" | wc -c) bytes"
ms() { local s; s=$(date +%s%N); "$@" >/dev/null; echo $((($(date +%s%N) - s) / 10000)); }
a=() b=() c=()
for _ in $(seq "$rounds"); do
  a+=("$(ms rg "${theirs[@]}" -- "$pattern" "${files[@]}")")
  b+=("$(ms rg "${theirs[@]}" -- "$pattern")")
  c+=("$(ms "$cli" --root . "${ours[@]}")")
done
p50() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {printf "%.2f", v[int((NR + 1) / 2)] / 100}'; }
echo "rg over the answer's files: $(p50 "${a[@]}") ms; rg over all: $(p50 "${b[@]}") ms; lean-ctx: $(p50 "${c[@]}") ms"
