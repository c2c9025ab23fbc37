#!/usr/bin/env bash
# The audit reader on a thread (issue #25 item 1): `kexp audit FILE -o json` of this build with the
# reader thread off and on (KEXP_READER_THREAD=off|on; on = for any file size), alternating run by
# run, ROUNDS times each (default 5); with BASE=/path/to/other/worktree also that build, as the
# "before". Prints one markdown row per file: median wall and CPU (user+sys) seconds, the main
# thread's CPU seconds (thread-cpu.mjs: the critical path on an idle machine, which a loaded
# machine's wall time does not show), peak RSS, the on ÷ off ratios, and whether stdout, stderr and
# the exit code were byte-identical in every run.
# Used to find the size from which a thread pays (THREAD_MIN_BYTES in
# src/sources/audit/threaded-lines.ts). Build first (`npm run build`).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
ROUNDS="${ROUNDS:-5}"
WORK="${WORK:-/tmp/kexp-reader-thread}"
mkdir -p "$WORK"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time" >&2; exit 7; }
# name file run.js env → appends "wall cpu rss" to $WORK/name.times, output to $WORK/name.{out,err,rc}
one() {
  local tf rc=0
  tf=$(mktemp "$WORK/time.XXXXXX")
  rm -f "$WORK/cpu"
  env KEXP_READER_THREAD="$4" KEXP_BENCH_CPU_FILE="$WORK/cpu" /usr/bin/time -q -f '%e %U %S %M' -o "$tf" node --import "$ROOT/bench/audit/thread-cpu.mjs" "$3" audit "$2" -o json >"$WORK/$1.out" 2>"$WORK/$1.err" || rc=$?
  echo "$rc" >"$WORK/$1.rc"
  # One line per Node process (thread-cpu.mjs): the relaunched child's when bin/run.js started one
  # (a large input), else the top process's. (Both lines were once read as one value, and the
  # times file then held a stray line per run: medians half-way between the run and ~0.)
  local main
  main=$(awk '$3 == "child" { c = $1 } $3 == "top" { t = $1 } END { print (c != "" ? c : t) }' "$WORK/cpu" 2>/dev/null || true)
  awk -v main="$main" '{ printf "%s %.2f %s %s\n", $1, $2 + $3, $4, main }' "$tf" >>"$WORK/$1.times"
  rm -f "$tf"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
same() { cmp -s "$WORK/$1.out" "$WORK/$2.out" && cmp -s "$WORK/$1.err" "$WORK/$2.err" && cmp -s "$WORK/$1.rc" "$WORK/$2.rc"; }
echo "| file | MB | build | wall s (median) | CPU s (median) | main-thread CPU s (median) | peak RSS MB (max) | wall vs off | CPU vs off | main-thread CPU vs off | output |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"
for f in "$@"; do
  mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", b / 1e6 }')
  names=(off on)
  [ -n "${BASE:-}" ] && names+=(base)
  for n in "${names[@]}"; do rm -f "$WORK/$n.times"; done
  identical=yes
  cat "$f" >/dev/null
  for ((r = 0; r < ROUNDS; r++)); do
    one off "$f" "$ROOT/bin/run.js" off
    one on "$f" "$ROOT/bin/run.js" on
    same off on || identical=no
    if [ -n "${BASE:-}" ]; then
      one base "$f" "$BASE/bin/run.js" off
      same off base || identical=no
    fi
  done
  ow=$(cut -d' ' -f1 "$WORK/off.times" | median); oc=$(cut -d' ' -f2 "$WORK/off.times" | median); om=$(cut -d' ' -f4 "$WORK/off.times" | median)
  for n in "${names[@]}"; do
    w=$(cut -d' ' -f1 "$WORK/$n.times" | median); c=$(cut -d' ' -f2 "$WORK/$n.times" | median); m=$(cut -d' ' -f4 "$WORK/$n.times" | median)
    rss=$(cut -d' ' -f3 "$WORK/$n.times" | sort -n | tail -1)
    label=$n; [ "$n" = base ] && label="before (BASE)"; [ "$n" = on ] && label="thread on"; [ "$n" = off ] && label="thread off"
    echo "| $(basename "$f") | $mb | $label | $w | $c | $m | $((rss / 1024)) | $(awk -v a="$w" -v b="$ow" 'BEGIN { printf "%.2f", a / b }') | $(awk -v a="$c" -v b="$oc" 'BEGIN { printf "%.2f", a / b }') | $(awk -v a="$m" -v b="$om" 'BEGIN { printf "%.2f", a / b }') | $([ "$identical" = yes ] && echo "identical stdout, stderr, exit code" || echo "OUTPUT DIFFERS") |"
  done
done
