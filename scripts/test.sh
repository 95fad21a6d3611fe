#!/usr/bin/env bash
# The whole test suite: installs what the tests need (scripts/setup.sh), checks formatting and
# lints (rustfmt, clippy with warnings as errors: a lint is a failed test), builds, runs every
# Rust test with nextest, a 60 s run of each cargo-fuzz target (scripts/fuzz.sh), then the SDK
# suites against the real `switchboard` binary: tests/sdk (pytest, official Python `openai` SDK)
# and tests/ts (node's test runner, official TypeScript `openai` SDK, on the pinned Node that
# setup installs). CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
# CI builds a clean checkout once: incremental state would only take disk (about 2 GB).
if [[ -n "${CI:-}" ]]; then export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}; fi
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo build --workspace --all-targets
cargo nextest run --workspace --no-fail-fast
# A short bounded run of every fuzz target from its seed corpus (docs/fuzzing.md).
./scripts/fuzz.sh
export SWITCHBOARD_BIN="$PWD/target/debug/switchboard"
.venv/bin/python -m pytest -q tests/sdk
# The pinned Node (scripts/install-node.sh prints `node <version> <binary>`; it is idempotent).
NODE_BIN="$(./scripts/install-node.sh | awk '{print $3}')"
(cd tests/ts && "$NODE_BIN" --test --test-reporter=spec *.test.ts)
