#!/usr/bin/env bash
# The one command that runs every test of lean-ctx on a fresh machine:
#   bash tests/run.sh
# It installs what the tests need, then runs formatting and lint checks, every unit
# and integration test of the workspace (real daemons, real shims, real git), and
# finally checks that no test left a daemon running. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "toolchain"
cargo --version
rustc --version
# Debian packages the tests drive as real peers: git (worktrees), python3 (plistlib,
# a foreign-uid client), util-linux's setpriv, systemd's systemd-analyze and
# systemd-socket-activate.
need=()
for pair in git:git python3:python3 setpriv:util-linux systemd-analyze:systemd systemd-socket-activate:systemd; do
  command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
if ((${#need[@]})); then
  echo "installing ${need[*]}"
  if [[ $(id -u) == 0 ]]; then apt-get update -qq && apt-get install -y -qq "${need[@]}"
  else sudo apt-get update -qq && sudo apt-get install -y -qq "${need[@]}"; fi
fi
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "missing $tool: install Node.js 20 with npm"; exit 1; }
done
for tool in java mvn; do
  command -v "$tool" >/dev/null || { echo "missing $tool: install Java 17 and Maven (apt-get install openjdk-17-jdk-headless maven)"; exit 1; }
done
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy

step "real peers: rust-analyzer, python-lsp-server, the Python mcp SDK, the MCP Inspector"
# rust-analyzer: rustup's component where it exists, else built once from crates.io
# and cached outside the checkout (~8 minutes the first time on 2 cores).
LEAN_CTX_TEST_RUST_ANALYZER="$(bash tests/ensure-rust-analyzer.sh)"
export LEAN_CTX_TEST_RUST_ANALYZER
"$LEAN_CTX_TEST_RUST_ANALYZER" --version
python3 -m pip install -q --disable-pip-version-check -r tests/requirements.txt
(cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)

step "plugin-kotlin core: JUnit tests and the standalone contract server (Maven)"
# The IDE-free core of the JetBrains plugin; the IntelliJ adapter (plugin-kotlin/ide)
# needs JetBrains' repositories and is not built here.
mvn -B -q -f plugin-kotlin/core/pom.xml verify

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
# Builds every binary first, so the shim's tests find the lean-ctxd they spawn.
cargo test --workspace --locked

step "no daemon or language server left behind"
# Everything a test daemon spawned inherits its LEAN_CTX_RUNTIME_DIR under /tmp/lc*.
leftover=0
for env in /proc/[0-9]*/environ; do
  pid=${env#/proc/}; pid=${pid%/environ}
  [[ $pid == "$$" ]] && continue
  if tr '\0' '\n' <"$env" 2>/dev/null | grep -q '^LEAN_CTX_RUNTIME_DIR=/tmp/lc'; then
    echo "still running: pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null))"; leftover=1
  fi
done
[[ $leftover == 0 ]] || exit 1
echo "none"

step "all tests passed"
