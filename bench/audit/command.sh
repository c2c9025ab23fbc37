#!/usr/bin/env bash
# `kexp audit` end to end (read, replay, report) against jq on the same files, in one run.
#
#   bench/audit/command.sh FILE...            (BASE=/path/to/other/worktree adds its build)
#
# For every file, one after another: `kexp audit FILE -o json` of this worktree's build (and of
# $BASE's, e.g. the commit before in a `git worktree`, whose reports must be byte-identical), and
# `jq -c 'select(.objectRef.resource=="pods")' FILE | wc -l`. Prints one markdown row per
# command: wall time, CPU time (user+sys, every thread and child), peak RSS (/usr/bin/time), and
# jq's wall time divided by the command's (and its CPU time divided by the command's: on a loaded
# machine wall time says how busy the machine was as much as what the command costs).
# Build first (`npm run build` in each worktree). Reports go to $WORK (default /tmp/kexp-audit-cmd).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${WORK:-/tmp/kexp-audit-cmd}"
mkdir -p "$WORK"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time" >&2; exit 7; }
measure() { # name outfile cmd... → "wall rss cpu"
  local tf
  tf=$(mktemp "$WORK/time.XXXXXX")
  /usr/bin/time -q -f '%e %M %U %S' -o "$tf" "${@:3}" >"$2" 2>"$WORK/$1.stderr" || true
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$tf"
  rm -f "$tf"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "| file | MB | command | wall s | CPU s | peak RSS MB | jq wall ÷ command wall | jq CPU ÷ command CPU |"
echo "|---|---:|---|---:|---:|---:|---:|---:|"
for f in "$@"; do
  mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", b / 1e6 }')
  cat "$f" >/dev/null
  read -r jw jr jc < <(measure jq "$WORK/jq.out" bash -c "jq -c 'select(.objectRef.resource==\"pods\")' '$f' | wc -l")
  read -r kw kr kc < <(measure kexp "$WORK/new.json" node "$ROOT/bin/run.js" audit "$f" -o json)
  if [ -n "${BASE:-}" ]; then
    read -r bw br bc < <(measure base "$WORK/base.json" node "$BASE/bin/run.js" audit "$f" -o json)
    same=$(cmp -s "$WORK/base.json" "$WORK/new.json" && cmp -s "$WORK/base.stderr" "$WORK/kexp.stderr" && echo "identical report and stderr" || echo "REPORTS DIFFER")
    echo "| $(basename "$f") | $mb | kexp audit (before) | $bw | $bc | $((br / 1024)) | $(ratio "$jw" "$bw") | $(ratio "$jc" "$bc") |"
    echo "| $(basename "$f") | $mb | kexp audit (after; $same, ×$(ratio "$bw" "$kw") faster) | $kw | $kc | $((kr / 1024)) | $(ratio "$jw" "$kw") | $(ratio "$jc" "$kc") |"
  else
    echo "| $(basename "$f") | $mb | kexp audit | $kw | $kc | $((kr / 1024)) | $(ratio "$jw" "$kw") | $(ratio "$jc" "$kc") |"
  fi
  echo "| $(basename "$f") | $mb | jq select pods ($(cat "$WORK/jq.out") lines) | $jw | $jc | $((jr / 1024)) | 1.00 | 1.00 |"
done
