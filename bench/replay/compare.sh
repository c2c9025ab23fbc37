#!/usr/bin/env bash
# Replay before → after in the same run (issue #25 item 2): for each recording, `run-replay.ts`
# from a worktree of the commit before (BASE, sources run through tsx: no build needed) and from
# this one, alternating, ROUNDS times; then the JSON.parse floor of the file. Prints one JSON line
# per run (events per wall and per CPU second, peak RSS, the syncs and verdict, which must agree).
# Usage: BASE=/path/to/worktree-before [ROUNDS=1] bash bench/replay/compare.sh FILE...
# Recordings: npx tsx bench/replay/generate.ts FILE EVENTS PODS (one ReplicaSet).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BASE:?set BASE to a worktree of the commit before (node_modules linked)}"
ROUNDS="${ROUNDS:-1}"
HERE=$(pwd)
for f in "$@"; do
  for r in $(seq 1 "$ROUNDS"); do
    for side in before after; do
      dir="$HERE"; [ "$side" = before ] && dir="$BASE"
      out=$(cd "$dir" && node --import tsx bench/replay/run-replay.ts "$f")
      echo "{\"side\":\"$side\",\"round\":$r,\"run\":$out}"
    done
  done
  echo "{\"side\":\"floor\",\"run\":$(node --import tsx bench/replay/parse-floor.ts "$f")}"
done
