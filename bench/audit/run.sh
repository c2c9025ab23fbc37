#!/usr/bin/env bash
# Audit-reader benchmark: kexp's reader vs jq vs grep on the same generated file, in one run.
#
#   bench/audit/run.sh [SIZE_MB]        (default 1024; REPS=3 runs each, best wall time kept)
#
# Writes bench/audit/RESULTS.md (override with OUT=…). Work files go to $BENCH_DIR
# (default /tmp/kexp-audit-bench): the generated log, its .gz, and read.ts bundled with esbuild
# so the measurement runs plain JavaScript (no tsx transpiling).
set -euo pipefail

SIZE_MB="${1:-1024}"
REPS="${REPS:-3}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${BENCH_DIR:-/tmp/kexp-audit-bench}"
OUT="${OUT:-$ROOT/bench/audit/RESULTS.md}"
mkdir -p "$WORK"
LOG="$WORK/audit-${SIZE_MB}mb.log"
GZ="$LOG.gz"

if ! command -v jq >/dev/null; then
  echo "jq not found; installing" >&2
  apt-get update >&2 && apt-get install -y jq >&2
fi
TIME=""
if [ -x /usr/bin/time ]; then TIME=/usr/bin/time; fi

cd "$ROOT"
if [ ! -s "$LOG" ]; then
  echo "generating $LOG" >&2
  npx tsx bench/audit/generate.ts --mb "$SIZE_MB" --out "$LOG" --seed 42
fi
if [ ! -s "$GZ" ]; then
  echo "compressing $GZ (gzip -6)" >&2
  gzip -6 -c "$LOG" >"$GZ"
fi
npx esbuild bench/audit/read.ts --bundle --platform=node --format=cjs --log-level=warning --outfile="$WORK/read.cjs"

BYTES=$(stat -c %s "$LOG")
GZBYTES=$(stat -c %s "$GZ")
MB=$(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1e6 }')
cat "$LOG" "$GZ" >/dev/null # page cache
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# One command per tool. All tools run once per round, REPS rounds, so every round sees about
# the same machine load: ratios are taken per round and their median is the verdict; the
# first table shows each tool's best round.
run_tool() {
  case "$1" in
    kexp) node "$WORK/read.cjs" "$LOG" ;;
    kexp-gz) node "$WORK/read.cjs" "$GZ" ;;
    jq) jq -c 'select(.objectRef.resource=="pods")' "$LOG" | wc -l ;;
    # `| cat`: GNU grep stops at the first match when it writes to /dev/null
    grep) grep -c pods "$LOG" | cat ;;
    zgrep) gzip -dc "$GZ" | grep -c pods ;;
  esac
}
export -f run_tool
export WORK LOG GZ
TOOLS="kexp kexp-gz jq grep zgrep"
declare -A WALLS CPUS BEST_WALL BEST_CPU OUTS PEAK_RSS
for round in $(seq "$REPS"); do
  for t in $TOOLS; do
    tf="$WORK/time.$$"
    if [ -n "$TIME" ]; then
      "$TIME" -f '%e %U %S %M' -o "$tf" bash -c "run_tool $t" >"$WORK/out.$$"
      read -r wall user sys rss <"$tf"
    else
      t0=$(date +%s.%N)
      bash -c "run_tool $t" >"$WORK/out.$$"
      t1=$(date +%s.%N)
      wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
      user=0 sys=0 rss=0
      # no /usr/bin/time: read.ts reports process.resourceUsage().maxRSS itself
      if [ "${t#kexp}" != "$t" ]; then rss=$(jq '.maxRssMB * 1024 | floor' "$WORK/out.$$"); fi
    fi
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    WALLS[$t]="${WALLS[$t]:-} $wall"
    CPUS[$t]="${CPUS[$t]:-} $cpu"
    if [ -z "${PEAK_RSS[$t]:-}" ] || [ "$rss" -gt "${PEAK_RSS[$t]}" ]; then PEAK_RSS[$t]=$rss; fi
    if [ -z "${BEST_WALL[$t]:-}" ] || awk -v a="$wall" -v b="${BEST_WALL[$t]}" 'BEGIN { exit !(a < b) }'; then
      BEST_WALL[$t]=$wall
      BEST_CPU[$t]=$cpu
      OUTS[$t]="$(cat "$WORK/out.$$")"
    fi
    rm -f "$tf" "$WORK/out.$$"
    echo "round $round $t: wall ${wall}s cpu ${cpu}s rss ${rss}KB" >&2
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# median_ratio "times of A" "times of B" → median over rounds of B/A (how many times faster A is)
median_ratio() {
  paste -d' ' <(echo "$1" | tr ' ' '\n' | sed '/^$/d') <(echo "$2" | tr ' ' '\n' | sed '/^$/d') |
    awk '{ a = ($1 > 0) ? $1 : 0.001; print $2 / a }' | sort -g |
    awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s <= 0) s = 0.001; printf "%.0f", b / 1e6 / s }'; }
