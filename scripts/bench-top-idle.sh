#!/usr/bin/env bash
# Benchmark: the CPU `dsh-agents top` spends on an idle store, and how long
# a change takes to reach its screen. Runs top in tmux (120x40) on STORE
# with each BIN given, waits for its first frame, counts the CPU time (user
# + system, from /proc/PID/stat) it uses over SECONDS_IDLE (default 30)
# while nothing in the store changes, then starts a turn in the first
# tree's root log (the next seq; the log gains one line, which it keeps)
# and times until the screen shows it (tmux polled every 20 ms), and its
# peak resident memory (VmHWM).
#   scripts/bench-top-idle.sh STORE BIN [BIN...]
# Prints one line per binary. A benchmark, not a test: it asserts nothing.
set -euo pipefail
store=$1; shift
secs=${SECONDS_IDLE:-30}
command -v tmux >/dev/null || { echo "bench-top-idle: tmux is not installed" >&2; exit 1; }
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
n=0
for bin in "$@"; do
  n=$((n + 1))
  sock="$work/tmux.$n.sock"
  start=$(date +%s.%N)
  tmux -S "$sock" -f /dev/null new-session -d -s top -x 120 -y 40 \
    "env NO_COLOR=1 '$bin' --store '$store' top"
  until tmux -S "$sock" capture-pane -p -t top | grep -q "NAME"; do sleep 0.05; done
  first=$(echo "$(date +%s.%N) - $start" | bc)
  pid=$(pgrep -n -f -- "$bin --store $store top")
  pids+=("$pid")
  a=$(ticks "$pid")
  sleep "$secs"
  b=$(ticks "$pid")
  cpu=$(echo "scale=2; ($b - $a) / $hz" | bc)
  per_min=$(echo "scale=2; $cpu * 60 / $secs" | bc)
  # A turn starts in the first tree's root: how long until the screen says so.
  turn=$("$(dirname "$0")/append-turn.py" "$store" "$bin")
  t0=$(date +%s.%N)
  until tmux -S "$sock" capture-pane -p -t top | grep -q "turn $turn open"; do sleep 0.02; done
  seen=$(echo "$(date +%s.%N) - $t0" | bc)
  peak=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  tmux -S "$sock" kill-server 2>/dev/null || true
  # A build that outlives its terminal (crossterm's spin) is ended here.
  kill -9 "$pid" 2>/dev/null || true
  echo "$bin: first frame ${first%??????} s; idle ${secs} s: ${cpu} s CPU (${per_min} s a minute); a turn's start on screen after ${seen%??????} s; peak ${peak} KB"
done
