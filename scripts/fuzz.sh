#!/usr/bin/env bash
# A short bounded run of every cargo-fuzz target (docs/fuzzing.md): each target starts from its
# committed seed corpus (fuzz/corpus/<target>) and runs FUZZ_SECONDS (default 60). A crash fails
# the script and leaves its reproducer in fuzz/artifacts/<target>/.
#
# libFuzzer needs the nightly toolchain (sanitizer flags), installed with rustup when absent; if
# that fails the run is skipped loudly outside CI and fails in CI (CI=true). cargo-fuzz is
# installed when absent.
#
#   scripts/fuzz.sh                  # every target, 60 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh frames input_events
#   FUZZ_SECONDS=1800 FUZZ_RUNS=10000000 scripts/fuzz.sh   # the long run: whichever limit comes first
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(body_gate agent_body session_body input_events frames)
SECONDS_EACH=${FUZZ_SECONDS:-60}
RUNS_EACH=${FUZZ_RUNS:--1}
CARGO_FUZZ_VERSION=0.13.2
if [ "$#" -gt 0 ]; then TARGETS=("$@"); fi

if ! cargo +nightly --version >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1; then
  # The project installs what its tests need: the nightly toolchain, minimal profile.
  rustup toolchain install nightly --profile minimal || true
fi
if ! cargo +nightly --version >/dev/null 2>&1; then
  if [ "${CI:-}" = "true" ]; then
    echo "fuzz: FAILED: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
    exit 1
  fi
  echo "fuzz: SKIPPED: the nightly toolchain is missing (rustup toolchain install nightly); CI fails here" >&2
  exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

cargo +nightly fuzz build
for target in "${TARGETS[@]}"; do
  # libFuzzer adds new inputs to its first corpus directory: a scratch one, so the committed
  # seeds (read from the second) change only when someone runs fuzz/seed.py.
  scratch=$(mktemp -d)
  mkdir -p "fuzz/artifacts/$target"
  echo "fuzz: $target for ${SECONDS_EACH}s"
  if ! cargo +nightly fuzz run "$target" "$scratch" "fuzz/corpus/$target" -- \
      -max_total_time="$SECONDS_EACH" -runs="$RUNS_EACH" -print_final_stats=1 \
      -artifact_prefix="fuzz/artifacts/$target/" 2>"$scratch.log"; then
    tail -n 60 "$scratch.log" >&2
    echo "fuzz: $target FAILED; reproducer in fuzz/artifacts/$target/" >&2
    rm -rf "$scratch" "$scratch.log"
    exit 1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^Done' "$scratch.log" || true
  rm -rf "$scratch" "$scratch.log"
done
echo "fuzz: every target ran ${SECONDS_EACH}s without a crash"
