#!/usr/bin/env bash
# Snapshots every report kexp prints for the inputs shipped in this repository, so that a change
# meant to keep behaviour (a refactor) can be checked byte for byte:
#
#   bash scripts/report-snapshot.sh OUT_DIR        # after `npm run build`, from the repo root
#   diff -r BEFORE_DIR AFTER_DIR                   # nothing printed = byte-identical
#
# For each input it stores stdout, stderr and the exit code of the command an operator would run:
# - every examples/*.kexp.jsonl[.gz]: `replay` (-o json, the 100-column table, -o wide) and, where
#   a capture has a KCM log, `replay --kcm-log` (-o json);
# - every examples/captures/*: `audit` (-o json and table, alone and with --kcm-log) and `kcm-log`
#   (-o json and table);
# - every file under test/fixtures/{watch,audit,kcm-log} and each dump: the command for its kind
#   (-o json), including the inputs kexp refuses (their one-line error and exit code);
# - the fidelity bench table (bench/fidelity/run.ts).
# Runs two commands at a time (xargs -P2). Needs the built dist/ (npm run build).
set -euo pipefail
out="${1:?usage: report-snapshot.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$(dirname "$0")/.."

jobs="$(mktemp)"
trap 'rm -f "$jobs"' EXIT
add() { # name, then the kexp arguments
  local name="$1"; shift
  printf '%s\t%s\n' "$name" "$*" >>"$jobs"
}

for f in examples/*.kexp.jsonl examples/*.kexp.jsonl.gz; do
  [ -e "$f" ] || continue
  n="$(basename "$f")"; n="${n%%.kexp.jsonl*}"
  add "replay.$n.json" replay "$f" -o json
  add "replay.$n.table" replay "$f"
  add "replay.$n.wide" replay "$f" -o wide
  [ -f "examples/captures/$n/kcm.log" ] && add "replay-kcm.$n.json" replay "$f" --kcm-log "examples/captures/$n/kcm.log" -o json
done
for d in examples/captures/*/; do
  n="$(basename "$d")"
  if [ -f "$d/audit.jsonl" ]; then
    add "audit.$n.json" audit "$d/audit.jsonl" -o json
    add "audit.$n.table" audit "$d/audit.jsonl"
    [ -f "$d/kcm.log" ] && add "audit-kcm.$n.json" audit "$d/audit.jsonl" --kcm-log "$d/kcm.log" -o json
  fi
  if [ -f "$d/kcm.log" ]; then
    add "kcm-log.$n.json" kcm-log "$d/kcm.log" -o json
    add "kcm-log.$n.table" kcm-log "$d/kcm.log"
  fi
done
for f in test/fixtures/watch/*; do
  case "$f" in *.md) continue ;; esac
  add "fixture-replay.$(basename "$f").json" replay "$f" -o json
done
for f in test/fixtures/audit/*; do
  case "$f" in *.md|*.ts) continue ;; esac
  add "fixture-audit.$(basename "$f").json" audit "$f" -o json
done
for f in test/fixtures/kcm-log/*; do
  case "$f" in *.md|*.ts|*.txt) continue ;; esac
  add "fixture-kcm-log.$(basename "$f").json" kcm-log "$f" -o json
done
for d in test/fixtures/dumps/*/; do
  add "fixture-dump.$(basename "$d").json" replay "$d" -o json
done

export KEXP_SNAPSHOT_OUT="$out"
# shellcheck disable=SC2016
xargs -P2 -d '\n' -n1 bash -c '
  name="${1%%	*}"; args="${1#*	}"
  set +e
  # shellcheck disable=SC2086
  COLUMNS=100 NO_COLOR=1 ./bin/run.js $args >"$KEXP_SNAPSHOT_OUT/$name.out" 2>"$KEXP_SNAPSHOT_OUT/$name.err" </dev/null
  echo "$?" >"$KEXP_SNAPSHOT_OUT/$name.rc"
' _ <"$jobs"

node --import tsx bench/fidelity/run.ts >"$out/fidelity.md" 2>"$out/fidelity.err"
echo "$(wc -l <"$jobs") commands and the fidelity bench snapshotted into $out" >&2
