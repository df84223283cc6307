#!/usr/bin/env python3
"""Start a turn in the first tree's root log of STORE (as BIN lists it):
append a `turn/start` event with the next seq and the next turn number, as
a resident DSH would, and print that turn number. The benchmarks that time
a change reaching a live view share it.
    scripts/append-turn.py STORE BIN
"""
import glob, json, subprocess, sys, time

store, binary = sys.argv[1], sys.argv[2]
trees = json.loads(subprocess.run([binary, "--store", store, "--json", "tree"],
                                  check=True, capture_output=True, text=True).stdout)
root = trees[0]["root"]
path = sorted(glob.glob(f"{store}/*/{root}/session.jsonl"))[0]
last = json.loads(open(path).read().splitlines()[-1])
turn = 1
for line in open(path):
    e = json.loads(line)
    if e.get("type") == "turn/start":
        turn = max(turn, e["data"]["turn"] + 1)
with open(path, "a") as f:
    f.write(json.dumps({"type": "turn/start", "seq": last["seq"] + 1,
                        "time": int(time.time() * 1000), "data": {"turn": turn}}) + "\n")
print(turn)
