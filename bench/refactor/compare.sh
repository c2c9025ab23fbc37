#!/usr/bin/env bash
# Same-run throughput of two builds of kexp on the same inputs: `replay -o json` and `audit -o json`
# of this worktree's build against BASE's (e.g. the commit before a refactor, in a `git worktree`
# built with `npm run build`), alternating run by run, ROUNDS rounds each. For every run it
# records wall time, CPU time (user + system, which a busy machine disturbs less than wall time)
# and peak RSS (/usr/bin/time), and checks that both builds print the same report (cmp).
#
#   BASE=/path/to/base ROUNDS=3 bash bench/refactor/compare.sh FILE...
#
# FILE ending in .kexp.jsonl[.gz] is replayed, any other file is read as an audit log. Prints one
# markdown row per file and build: median wall s, median CPU s, peak RSS MB, and after/before CPU.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
: "${BASE:?BASE=/path/to/a built worktree of the commit to compare with}"
ROUNDS="${ROUNDS:-3}"
WORK="${WORK:-$(mktemp -d /tmp/kexp-compare.XXXXXX)}"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time" >&2; exit 7; }

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "| file | build | runs | wall s (median) | CPU s (median) | peak RSS MB | CPU after ÷ before |"
echo "|---|---|---:|---:|---:|---:|---:|"
for f in "$@"; do
  case "$f" in *.kexp.jsonl|*.kexp.jsonl.gz) cmd=replay ;; *) cmd=audit ;; esac
  : >"$WORK/base.times"; : >"$WORK/new.times"
  for r in $(seq 1 "$ROUNDS"); do
    for b in base new; do
      dir="$ROOT"; [ "$b" = base ] && dir="$BASE"
      /usr/bin/time -q -f '%e %U %S %M' -o "$WORK/t" node "$dir/bin/run.js" "$cmd" "$f" -o json >"$WORK/$b.json" 2>"$WORK/$b.err" || true
      awk '{ printf "%s %.2f %d\n", $1, $2 + $3, $4 }' "$WORK/t" >>"$WORK/$b.times"
    done
    cmp -s "$WORK/base.json" "$WORK/new.json" || { echo "REPORTS DIFFER for $f (round $r): $WORK/base.json $WORK/new.json" >&2; exit 1; }
  done
  bc=$(cut -d' ' -f2 "$WORK/base.times" | median); nc=$(cut -d' ' -f2 "$WORK/new.times" | median)
  for b in base new; do
    w=$(cut -d' ' -f1 "$WORK/$b.times" | median); c=$(cut -d' ' -f2 "$WORK/$b.times" | median)
    m=$(cut -d' ' -f3 "$WORK/$b.times" | sort -n | tail -1)
    ratio=""; [ "$b" = new ] && ratio=$(awk -v a="$nc" -v b="$bc" 'BEGIN { printf "%.3f", a / b }')
    label=before; [ "$b" = new ] && label="after (same report)"
    echo "| $(basename "$f") ($cmd) | $label | $ROUNDS | $w | $c | $((m / 1024)) | $ratio |"
  done
done
