#!/usr/bin/env bash
# `dsh-agents top` end to end in a real terminal: tmux runs it on a copy of
# testdata/stores/team; the script waits on what `capture-pane` shows
# (each wait has a deadline; none is a bare sleep), appends a turn to a log
# and sees the row change, sends a followup by bracketed paste and finds its
# record in inbox.jsonl under the id the screen shows, answers the interrupt
# question both ways, cancels the followup, quits with q, and checks the
# exit status and that the terminal was given back (canonical mode, echo).
# ROUNDS=N repeats it (LOAD=1 beside two CPU-bound loops). Fails when tmux
# is missing: a suite that needs it never passes by running nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "test-top-tmux: tmux is not installed" >&2; exit 1; }
cargo build --quiet
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys;print(json.load(sys.stdin)["target_directory"])')
bin="${DSH_AGENTS_BIN:-$target_dir/debug/dsh-agents}"
work=$(mktemp -d)
sock="$work/tmux.sock"
loops=()
cleanup() {
  tmux -S "$sock" kill-server 2>/dev/null || true
  for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
if [ "${LOAD:-0}" = 1 ]; then
  for _ in 1 2; do (while :; do :; done) & loops+=($!); done
fi

screen() { tmux -S "$sock" capture-pane -p -t top; }
# Wait until the screen shows $1 (a fixed string), up to 30 s.
wait_for() {
  local deadline=$((SECONDS + 30))
  until screen | grep -qF -- "$1"; do
    if [ $SECONDS -ge $deadline ]; then
      echo "test-top-tmux: never saw \"$1\"; the screen:" >&2
      screen >&2
      exit 1
    fi
    sleep 0.05
  done
}
# Wait until the screen matches $1 (an extended regular expression).
wait_re() {
  local deadline=$((SECONDS + 30))
  until screen | grep -qE -- "$1"; do
    if [ $SECONDS -ge $deadline ]; then
      echo "test-top-tmux: never saw /$1/; the screen:" >&2
      screen >&2
      exit 1
    fi
    sleep 0.05
  done
}
# How many times top has opened the store (a plan line each, DSH_AGENTS_DEBUG).
reads() { grep -c "plan:" "$work/plans" || true; }
keys() { tmux -S "$sock" send-keys -t top "$@"; }

round() {
  local store="$work/store" done="$work/done"
  rm -rf "$store" "$done" "$done.stty"
  cp -r testdata/stores/team "$store"
  tmux -S "$sock" kill-server 2>/dev/null || true
  tmux -S "$sock" -f /dev/null new-session -d -s top -x 140 -y 40 \
    "env NO_COLOR=1 DSH_AGENTS_DEBUG=1 '$bin' --store '$store' top 2>'$work/plans'; echo \"EXIT:\$?\" > '$done'; stty -a > '$done.stty'"
  wait_for "reviewer"
  wait_for "1 Log"
  # A turn starts in the reviewer's log now: the store says so, its row
  # changes.
  printf '%s\n' '{"type":"turn/start","seq":5,"time":'"$(date +%s%3N)"',"data":{"turn":2}}' \
    >> "$store/_no-cwd/rev-0001/session.jsonl"
  wait_for "turn 2 open"
  # ... read from that session's row alone, not from a read of the store.
  grep -q "plan: top: 1 row(s) read again" "$work/plans" || {
    echo "test-top-tmux: the append was not read from its row alone:" >&2
    cat "$work/plans" >&2; exit 1; }
  # Then only the clock moves the row: while it moves three seconds on,
  # the store is not read again.
  wait_re "turn 2 open [1-9] s"
  local before
  before=$(reads)
  wait_re "turn 2 open ([5-9]|[1-5][0-9]) s"
  [ "$(reads)" = "$before" ] || {
    echo "test-top-tmux: an idle store was read again ($before, then $(reads) reads)" >&2
    exit 1; }
  # Select the reviewer, type a followup as bracketed paste, send it.
  keys j
  wait_for "┌ rev-0001 "
  keys s
  wait_for "followup to rev-0001:"
  tmux -S "$sock" set-buffer -b msg "please look at pay.rs again"
  tmux -S "$sock" paste-buffer -p -b msg -t top
  wait_for "please look at pay.rs again"
  keys Enter
  wait_for "queued for rev-0001"
  local id
  id=$(screen | grep -o 'followup [^ ]* queued for rev-0001' | awk '{print $2}')
  grep -qF "\"id\":\"$id\"" "$store/_no-cwd/rev-0001/inbox.jsonl" || {
    echo "test-top-tmux: $id is not in the inbox" >&2; exit 1; }
  grep -qF "please look at pay.rs again" "$store/_no-cwd/rev-0001/inbox.jsonl"
  # The interrupt asks first: n leaves it, y asks the operator's rules.
  keys i
  wait_for "interrupt rev-0001? y/n"
  keys n
  wait_for "not interrupted: rev-0001"
  keys i
  wait_for "interrupt rev-0001? y/n"
  keys y
  wait_for "nothing was written"
  if grep -q '"type":"interrupt"' "$store/_no-cwd/rev-0001/inbox.jsonl"; then
    echo "test-top-tmux: a refused interrupt wrote a record" >&2; exit 1
  fi
  # Cancel the followup from the Inbox tab.
  keys 2
  wait_for "message ${id:0:8}"
  keys c
  wait_for "canceled message $id to rev-0001"
  grep -q '"type":"cancel"' "$store/_no-cwd/rev-0001/inbox.jsonl"
  # Help, then quit.
  keys '?'
  wait_for "this help (any key closes)"
  keys x
  keys q
  local deadline=$((SECONDS + 30))
  until [ -s "$done.stty" ]; do
    [ $SECONDS -lt $deadline ] || { echo "test-top-tmux: top did not quit" >&2; screen >&2; exit 1; }
    sleep 0.05
  done
  grep -qx "EXIT:0" "$done" || { echo "test-top-tmux: $(cat "$done")" >&2; exit 1; }
  # The terminal is back in canonical mode with echo (raw mode undone).
  grep -qw -- "icanon" "$done.stty" && ! grep -qw -- "-icanon" "$done.stty" \
    && grep -qw -- "echo" "$done.stty" && ! grep -qw -- "-echo" "$done.stty" || {
    echo "test-top-tmux: the terminal was not restored:" >&2; cat "$done.stty" >&2; exit 1; }
}

# The terminal goes away under a running top (its tmux server killed): top
# ends instead of spinning on the dead terminal.
hangup() {
  local store="$work/store"
  rm -rf "$store"
  cp -r testdata/stores/team "$store"
  tmux -S "$sock" kill-server 2>/dev/null || true
  tmux -S "$sock" -f /dev/null new-session -d -s top -x 100 -y 30 \
    "env NO_COLOR=1 '$bin' --store '$store' top"
  wait_for "reviewer"
  local shell pid deadline
  shell=$(tmux -S "$sock" list-panes -t top -F '#{pane_pid}')
  pid=$(pgrep -P "$shell" || echo "$shell")
  tmux -S "$sock" kill-server
  deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      kill -9 "$pid" 2>/dev/null || true
      echo "test-top-tmux: top outlived its terminal" >&2; exit 1
    fi
    sleep 0.05
  done
}

rounds="${ROUNDS:-1}"
for r in $(seq "$rounds"); do
  round
  hangup
  echo "test-top-tmux: round $r of $rounds passed"
done
