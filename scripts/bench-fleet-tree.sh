#!/usr/bin/env bash
# `tree --fleet` across three hosts against `tree` on one store of them all,
# on one machine: a 3-node hub on loopback (the pinned nats-server), hosts
# `a`, `b` and `c` each on a copy of STORE (their daemons, release build).
# Once c's mirrors hold a's and b's rows, prints the wall seconds and peak
# memory of RUNS runs each (median, min–max) of
#   tree --fleet --all on c (c's own sessions from its store, a's and b's
#     from the mirrors), and
#   tree --all on BIG (one store as large as the three, e.g. 3 × STORE's
#     sessions), and their ratio.
# usage: scripts/bench-fleet-tree.sh STORE BIG [RUNS]   (RUNS defaults to 5)
# The copies live in the work directory, removed however it ends.
set -euo pipefail
src=$(cd "$1" && pwd)
big=$(cd "$2" && pwd)
runs=${3:-5}
PROFILE=release source "$(dirname "$0")/fleet/hub.sh"
start_hub a,b,c
for h in a b c; do
  cp -r "$src" "$work/$h"
  rm -rf "$work/$h/.fleet"
done
expected=$("$bin" --store "$src" tree --json --all | python3 -c 'import json,sys;print(sum(len(t["members"]) for t in json.load(sys.stdin)))')
for h in a b c; do start_daemon "$h" "$work/$h"; done
count() { python3 -c 'import json,sys
try: print(len(json.load(open(sys.argv[1]))))
except Exception: print(0)' "$1"; }
for h in a b; do
  until [ "$(count "$work/c/.fleet/rows-$h.json")" -ge "$expected" ]; do sleep 1; done
done
BIN="$bin" C="$work/c" BIG="$big" RUNS="$runs" python3 - <<'PY'
import os, subprocess, statistics
bin_, c, big, runs = os.environ["BIN"], os.environ["C"], os.environ["BIG"], int(os.environ["RUNS"])
def measure(args):
    secs, mem = [], []
    for _ in range(runs):
        r = subprocess.run(["/usr/bin/time", "-f", "%e %M", bin_, *args], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=True)
        e, m = r.stderr.strip().splitlines()[-1].split()
        secs.append(float(e)); mem.append(int(m) / 1024)
    return secs, mem
def say(name, m):
    secs, mem = m
    print(f"{name}: median {statistics.median(secs):.2f} s ({min(secs):.2f}–{max(secs):.2f}), "
          f"peak {statistics.median(mem):.1f} MiB ({min(mem):.1f}–{max(mem):.1f})")
fleet = measure(["--store", c, "tree", "--fleet", "--all"])
one = measure(["--store", big, "tree", "--all"])
say("tree --fleet on c (3 hosts)", fleet)
say("tree on BIG", one)
print(f"ratio of medians: {statistics.median(fleet[0]) / statistics.median(one[0]):.2f}")
PY
