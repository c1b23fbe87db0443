#!/usr/bin/env bash
# Fuzzes every target (or those named) for FUZZ_SECS seconds each (default 60) with libFuzzer,
# then prints runs per target. A crash stops with the input under fuzz/artifacts/<target>/:
# copy it to fuzz/regressions/<target>/, fix the decoder, and `make test` replays it forever.
set -euo pipefail
cd "$(dirname "$0")"
SECS="${FUZZ_SECS:-60}"
ROOT="${CARGO_FUZZ_ROOT:-$HOME/.cache/blindfold/cargo}"
export PATH="$ROOT/bin:$PATH" RUSTC_BOOTSTRAP=1
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls fuzz_targets | sed 's/\.rs$//')
fi
cargo fuzz build -O >/dev/null
mkdir -p logs
total=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "regressions/$t"
  log="logs/$t.log"
  if ! cargo fuzz run -O "$t" "corpus/$t" "regressions/$t" -- \
      -max_total_time="$SECS" -rss_limit_mb=2048 -max_len=65536 -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
    echo "FAIL $t: see fuzz/$log and fuzz/artifacts/$t/" >&2
    tail -30 "$log" >&2
    exit 1
  fi
  runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  total=$((total + runs))
  printf '%-16s %10s inputs in %ss, no crash\n' "$t" "$runs" "$SECS"
done
printf '%-16s %10s inputs\n' total "$total"
