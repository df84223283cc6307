#!/usr/bin/env python3
"""A store of N sessions: a root and an 8-ary tree of continuable children.
Without --turns each holds one empty completed turn (about 600 bytes: the
cost of per-session work that does not grow with log size); with --turns T
each holds T completed turns of a 500-byte user message and a reply that
reports usage (about 5 KB for T=3).
Usage: small_sessions.py STORE N [--turns T]"""
import json, os, sys

root, n = sys.argv[1], int(sys.argv[2])
turns = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--turns" else 0
proj = os.path.join(root, "_no-cwd")
os.makedirs(proj, exist_ok=True)
pad = "lorem ipsum " * 40


def write(sid, parent, t):
    d = os.path.join(proj, sid)
    os.makedirs(d, exist_ok=True)
    h = {"type": "session", "version": 0, "id": sid, "createdAt": t, "delegationDepth": 0 if parent is None else 1}
    ev = []
    if parent is not None:
        h["parentSession"] = parent
        h["origin"] = "subagent"
        ev.append({"type": "subagent/descriptor", "seq": 0, "time": t, "data": {"version": 2, "mode": "continuable", "provider": "spawn", "label": "w" + sid}})
        ev.append({"type": "session/end-seed", "seq": 1, "time": t, "data": {}})
    for turn in range(1, max(turns, 1) + 1):
        s = len(ev)
        ev.append({"type": "turn/start", "seq": s, "time": t, "data": {"turn": turn}})
        if turns:
            ev.append({"type": "user/message", "seq": s + 1, "time": t, "data": {"content": [{"type": "text", "text": pad}], "source": {"kind": "user"}, "role": "user", "id": f"u{turn}"}, "surfaceOp": "append"})
            ev.append({"type": "assistant/message", "seq": s + 2, "time": t, "data": {"turn": turn, "step": 1, "message": {"role": "assistant", "content": [{"type": "text", "text": pad}], "source": {"kind": "model", "provider": "p", "model": "m"}, "id": f"a{turn}"}, "usage": {"inputTokens": 100, "outputTokens": 10}}, "surfaceOp": "append"})
        ev.append({"type": "turn/end", "seq": len(ev), "time": t, "data": {"turn": turn, "reason": {"kind": "completed"}}})
    with open(os.path.join(d, "session.jsonl"), "w") as f:
        for v in [h] + ev:
            f.write(json.dumps(v, separators=(",", ":")) + "\n")


write("root", None, 1)
for i in range(1, n):
    write("s%06d" % i, "root" if i <= 8 else "s%06d" % ((i - 1) // 8), 1 + i)
