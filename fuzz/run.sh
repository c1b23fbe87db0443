#!/usr/bin/env bash
# Fuzzes every target (or those named) for FUZZ_SECS seconds each (default 60) with libFuzzer on
# the stable toolchain (RUSTC_BOOTSTRAP=1), then prints a table: inputs run and crashes per
# target. Every target runs even after a crash; the script fails if any crashed. A crash leaves
# its input under fuzz/artifacts/<target>/: copy it to fuzz/regressions/<target>/, fix the
# decoder, and `make test` replays it forever (fuzz_corpus).
#
# FUZZ_SANITIZER: none (default: the fuzzed crates forbid unsafe code, and an uninstrumented build
# is several times faster to build and run) or address. FUZZ_TARGET_DIR: where the build goes
# (default fuzz/target). New coverage-increasing inputs go to fuzz/target/corpus/<target>/, never
# into the committed seed corpus.
set -euo pipefail
cd "$(dirname "$0")"
SECS="${FUZZ_SECS:-60}"
SANITIZER="${FUZZ_SANITIZER:-none}"
ROOT="${CARGO_FUZZ_ROOT:-$HOME/.cache/blindfold/cargo}"
export PATH="$ROOT/bin:$PATH" RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$PWD/target}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls fuzz_targets | sed 's/\.rs$//')
fi
start=$(date +%s)
cargo fuzz build -O -s "$SANITIZER" >/dev/null
echo "fuzz build: $(( $(date +%s) - start )) s (sanitizer: $SANITIZER)"
mkdir -p logs
total=0
crashed=()
printf '%-16s %12s %8s %s\n' target inputs crashes "seconds"
for t in "${targets[@]}"; do
  work="$CARGO_TARGET_DIR/corpus/$t"
  mkdir -p "$work" "corpus/$t" "regressions/$t" "artifacts/$t"
  log="logs/$t.log"
  status=0
  cargo fuzz run -O -s "$SANITIZER" "$t" "$work" "corpus/$t" "regressions/$t" -- \
      -max_total_time="$SECS" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
  [ -n "$runs" ] || runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  crashes=0
  if [ "$status" -ne 0 ]; then
    crashes=1
    crashed+=("$t")
  fi
  total=$((total + runs))
  printf '%-16s %12s %8s %s\n' "$t" "$runs" "$crashes" "$SECS"
done
printf '%-16s %12s %8s\n' total "$total" "${#crashed[@]}"
if [ ${#crashed[@]} -gt 0 ]; then
  for t in "${crashed[@]}"; do
    echo "CRASH in $t: see fuzz/logs/$t.log and fuzz/artifacts/$t/" >&2
    grep -m1 -A12 -E 'panicked|ERROR: libFuzzer|deadly signal' "logs/$t.log" >&2 || tail -20 "logs/$t.log" >&2
  done
  exit 1
fi
