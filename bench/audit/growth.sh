#!/usr/bin/env bash
# Growth curve of `kexp audit FILE -o json` (read, replay, report): for each file, in the order
# given (smallest first), RUNS runs (default 2) of this worktree's build; prints one markdown row
# per file with the best wall time, its CPU time (user+sys) and peak RSS (/usr/bin/time), seconds
# per GB, and the time and size relative to the first file, so superlinear growth shows at a
# glance (time ratio well above the size ratio). Build first (`npm run build`).
#
#   bash bench/audit/growth.sh small.log medium.log large.log
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
RUNS="${RUNS:-2}"
WORK="${WORK:-/tmp/kexp-audit-growth}"
mkdir -p "$WORK"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time" >&2; exit 7; }
echo "| file | MB | wall s (best of $RUNS) | CPU s | peak RSS MB | s per GB | size × first | time × first |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
first_mb=""; first_w=""
for f in "$@"; do
  mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", b / 1e6 }')
  best=""; cpu=""; rss=""
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -q -f '%e %U %S %M' -o "$WORK/t" node "$ROOT/bin/run.js" audit "$f" -o json >"$WORK/report.json" 2>"$WORK/stderr" || true
    read -r w u s m <"$WORK/t"
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$w; cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }'); rss=$((m / 1024)); fi
  done
  first_mb=${first_mb:-$mb}; first_w=${first_w:-$best}
  echo "| $(basename "$f") | $mb | $best | $cpu | $rss | $(awk -v w="$best" -v m="$mb" 'BEGIN { printf "%.1f", w / m * 1000 }') | $(awk -v a="$mb" -v b="$first_mb" 'BEGIN { printf "%.1f", a / b }') | $(awk -v a="$best" -v b="$first_w" 'BEGIN { printf "%.1f", a / b }') |"
done
