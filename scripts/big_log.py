#!/usr/bin/env python3
"""Write a store with one root session whose raw log holds about SIZE bytes
of completed turns (a 1 KB user message each): the log docs/performance.md's
`log --last` timing used.  python3 scripts/big_log.py DIR [SIZE]"""
import json
import os
import sys

root, size = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000_000
d = os.path.join(root, "_no-cwd", "big")
os.makedirs(d, exist_ok=True)
pad = "lorem ipsum " * 80
dump = lambda v: json.dumps(v, separators=(",", ":")) + "\n"
with open(os.path.join(d, "session.jsonl"), "w") as f:
    f.write(dump({"type": "session", "version": 0, "id": "big", "createdAt": 1, "delegationDepth": 0}))
    seq = turn = written = 0
    while written < size:
        turn += 1
        text = dump({"type": "turn/start", "seq": seq, "time": seq, "data": {"turn": turn}})
        text += dump({"type": "user/message", "seq": seq + 1, "time": seq + 1, "data": {"content": [{"type": "text", "text": pad}], "source": {"kind": "user"}, "role": "user", "id": f"m{turn}"}, "surfaceOp": "append"})
        text += dump({"type": "turn/end", "seq": seq + 2, "time": seq + 2, "data": {"turn": turn, "reason": {"kind": "completed"}}})
        seq += 3
        f.write(text)
        written += len(text)
