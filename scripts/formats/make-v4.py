#!/usr/bin/env python3
"""Turn a generation-3 store (every session `session.v3.jsonl`) into a
generation-4 one, in place, as the reference describes 0.2.x (no published
code writes generation 4): the header's `version` becomes 4, the file
`session.v4.jsonl`, and each parent gets, after its last event, one
`subagent/catalog` row per child (`{version:0, childId, childCreatedAt, mode,
label?}` from the child's last version-3 descriptor; `subagent/catalog-unknown`
with mode "unknown" for a child without one), children in (createdAt, id)
order. Usage: make-v4.py STORE"""
import json, os, sys

store = sys.argv[1]
sessions = {}
for project in sorted(os.listdir(store)):
    p = os.path.join(store, project)
    if not os.path.isdir(p):
        continue
    for name in sorted(os.listdir(p)):
        d = os.path.join(p, name)
        log = os.path.join(d, "session.v3.jsonl")
        if os.path.isfile(log):
            with open(log) as f:
                lines = [json.loads(l) for l in f if l.strip()]
            sessions[lines[0]["id"]] = (d, lines)

def identity(events):
    found = None
    for e in events:
        if e["type"] == "subagent/descriptor":
            data = e["data"]
            found = data if data.get("version") == 3 else None
    return found

for sid, (d, lines) in sessions.items():
    header, events = lines[0], lines[1:]
    header["version"] = 4
    children = sorted(
        (ls[0]["createdAt"], ls[0]["id"], ls[1:])
        for (_, ls) in sessions.values()
        if ls[0].get("parentSession") == sid
    )
    for created, cid, evs in children:
        desc = identity(evs)
        seq = len(events)
        time = events[-1]["time"] if events else header["createdAt"]
        if desc is None:
            data = {"version": 0, "childId": cid, "childCreatedAt": created, "mode": "unknown"}
            events.append({"type": "subagent/catalog-unknown", "seq": seq, "time": time, "data": data})
            continue
        data = {"version": 0, "childId": cid, "childCreatedAt": created, "mode": desc["mode"]}
        if "label" in desc:
            data["label"] = desc["label"]
        events.append({"type": "subagent/catalog", "seq": seq, "time": time, "data": data})
    with open(os.path.join(d, "session.v4.jsonl"), "w") as f:
        for v in [header] + events:
            f.write(json.dumps(v, separators=(",", ":"), ensure_ascii=False) + "\n")
    os.remove(os.path.join(d, "session.v3.jsonl"))