pass() { awk -v v="$1" -v t="$2" 'BEGIN { print (v >= t) ? "met" : "NOT met" }'; }

K_WALL=${BEST_WALL[kexp]} K_CPU=${BEST_CPU[kexp]} K_RSS=${PEAK_RSS[kexp]} K_OUT=${OUTS[kexp]}
Z_WALL=${BEST_WALL[kexp-gz]} Z_CPU=${BEST_CPU[kexp-gz]} Z_RSS=${PEAK_RSS[kexp-gz]}
J_WALL=${BEST_WALL[jq]} J_CPU=${BEST_CPU[jq]} J_OUT=${OUTS[jq]}
G_WALL=${BEST_WALL[grep]} G_CPU=${BEST_CPU[grep]} G_OUT=${OUTS[grep]}
ZG_WALL=${BEST_WALL[zgrep]} ZG_CPU=${BEST_CPU[zgrep]}
K=$(mbps "$BYTES" "$K_WALL")
KC=$(mbps "$BYTES" "$K_CPU")
Z=$(mbps "$BYTES" "$Z_WALL")
ZC=$(mbps "$BYTES" "$Z_CPU")
J=$(mbps "$BYTES" "$J_WALL")
JC=$(mbps "$BYTES" "$J_CPU")
G=$(mbps "$BYTES" "$G_WALL")
GC=$(mbps "$BYTES" "$G_CPU")
ZG=$(mbps "$BYTES" "$ZG_WALL")
R_JQ=$(median_ratio "${WALLS[kexp]}" "${WALLS[jq]}")
R_JQC=$(median_ratio "${CPUS[kexp]}" "${CPUS[jq]}")
R_GREP=$(median_ratio "${WALLS[kexp]}" "${WALLS[grep]}")
R_GREPC=$(median_ratio "${CPUS[kexp]}" "${CPUS[grep]}")
R_GZ=$(median_ratio "${WALLS[kexp-gz]}" "${WALLS[kexp]}")
R_GZC=$(median_ratio "${CPUS[kexp-gz]}" "${CPUS[kexp]}")
RSS_MB=$(awk -v k="$K_RSS" 'BEGIN { printf "%.0f", k / 1024 }')
ZRSS_MB=$(awk -v k="$Z_RSS" 'BEGIN { printf "%.0f", k / 1024 }')
RSS_OK=$(awk -v a="$RSS_MB" -v b="$ZRSS_MB" 'BEGIN { print (a < 256 && b < 256) ? "met" : "NOT met" }')
EVENTS=$(echo "$K_OUT" | jq -c '.events')
RSW=$(echo "$K_OUT" | jq '.rsControllerWrites')
LINES=$(echo "$K_OUT" | jq '.lines')
SKIPPED=$(echo "$K_OUT" | jq '.skippedByPrefilter')
CPU_MODEL=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')

cat >"$OUT" <<EOF
# Audit reader benchmark

