#!/usr/bin/env python3
"""A store of N small sessions (a root and an 8-ary tree of continuable
children, one completed turn each): the cost of per-session work that does
not grow with log size. Usage: small_sessions.py STORE N"""
import json, os, sys
root = sys.argv[1]; n = int(sys.argv[2])
proj = os.path.join(root, "_no-cwd")
os.makedirs(proj, exist_ok=True)
def write(sid, parent, t):
    d = os.path.join(proj, sid); os.makedirs(d, exist_ok=True)
    h = {"type":"session","version":0,"id":sid,"createdAt":t,"delegationDepth":0 if parent is None else 1}
    ev = []
    if parent is not None:
        h["parentSession"] = parent; h["origin"] = "subagent"
        ev.append({"type":"subagent/descriptor","seq":0,"time":t,"data":{"version":2,"mode":"continuable","provider":"spawn","label":"w"+sid}})
        ev.append({"type":"session/end-seed","seq":1,"time":t,"data":{}})
    s = len(ev)
    ev.append({"type":"turn/start","seq":s,"time":t,"data":{"turn":1}})
    ev.append({"type":"turn/end","seq":s+1,"time":t,"data":{"turn":1,"reason":{"kind":"completed"}}})
    with open(os.path.join(d, "session.jsonl"), "w") as f:
        for v in [h] + ev: f.write(json.dumps(v, separators=(",",":")) + "\n")
write("root", None, 1)
for i in range(1, n):
    parent = "root" if i <= 8 else "s%06d" % ((i - 1) // 8)
    write("s%06d" % i, parent, 1 + i)
