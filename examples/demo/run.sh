#!/usr/bin/env bash
# The Blindfold demo: `make demo` (or examples/demo/run.sh after `cargo build --release`).
#
# Replays the TrustFork-style story in examples/demo/story.json through Blindfold's engine twice —
# with every mechanism off, and with `all` (anonymize + preverify + grants + enforce) — prints
# what happened to each step side by side and the scores, and writes the authority picture of
# both runs to target/demo/authority-{off,all}.svg.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${BLINDFOLD_BIN:-target/release/blindfold}"
OUT=target/demo
mkdir -p "$OUT"

echo "== Blindfold demo: a coordinator, four sub-agents, one risky planner wearing the frontier model's label =="
echo "   (story: examples/demo/story.py; the coordinator is scripted and adopts what the label tells it to)"
"$BIN" replay examples/demo/story.json --modes off,all --steps --trace-out "$OUT/trace.jsonl"

for mode in off all; do
  "$BIN" trace render "$OUT/trace.jsonl" --trajectory demo-story --mode "$mode" --format svg --output "$OUT/authority-$mode.svg"
done
echo
echo "Authority pictures (scope / verify / adopt / execute, refutations, blocked actions in red):"
echo "  $OUT/authority-off.svg   — Blindfold off: the refuted proposal executes"
echo "  $OUT/authority-all.svg   — Blindfold on"
echo "The whole corpus: $BIN replay examples/scenarios"
