#!/usr/bin/env bash
# A big host in a fleet, on one machine: a 3-node hub on loopback (the
# pinned nats-server), host `a` on STORE and host `b` on a one-session
# store, with their daemons (release build). Prints:
#   first publish: seconds from a's daemon start until b's mirror holds
#     all of a's rows, and a's daemon's peak resident memory then;
#   quiet: whether b's mirror of a's rows was rewritten in QUIET seconds
#     of an unchanged store (a row write would rewrite it), and a's
#     daemon's resident memory after them;
#   tree --fleet on b (a's rows drawn from the mirror) against `tree` on
#     STORE itself: wall seconds and peak memory of each.
# usage: scripts/bench-fleet-rows.sh STORE [QUIET]   (QUIET defaults to 30)
# STORE gets a `.fleet/` directory (removed afterwards); everything it
# starts is stopped, and its own directory removed, however it ends.
set -euo pipefail
store=$(cd "$1" && pwd)
quiet=${2:-30}
PROFILE=release source "$(dirname "$0")/fleet/hub.sh"
cleanup_also=("$store/.fleet")
start_hub a,b
mkdir -p "$work/b"
"$bin" --store "$work/b" spawn --prompt "lead the work on host b" >/dev/null
start_daemon b "$work/b"
expected=$("$bin" --store "$store" tree --json | python3 -c 'import json,sys;print(sum(len(t["members"]) for t in json.load(sys.stdin)))')
start=$(date +%s.%N)
start_daemon a "$store"
mirror="$work/b/.fleet/rows-a.json"
count() { python3 -c 'import json,sys
try: print(len(json.load(open(sys.argv[1]))))
except Exception: print(0)' "$mirror"; }
until [ "$(count)" -ge "$expected" ]; do
  kill -0 "$daemon" || { cat "$work/daemon-a.log" >&2; exit 1; }
  sleep 1
done
took=$(python3 -c "import time;print(f'{time.time()-$start:.1f}')")
hwm() { awk -v k="$1" '$1==k":" {printf "%.1f MiB", $2/1024}' "/proc/$daemon/status"; }
echo "first publish: $expected rows in b's mirror ${took} s after a's daemon started; a's daemon peak $(hwm VmHWM)"
before=$(stat -c %Y.%s "$mirror")
sleep "$quiet"
after=$(stat -c %Y.%s "$mirror")
if [ "$before" = "$after" ]; then said="not rewritten"; else said="rewritten"; fi
echo "quiet: b's mirror of a's rows $said in ${quiet} s; a's daemon resident $(hwm VmRSS), peak $(hwm VmHWM)"
t() { /usr/bin/time -f "%e s, %M KiB" "$@" 2>&1 >/dev/null | tail -1; }
echo "tree --fleet on b: $(t "$bin" --store "$work/b" tree --fleet --all); tree on STORE: $(t "$bin" --store "$store" tree --all)"
