#!/usr/bin/env bash
# Installs everything the test suite needs that cargo does not: a Python venv with the pinned
# official SDKs and pytest, the pinned native harness binaries (scripts/install-harnesses.sh), and
# a pinned Node with the TypeScript SDK suite's packages (scripts/install-node.sh), and bubblewrap
# (`bwrap`, Debian package `bubblewrap`), which isolates managed workspaces, the PostgreSQL
# server the PostgreSQL store's tests run a throwaway cluster of, and Chromium (Debian package
# `chromium`), the browser the Session inspector's test drives headless.
# Idempotent; safe to run on a fresh machine and in CI.
set -euo pipefail
cd "$(dirname "$0")/.."

OPENAI_VERSION=3.57.0
ANTHROPIC_VERSION=2.14.0
PYTEST_VERSION=9.2.0

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
want="openai==$OPENAI_VERSION anthropic==$ANTHROPIC_VERSION pytest==$PYTEST_VERSION"
if ! .venv/bin/python - <<PY 2>/dev/null
import importlib.metadata as m
for spec in "$want".split():
    name, ver = spec.split("==")
    assert m.version(name) == ver, spec
PY
then
  .venv/bin/pip install --quiet --disable-pip-version-check $want
fi
echo "setup: python venv ready (.venv: $want)"

# Managed workspaces run in a bubblewrap sandbox; without `bwrap` the Runtime does not advertise
# them (and their tests fail in CI).
if ! command -v bwrap >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get install -y --no-install-recommends bubblewrap >/dev/null
  else
    echo "setup: install bubblewrap (bwrap) with your package manager" >&2
  fi
fi
command -v bwrap >/dev/null 2>&1 && echo "setup: bubblewrap ready ($(bwrap --version))"

# The PostgreSQL store's tests start a throwaway cluster (`initdb` + `postgres`, Debian's
# `postgresql` server package: the major version is the Debian release's, 15 on bookworm).
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(pg_bin)" ] && ! command -v initdb >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get install -y --no-install-recommends postgresql >/dev/null
  else
    echo "setup: install the PostgreSQL server (initdb, postgres) with your package manager" >&2
  fi
fi
[ -n "$(pg_bin)" ] && echo "setup: postgresql ready ($("$(pg_bin)/postgres" --version))"

# The inspector test (tests/ts/inspector.test.ts) drives /usr/bin/chromium through playwright-core;
# playwright's own browser download cannot be used here, Debian's build can.
if [ ! -x /usr/bin/chromium ]; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    # A fresh machine's package lists may be empty or stale: update once and retry.
    $sudo_cmd apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 ||
      { $sudo_cmd apt-get update >/dev/null && $sudo_cmd apt-get install -y --no-install-recommends chromium >/dev/null; }
  else
    echo "setup: install Chromium (/usr/bin/chromium) with your package manager" >&2
  fi
fi
[ -x /usr/bin/chromium ] && echo "setup: chromium ready ($(/usr/bin/chromium --version 2>/dev/null))"

./scripts/install-harnesses.sh
./scripts/install-node.sh
