#!/usr/bin/env bash
# Prints a directory holding `lean-ctx` and `lean-ctxd` of a second build of this
# checkout whose wire schema differs from the checkout's own (the upgrade tests run
# both builds side by side, as a user does after `cargo install` of a newer release).
#
# How: the workspace's sources (never `target/`) are copied into a cache outside the
# checkout, one comment line is appended to shared/src/wire/frame.rs (so `SCHEMA`,
# the BLAKE3 of shared/src/wire, differs and nothing else does), and the copy is built
# with `cargo build --bins`. The binaries are kept per hash of their sources, so
# a second run of the tests on an unchanged tree reuses them; the cargo target dir is
# one for all hashes, so a changed tree recompiles only the workspace's own crates
# (the dependencies are compiled once, several minutes on 2 cores).
#
# Override the cache with LEAN_CTX_TOOL_CACHE (as the other ensure scripts do).
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
cache="${LEAN_CTX_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lean-ctx-tools}/other-schema-build"
ws="$cache/workspace"
mkdir -p "$cache"

# One build at a time: two test binaries may ask at once.
exec 9>"$cache/.lock"
flock 9

# What is copied: the workspace's manifests and crates (cargo reads every member's
# manifest), never a target dir. What the binaries depend on, and so what the cache is
# keyed by: the manifests, the lock file, the crates' sources and build scripts, and
# the files they `include_str!` (units, plist; the dashboard's assets live in src).
# Tests, benches and the test kit are left out of the key: editing a test does not
# rebuild the second build.
copied=(Cargo.toml Cargo.lock rust-toolchain.toml shared syntax daemon client tests systemd launchd)
keyed=(Cargo.toml Cargo.lock rust-toolchain.toml shared/Cargo.toml shared/build.rs shared/schema.rs
  shared/src syntax/Cargo.toml syntax/build.rs syntax/src daemon/Cargo.toml daemon/build.rs daemon/src
  client/Cargo.toml client/src systemd launchd)
hash=$(cd "$checkout" && for s in "${keyed[@]}"; do [[ -e $s ]] && find "$s" -type f -print0; done |
  sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
bin="$cache/bin-$hash"
if [[ -x $bin/lean-ctx && -x $bin/lean-ctxd ]]; then echo "$bin"; exit 0; fi

echo "building a second build of $checkout (other wire schema) into $cache" >&2
rm -rf "$ws" "$cache"/bin-*
mkdir -p "$ws"
(cd "$checkout" && for s in "${copied[@]}"; do [[ -e $s ]] && echo "$s"; done |
  tar -cf - --exclude=node_modules --exclude=target --exclude=.venv -T -) | tar -xf - -C "$ws"
printf '\n// A second build for the upgrade tests: this comment alone changes SCHEMA.\n' \
  >>"$ws/shared/src/wire/frame.rs"
CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$cache/target" \
  cargo build --quiet --bins -p lean-ctx-client -p lean-ctx-daemon --manifest-path "$ws/Cargo.toml" >&2
mkdir -p "$bin.tmp"
cp "$cache/target/debug/lean-ctx" "$cache/target/debug/lean-ctxd" "$bin.tmp/"
mv "$bin.tmp" "$bin"
echo "$bin"
