#!/usr/bin/env bash
# Installs the pinned native harnesses into .harnesses/ under the repository root.
#
# Idempotent: a harness whose pinned version is already installed (and whose native binary is
# present) is left alone. Prints one line per harness: `<harness> <version> <native binary path>`.
#
# The pins come from crates/pins/pins.env, the one file the Rust crates read too
# (`switchboard harness install`, the adapters, the declarations). `--print-pins` prints the
# values this script would install, one harness a line, and installs nothing (a test compares
# them with the Rust side).
#
# Never pass --omit=optional / --no-optional: each npm package ships its platform binary as an
# optional dependency, and without it only a Node wrapper that cannot run is installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${SWITCHBOARD_HARNESS_DIR:-$ROOT/.harnesses}"

# shellcheck source=../crates/pins/pins.env
source "$ROOT/crates/pins/pins.env"

if [[ "${1:-}" == "--print-pins" ]]; then
  echo "codex $CODEX_PACKAGE $CODEX_VERSION $CODEX_NATIVE"
  echo "claude-code $CLAUDE_CODE_PACKAGE $CLAUDE_CODE_VERSION $CLAUDE_CODE_NATIVE"
  echo "codex-acp $CODEX_ACP_PACKAGE $CODEX_ACP_VERSION $CODEX_ACP_NATIVE"
  echo "claude-agent-acp $CLAUDE_AGENT_ACP_PACKAGE $CLAUDE_AGENT_ACP_VERSION $CLAUDE_AGENT_ACP_NATIVE"
  exit 0
fi

command -v npm >/dev/null || { echo "install-harnesses: npm is required" >&2; exit 1; }

# install_one NAME PACKAGE VERSION NATIVE_RELATIVE_PATH
install_one() {
  local name="$1" package="$2" version="$3" native="$4"
  local dir="$DEST/$name"
  local installed=""
  if [[ -f "$dir/node_modules/$package/package.json" ]]; then
    installed="$(node -p "require('$dir/node_modules/$package/package.json').version" 2>/dev/null || true)"
  fi
  if [[ "$installed" != "$version" || ! -x "$dir/$native" ]]; then
    mkdir -p "$dir"
    # A private package.json keeps this folder an npm project of its own (no hoisting into ROOT).
    if [[ ! -f "$dir/package.json" ]]; then
      printf '{\n  "name": "switchboard-harness-%s",\n  "private": true\n}\n' "$name" >"$dir/package.json"
    fi
    echo "install-harnesses: installing $package@$version into $dir" >&2
    (cd "$dir" && npm install --no-audit --no-fund --save-exact "$package@$version" >&2)
  fi
  if [[ ! -x "$dir/$native" ]]; then
    echo "install-harnesses: $package@$version installed but the native binary is missing: $dir/$native" >&2
    exit 1
  fi
  echo "$name $version $dir/$native"
}

# --- Codex (used by crates/codex) -------------------------------------------------------------
install_one codex "$CODEX_PACKAGE" "$CODEX_VERSION" "$CODEX_NATIVE"

# --- Claude Code (used by crates/claude) ------------------------------------------------------
# The native binary is exec'd directly; the postinstall hard link (.bin/claude) is not needed.
install_one claude-code "$CLAUDE_CODE_PACKAGE" "$CLAUDE_CODE_VERSION" "$CLAUDE_CODE_NATIVE"

# --- The ACP stand-ins (used by crates/acp's tests in place of MiniMax Code) -----------------
# MiniMax Code itself (`@minimax-ai/code`) is not in the registry this project reaches (404).
install_one codex-acp "$CODEX_ACP_PACKAGE" "$CODEX_ACP_VERSION" "$CODEX_ACP_NATIVE"
# A Node program (node >= 22: the Node of scripts/install-node.sh runs it); its entry is a script.
install_one claude-agent-acp "$CLAUDE_AGENT_ACP_PACKAGE" "$CLAUDE_AGENT_ACP_VERSION" "$CLAUDE_AGENT_ACP_NATIVE"
