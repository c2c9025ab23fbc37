#!/usr/bin/env bash
# Replay benchmark (issue: ≥ 200,000 events/s and < 300 MB on 1,000,000 events, one
# ReplicaSet, 500 pods). Generates the recording once, then measures in the same run:
#   kexp replay (full pipeline: source → model → report), peak RSS;
#   its source side alone (read, parse, normalise, merge, causal order, shape checks: no engine);
#   the JSON.parse floor (read + split + JSON.parse only);
#   jq extracting the event types (a naive per-line tool);
# and prints the ratios. Usage: bash bench/replay/run.sh [events] [pods]
set -euo pipefail
cd "$(dirname "$0")/../.."
EVENTS="${1:-1000000}"
PODS="${2:-500}"
FILE="${KEXP_BENCH_DIR:-/tmp}/kexp-bench-${EVENTS}-${PODS}.kexp.jsonl"
[ -f "$FILE" ] || npx tsx bench/replay/generate.ts "$FILE" "$EVENTS" "$PODS"
SIZE_MB=$(( $(stat -c %s "$FILE") / 1048576 ))
echo "file: $FILE ($SIZE_MB MB)"
kexp=$(node --import tsx bench/replay/run-replay.ts "$FILE")
echo "kexp replay:  $kexp"
src=$(node --import tsx bench/replay/source-side.ts "$FILE")
echo "source side:  $src"
floor=$(node --import tsx bench/replay/parse-floor.ts "$FILE")
echo "parse floor:  $floor"
if command -v jq >/dev/null; then
  t0=$(date +%s.%N); jq -c '.event.type' "$FILE" > /dev/null; t1=$(date +%s.%N)
  jqs=$(echo "$t1 - $t0" | bc -l)
  echo "jq:           {\"seconds\":$(printf %.2f "$jqs"),\"linesPerSecond\":$(printf %.0f "$(echo "$EVENTS / $jqs" | bc -l)")}"
fi
