#!/usr/bin/env bash
# Benchmark: `dsh-agents top` under a storm of notifications that change
# nothing. A copy of testdata/stores/team; `serve` holds chk-0001 mid-turn
# (its handler sleeps), so the child is really running; `top` runs in tmux
# (120x40, clock pinned with DSH_AGENTS_NOW_MS so relative times stay put).
# Then the running child's log is opened for writing and closed N times
# (default 20,000, in 4 rounds) without a byte written: each close is a
# notification top hears. After each round it prints top's resident memory
# (VmRSS) and CPU, and whether the screen is byte for byte the one before
# the storm, and how many times top read the store.
#   scripts/bench-top-soak.sh BIN [N]
# A benchmark, not a test: it asserts nothing, it reports.
set -euo pipefail
bin=$(realpath "$1")
n=${2:-20000}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v tmux >/dev/null || { echo "bench-top-soak: tmux is not installed" >&2; exit 1; }
work=$(mktemp -d)
sock="$work/tmux.sock"
pids=()
cleanup() {
  tmux -S "$sock" kill-server 2>/dev/null || true
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
store="$work/team"
cp -r "$here/testdata/stores/team" "$store"
export DSH_AGENTS_CACHE_DIR="$work/cache"
"$bin" --store "$store" followup chk-0001 "take your time" >/dev/null
"$bin" --store "$store" serve --as chk-0001 --quiet -- sleep 600 >/dev/null 2>&1 &
pids+=($!)
state() { "$bin" --store "$store" --json tree | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    for m in t["members"]:
        if m["id"] == "chk-0001": print(m["state"])'; }
until [ "$(state)" = running ]; do sleep 0.05; done
tmux -S "$sock" -f /dev/null new-session -d -s top -x 120 -y 40 \
  "env NO_COLOR=1 DSH_AGENTS_DEBUG=1 DSH_AGENTS_NOW_MS=1800000000000 DSH_AGENTS_CACHE_DIR='$work/cache' '$bin' --store '$store' top 2>'$work/top.err'"
screen() { tmux -S "$sock" capture-pane -p -t top; }
until screen | grep -q "running"; do sleep 0.05; done
pid=$(pgrep -n -f -- "$bin --store $store top")
pids+=("$pid")
sleep 1
before=$(screen)
hz=$(getconf CLK_TCK)
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
cpu() { awk -v hz="$hz" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$pid/stat"; }
log=$(ls "$store"/*/chk-0001/session.jsonl)
# Each read of the store says its plan on stderr (DSH_AGENTS_DEBUG=1).
reads() { grep -c "plan:" "$work/top.err" || true; }
echo "notifications | store reads | top VmRSS KB | top CPU s | screen as before"
echo "0 | $(reads) | $(rss) | $(cpu) | yes"
done_n=0
for round in 1 2 3 4; do
  python3 - "$log" $((n / 4)) <<'PY'
import os, sys
path, k = sys.argv[1], int(sys.argv[2])
for _ in range(k):
    os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
PY
  done_n=$((done_n + n / 4))
  # Let the coalesced reads the storm asked for finish.
  sleep 2
  same=no
  [ "$(screen)" = "$before" ] && same=yes
  echo "$done_n | $(reads) | $(rss) | $(cpu) | $same"
done
