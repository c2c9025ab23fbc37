#!/usr/bin/env bash
# `kexp audit` end to end (read, replay, report) against jq on the same files, in one run.
#
#   bench/audit/command.sh FILE...            (BASE=/path/to/other/worktree adds its build)
#
# For every file, one after another: `kexp audit FILE -o json` of this worktree's build (and of
# $BASE's, e.g. the commit before in a `git worktree`, whose reports must be byte-identical), and
# `jq -c 'select(.objectRef.resource=="pods")' FILE | wc -l`. Prints one markdown row per
# command: wall time, peak RSS (/usr/bin/time), and jq's wall time divided by the command's.
# Build first (`npm run build` in each worktree). Reports go to $WORK (default /tmp/kexp-audit-cmd).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${WORK:-/tmp/kexp-audit-cmd}"
mkdir -p "$WORK"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time" >&2; exit 7; }
measure() { # name outfile cmd... → "wall rss"
  local tf
  tf=$(mktemp "$WORK/time.XXXXXX")
  /usr/bin/time -q -f '%e %M' -o "$tf" "${@:3}" >"$2" 2>"$WORK/$1.stderr" || true
  cat "$tf"
  rm -f "$tf"
}
echo "| file | MB | command | wall s | peak RSS MB | jq wall ÷ command wall |"
echo "|---|---:|---|---:|---:|---:|"
for f in "$@"; do
  mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", b / 1e6 }')
  cat "$f" >/dev/null
  read -r jw jr < <(measure jq "$WORK/jq.out" bash -c "jq -c 'select(.objectRef.resource==\"pods\")' '$f' | wc -l")
  read -r kw kr < <(measure kexp "$WORK/new.json" node "$ROOT/bin/run.js" audit "$f" -o json)
  if [ -n "${BASE:-}" ]; then
    read -r bw br < <(measure base "$WORK/base.json" node "$BASE/bin/run.js" audit "$f" -o json)
    same=$(cmp -s "$WORK/base.json" "$WORK/new.json" && echo "identical report" || echo "REPORTS DIFFER")
    echo "| $(basename "$f") | $mb | kexp audit (before) | $bw | $((br / 1024)) | $(awk -v j="$jw" -v k="$bw" 'BEGIN { printf "%.2f", j / k }') |"
    echo "| $(basename "$f") | $mb | kexp audit (after; $same, ×$(awk -v a="$bw" -v b="$kw" 'BEGIN { printf "%.2f", a / b }') faster) | $kw | $((kr / 1024)) | $(awk -v j="$jw" -v k="$kw" 'BEGIN { printf "%.2f", j / k }') |"
  else
    echo "| $(basename "$f") | $mb | kexp audit | $kw | $((kr / 1024)) | $(awk -v j="$jw" -v k="$kw" 'BEGIN { printf "%.2f", j / k }') |"
  fi
  echo "| $(basename "$f") | $mb | jq select pods ($(cat "$WORK/jq.out") lines) | $jw | $((jr / 1024)) | 1.00 |"
done