Generated by \`bench/audit/run.sh $SIZE_MB\` on $(date -u +%Y-%m-%dT%H:%MZ). Do not edit by hand; re-run the script.

- Input: \`bench/audit/generate.ts --mb $SIZE_MB --seed 42\` → $MB MB, $LINES lines (~5 % pods/replicasets,
  the rest leases, configmaps, nodes, Events, lists); gzip -6 copy $(awk -v b="$GZBYTES" 'BEGIN { printf "%.1f", b / 1e6 }') MB.
- kexp: \`node read.cjs FILE\` = bench/audit/read.ts bundled by esbuild: \`openAuditSource\` → count events
  (whole process, Node $(node --version)). It found $EVENTS, $RSW RS-controller writes; $SKIPPED of $LINES lines skipped by the byte prefilter.
- jq $(jq --version 2>/dev/null | sed 's/^jq-//'): \`jq -c 'select(.objectRef.resource=="pods")' FILE | wc -l\` → $J_OUT lines.
- grep: \`grep -c pods FILE\` → $G_OUT.
- Machine: $(nproc) CPUs ($CPU_MODEL), load average $LOAD_BEFORE before / $LOAD_AFTER after
  (other jobs were running). $REPS rounds, each running every tool once: the first table shows each
  tool's best round (CPU = user+sys of that round); the target ratios are medians of per-round ratios.
- Files were in the page cache; MB = 10^6 bytes of uncompressed input.

| reader | wall s | MB/s (wall) | CPU s | MB/s (CPU) | peak RSS |
|---|---:|---:|---:|---:|---:|
| kexp openAuditSource (plain) | $K_WALL | **$K** | $K_CPU | $KC | $RSS_MB MB |
| kexp openAuditSource (.gz) | $Z_WALL | **$Z** | $Z_CPU | $ZC | $ZRSS_MB MB |
| jq select pods | $J_WALL | $J | $J_CPU | $JC | |
| grep -c pods | $G_WALL | $G | $G_CPU | $GC | |
| gzip -dc \| grep -c pods | $ZG_WALL | $ZG | $ZG_CPU | | |

| target (median of $REPS rounds) | wall | CPU | verdict (wall) | verdict (CPU) |
|---|---:|---:|---|---|
| ≥ 10× jq | $R_JQ× | $R_JQC× | $(pass "$R_JQ" 10) | $(pass "$R_JQC" 10) |
| ≥ 25 % of grep | $(awk -v r="$R_GREP" 'BEGIN { printf "%.0f", r * 100 }') % | $(awk -v r="$R_GREPC" 'BEGIN { printf "%.0f", r * 100 }') % | $(pass "$R_GREP" 0.25) | $(pass "$R_GREPC" 0.25) |
| < 256 MB RSS | $RSS_MB / $ZRSS_MB MB | | $RSS_OK | |
| gzip ≥ 50 % of raw | $(awk -v r="$R_GZ" 'BEGIN { printf "%.0f", r * 100 }') % | $(awk -v r="$R_GZC" 'BEGIN { printf "%.0f", r * 100 }') % | $(pass "$R_GZ" 0.5) | $(pass "$R_GZC" 0.5) |

The CPU verdict is the conservative one: jq and grep are single-threaded, so on an idle machine
their wall time equals their CPU time, while kexp's file reads, inflate and GC run on other
threads (its wall time is then below its CPU time). Under heavy load the wall ratios swing with
whatever else runs during each command.

Notes (static text in run.sh):
- The comparison is not like for like: jq and grep only select lines; kexp selects writes on six
  resources, parses them, and builds WriteEvents/ObservedEvents with actors, owners and order.
- Where kexp's time goes (\`node --cpu-prof\` on the 1 GB file): \`JSON.parse\` of the few percent
  of lines that pass the prefilter (they are the biggest: RequestResponse pod/RS bodies, ~8 % of the
  bytes) ≈ 25–30 %, the byte-level scan (newlines + \`"objectRef":{"resource":"\` needle) ≈ 20 %,
  GC ≈ 10 %, file reads ≈ 10 %; the rest is spread thin.
- .gz: Node's zlib inflates in the thread pool up to 16 MiB ahead of the splitter, so on two CPUs
  a compressed file costs little extra wall time (GNU \`gzip -dc\` inflates more slowly than zlib).
- Wall time includes Node start-up (~50 ms). MB/s (CPU) counts all threads, so it can be lower
  than MB/s (wall).
EOF
echo "wrote $OUT" >&2
cat "$OUT"
