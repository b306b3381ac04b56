#!/usr/bin/env bash
# The one command that runs every test of lean-ctx on a fresh machine:
#   bash tests/run.sh
# It installs what the tests need, then runs formatting and lint checks, every unit
# and integration test of the workspace (real daemons, real shims, real git), and
# finally checks that no test left a daemon running. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

# Every process this run starts (Maven's JVMs and their forks, daemons, language
# servers, IDE doubles, browsers) inherits this marker; the leftover checks find
# whatever still carries it.
export LEAN_CTX_TEST_RUN=$$
checkout=$PWD

# Fails the run, naming them, if processes of this run are still alive: anything
# carrying the marker, and any JVM working in this checkout or naming it on its command
# line (surefire's forks, the contract server's jar, a Kotlin compile daemon), marker
# or not.
no_leftovers() {
  local leftover=0 env pid
  for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}; pid=${pid%/environ}
    [[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
    if tr '\0' '\n' 2>/dev/null <"$env" | grep -qx "LEAN_CTX_TEST_RUN=$$" ||
      { [[ $(cat "/proc/$pid/comm" 2>/dev/null) == java ]] &&
        { [[ $(readlink "/proc/$pid/cwd" 2>/dev/null)/ == "$checkout"/* ]] ||
          tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF "$checkout/"; }; }; then
      echo "still running after $1: pid $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-200))"
      leftover=1
    fi
  done
  [[ $leftover == 0 ]] || exit 1
  echo "none after $1"
}

step "toolchain"
cargo --version
rustc --version
# Debian packages the tests drive as real peers: git (worktrees), python3 (plistlib,
# a foreign-uid client) with venv (the pinned Python tools), util-linux's setpriv and
# unshare, uidmap's newuidmap (a user namespace for an unprivileged run), systemd's
# systemd-analyze and systemd-socket-activate, chromium (the browser the dashboard
# test drives) and clangd (the C and C++ server found with no configuration).
need=()
for pair in git:git python3:python3 setpriv:util-linux unshare:util-linux newuidmap:uidmap systemd-analyze:systemd systemd-socket-activate:systemd /usr/bin/chromium:chromium clangd:clangd; do
  command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
python3 -c 'import ensurepip' 2>/dev/null || need+=(python3-venv)
if ((${#need[@]})); then
  echo "installing ${need[*]}"
  if [[ $(id -u) == 0 ]]; then apt-get update -qq && apt-get install -y -qq "${need[@]}"
  else sudo apt-get update -qq && sudo apt-get install -y -qq "${need[@]}"; fi
fi
command -v go >/dev/null || { echo "missing go: install Go 1.26 or newer (gopls v0.23.0 is built with it)"; exit 1; }
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "missing $tool: install Node.js 20 with npm"; exit 1; }
done
for tool in java mvn; do
  command -v "$tool" >/dev/null || { echo "missing $tool: install Java 17 and Maven (apt-get install openjdk-17-jdk-headless maven)"; exit 1; }
done
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy

step "real peers: rust-analyzer, gopls, python-lsp-server, typescript-language-server, bash-language-server, clangd, the Python mcp SDK, the MCP Inspector, playwright-core"
# rust-analyzer: rustup's component where it exists, else built once from crates.io
# and cached outside the checkout (~8 minutes the first time on 2 cores).
LEAN_CTX_TEST_RUST_ANALYZER="$(bash tests/ensure-rust-analyzer.sh)"
export LEAN_CTX_TEST_RUST_ANALYZER
"$LEAN_CTX_TEST_RUST_ANALYZER" --version
# python-lsp-server and the mcp SDK: exactly tests/requirements.txt's pins, in a venv
# the test kit runs them from (never a pylsp that happens to be on PATH).
LEAN_CTX_TEST_VENV="$(bash tests/ensure-python.sh)"
export LEAN_CTX_TEST_VENV
"$LEAN_CTX_TEST_VENV/bin/pylsp" --version
# gopls v0.23.0 (the newest that builds with Go 1.26): built once with `go install`
# from the Go module proxy and cached outside the checkout like rust-analyzer.
LEAN_CTX_TEST_GOPLS="$(bash tests/ensure-gopls.sh)"
export LEAN_CTX_TEST_GOPLS
"$LEAN_CTX_TEST_GOPLS" version
# The upgrade tests' second build: this checkout with one comment added in
# shared/src/wire (another wire schema), built once per source hash into a cache
# outside the checkout; its dependencies are compiled once there and reused.
LEAN_CTX_TEST_OTHER_BUILD="$(bash tests/ensure-other-schema-build.sh)"
export LEAN_CTX_TEST_OTHER_BUILD
"$LEAN_CTX_TEST_OTHER_BUILD/lean-ctx" --version
(cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
# typescript-language-server with a pinned TypeScript 5.x (the second real server of
# the trust tests: a workspace's own node_modules/typescript must never run) and
# bash-language-server (found on PATH with no configuration).
(cd tests/lsp && npm ci --no-audit --no-fund --loglevel=error)
clangd --version | head -1
# playwright-core only (no browser download): it drives Debian's chromium.
(cd tests/dashboard && npm ci --no-audit --no-fund --loglevel=error)
chromium --version

step "plugin-kotlin: core JUnit tests and the standalone contract server, the adapter compiled against platform stubs and its descriptors checked (Maven)"
# The IDE-free core of the JetBrains plugin; the IntelliJ adapter (plugin-kotlin/ide)
# needs JetBrains' repositories to be built as a plugin, so here it is compiled against
# stubs of the platform API it uses and its descriptors are checked (plugin-kotlin/ide-check).
# No Kotlin compile daemon: it would outlive the run by hours.
mvn -B -q -Dkotlin.compiler.daemon=false -f plugin-kotlin/core/pom.xml verify
mvn -B -q -Dkotlin.compiler.daemon=false -f plugin-kotlin/ide-check/pom.xml verify
# Maven has returned: none of its JVMs (surefire forks, the contract server a test
# started) may outlive it.
no_leftovers Maven

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
# A leaked UPDATE_EXPECT would make expect-test rewrite a wrong snapshot and pass:
# here a snapshot that differs fails.
unset UPDATE_EXPECT
# Builds every binary first, so the shim's tests find the lean-ctxd they spawn.
# Every test binary runs even after one fails (cargo stops at the first otherwise,
# hiding how many others fail); the run fails after them all.
cargo test --workspace --locked --no-fail-fast
echo "dashboard screenshots for review: target/dashboard-screenshots/"

step "a foreign uid is refused, run unprivileged (the other uid from a user namespace)"
# As root the test proves the refusal with setpriv; a developer runs it as themself,
# where the other uid comes from `unshare --map-auto`. That path runs here as well, as
# a throwaway user with subordinate ids (useradd assigns them).
if [[ $(id -u) == 0 ]]; then
  id lean-ctx-test >/dev/null 2>&1 || useradd --create-home lean-ctx-test
  server_tests=$(cargo test -p lean-ctx-daemon --test server --locked --no-run --message-format=json \
    | python3 -c 'import json,sys; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable") and m["target"]["name"] == "server"][0])')
  as_test_user=(setpriv --reuid=lean-ctx-test --regid=lean-ctx-test --init-groups
    env -i HOME=/home/lean-ctx-test PATH=/usr/bin:/bin LEAN_CTX_TEST_RUN="$LEAN_CTX_TEST_RUN")
  # A checkout under a private directory (root's home) is out of that user's reach:
  # said, not hidden (the setpriv path above still ran).
  if (cd / && "${as_test_user[@]}" test -x "$server_tests"); then
    (cd / && "${as_test_user[@]}" "$server_tests" --exact a_peer_of_another_uid_is_refused)
  else
    echo "NOT RUN: $server_tests is not reachable by an unprivileged user (a checkout under a private directory)"
  fi
fi

step "no daemon, language server or JVM left behind"
no_leftovers "cargo test"

step "all tests passed"
