#!/usr/bin/env bash
# Installs the pinned native harnesses into .harnesses/ under the repository root.
#
# Idempotent: a harness whose pinned version is already installed (and whose native binary is
# present) is left alone. Prints one line per harness: `<harness> <version> <native binary path>`.
#
# The pins here must match the ones in the adapter crates (switchboard_codex::binary and
# switchboard_claude::binary); `switchboard harness install` reuses the same values.
#
# Never pass --omit=optional / --no-optional: each npm package ships its platform binary as an
# optional dependency, and without it only a Node wrapper that cannot run is installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${SWITCHBOARD_HARNESS_DIR:-$ROOT/.harnesses}"

# --- pins -------------------------------------------------------------------------------------
CODEX_PACKAGE="@openai/codex"
CODEX_VERSION="0.171.0"
CODEX_NATIVE="node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"

CLAUDE_PACKAGE="@anthropic-ai/claude-code"
CLAUDE_VERSION="2.1.332"
CLAUDE_NATIVE="node_modules/@anthropic-ai/claude-code-linux-x64/claude"
# ----------------------------------------------------------------------------------------------

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
install_one claude-code "$CLAUDE_PACKAGE" "$CLAUDE_VERSION" "$CLAUDE_NATIVE"
