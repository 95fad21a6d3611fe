#!/usr/bin/env bash
# The whole test suite: installs what the tests need (scripts/setup.sh), builds, runs every Rust
# test with nextest, then the SDK suite (tests/sdk, pytest, official `openai` SDK) against the
# real `switchboard` binary. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
cargo build --workspace --all-targets
cargo nextest run --workspace --no-fail-fast
export SWITCHBOARD_BIN="$PWD/target/debug/switchboard"
.venv/bin/python -m pytest -q tests/sdk
