#!/usr/bin/env bash
# Prints the directory of a Python virtual environment holding exactly the pinned
# packages of tests/requirements.txt (python-lsp-server, the mcp SDK), creating it if
# it does not exist yet.
#
# The tests run `<venv>/bin/pylsp` and `<venv>/bin/python`, never whatever `pylsp` or
# `mcp` happens to be on PATH or in the user's site-packages. The venv is keyed by the
# hash of requirements.txt and cached outside the checkout (override the cache with
# LEAN_CTX_TOOL_CACHE, like tests/ensure-rust-analyzer.sh), so a changed pin gets a
# fresh venv and a clean clone on the same machine reuses it.
set -euo pipefail
requirements="$(cd "$(dirname "$0")" && pwd)/requirements.txt"
key=$(sha256sum "$requirements" | cut -c1-16)
venv="${LEAN_CTX_TOOL_CACHE:-$HOME/.cache/lean-ctx-tools}/python-$key"

works() { [[ -f "$venv/.complete" ]] && "$venv/bin/pylsp" --version >/dev/null 2>&1; }

if works; then echo "$venv"; exit 0; fi

# One installer at a time (test binaries may ask at once); the winner's venv is used.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if works; then echo "$venv"; exit 0; fi

echo "installing $requirements into $venv" >&2
rm -rf "$venv"
python3 -m venv "$venv" >&2 || {
  echo "python3 -m venv failed: install python3-venv (apt-get install python3-venv)" >&2
  exit 1
}
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" >&2
# Written last: a venv whose install was interrupted is rebuilt, never used.
touch "$venv/.complete"
works || { echo "pylsp installed into $venv but does not run" >&2; exit 1; }
echo "$venv"
