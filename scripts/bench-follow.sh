#!/usr/bin/env bash
# Benchmark: how long a change takes to reach `events --follow`. Starts
# `dsh-agents events --follow --json` on STORE with each BIN given, waits
# until it has read the store (its CPU time still for a second), starts a turn in the first tree's root log (the next
# seq; the log keeps the line) and times until the follower prints that
# turn's `turn-started` event (its output polled every 10 ms).
#   scripts/bench-follow.sh STORE BIN [BIN...]
# Prints one line per binary (started: until the first look was done). A benchmark, not a test: it asserts nothing.
set -euo pipefail
store=$1; shift
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
n=0
for bin in "$@"; do
  n=$((n + 1))
  out="$work/out.$n" err="$work/err.$n"
  start=$(date +%s.%N)
  "$bin" --store "$store" --json events --follow >"$out" 2>"$err" &
  pid=$!
  pids+=("$pid")
  # Its first look is done when its CPU time stands still for a second.
  ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
  before=-1
  until [ "$(ticks)" = "$before" ]; do before=$(ticks); sleep 1; done
  first=$(echo "$(date +%s.%N) - $start - 1" | bc)
  turn=$("$(dirname "$0")/append-turn.py" "$store" "$bin")
  t0=$(date +%s.%N)
  deadline=$((SECONDS + 600))
  until grep -q "\"turn\":$turn" "$out"; do
    [ $SECONDS -lt $deadline ] || { echo "$bin: no event after 600 s"; break; }
    sleep 0.01
  done
  seen=$(echo "$(date +%s.%N) - $t0" | bc)
  kill -9 "$pid" 2>/dev/null || true
  echo "$bin: started ${first%??????} s; a turn's start reported after ${seen%??????} s"
done
