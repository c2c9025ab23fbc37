#!/usr/bin/env bash
# Audit exports benchmark: the same generated traffic as the plain apiserver log, as ECS
# documents (Elastic/Filebeat, Event under kubernetes.audit) and as CloudWatch Logs export lines
# (`<time> <JSON>`), read by kexp's audit reader in one run, rounds interleaved.
#
#   bench/audit/run-wrappers.sh [SIZE_MB]     (default 1024 per file; REPS=3)
#
# Writes bench/audit/WRAPPERS.md (override with OUT=…); work files in $BENCH_DIR
# (default /tmp/kexp-audit-bench). Verdict: each wrapper's MB/s within 20 % of the plain log's
# (median of the per-round ratios).
set -euo pipefail
SIZE_MB="${1:-1024}"
REPS="${REPS:-3}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${BENCH_DIR:-/tmp/kexp-audit-bench}"
OUT="${OUT:-$ROOT/bench/audit/WRAPPERS.md}"
mkdir -p "$WORK"
cd "$ROOT"
FORMS="plain ecs cloudwatch"
for w in $FORMS; do
  f="$WORK/audit-${SIZE_MB}mb-$w.log"
  if [ ! -s "$f" ]; then npx tsx bench/audit/generate.ts --mb "$SIZE_MB" --out "$f" --seed 42 --wrap "$w"; fi
done
npx esbuild bench/audit/read.ts --bundle --platform=node --format=cjs --log-level=warning --outfile="$WORK/read.cjs"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A MBPS SECS
RATIOS_ECS="" RATIOS_CW=""
for round in $(seq "$REPS"); do
  for w in $FORMS; do
    f="$WORK/audit-${SIZE_MB}mb-$w.log"
    cat "$f" >/dev/null # page cache
    j=$(node "$WORK/read.cjs" "$f")
    MBPS[$w.$round]=$(echo "$j" | jq .MBps)
    SECS[$w.$round]=$(echo "$j" | jq .seconds)
    echo "round $round $w: $j" >&2
    if [ "$round" = 1 ]; then eval "LINE_$w='$j'"; fi
  done
  RATIOS_ECS="$RATIOS_ECS $(awk -v a="${MBPS[ecs.$round]}" -v b="${MBPS[plain.$round]}" 'BEGIN { printf "%.3f", a / b }')"
  RATIOS_CW="$RATIOS_CW $(awk -v a="${MBPS[cloudwatch.$round]}" -v b="${MBPS[plain.$round]}" 'BEGIN { printf "%.3f", a / b }')"
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
best() { local w=$1 b=0; for r in $(seq "$REPS"); do b=$(awk -v a="${MBPS[$w.$r]}" -v c="$b" 'BEGIN { print (a > c) ? a : c }'); done; echo "$b"; }
M_ECS=$(echo "$RATIOS_ECS" | median)
M_CW=$(echo "$RATIOS_CW" | median)
verdict() { awk -v r="$1" 'BEGIN { print (r >= 0.8) ? "within 20 %" : "MORE than 20 % slower" }'; }
{
  echo "# Audit exports vs the plain log ($(date -u +%Y-%m-%d), ${SIZE_MB} MB each, $REPS rounds)"
  echo
  echo "Command: \`bench/audit/run-wrappers.sh $SIZE_MB\` on $(nproc) CPUs, Node $(node --version), load before: $LOAD_BEFORE."
  echo
  echo "| form | best MB/s | seconds per round | events (round 1) | median MB/s ratio to plain |"
  echo "|---|---|---|---|---|"
  for w in $FORMS; do
    secs=""; for r in $(seq "$REPS"); do secs="$secs ${SECS[$w.$r]}"; done
    line_var="LINE_$w"
    ev=$(echo "${!line_var}" | jq -c .events)
    ratio=1; [ "$w" = ecs ] && ratio=$M_ECS; [ "$w" = cloudwatch ] && ratio=$M_CW
    echo "| $w | $(best "$w") |$secs | \`$ev\` | $ratio |"
  done
  echo
  echo "ECS: $(verdict "$M_ECS"); CloudWatch export lines: $(verdict "$M_CW") (median of per-round ratios)."
} >"$OUT"
cat "$OUT"
