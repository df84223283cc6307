#!/usr/bin/env python3
"""Copy a store and give its rev-0001 an inbox of N keyed, claimed 1 KB
messages (keyed history that compaction keeps): the store docs/performance.md's
keyed-send timing used.  python3 scripts/keyed_history.py SRC DST N"""
import json, sys, shutil, os
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
shutil.rmtree(dst, ignore_errors=True)
shutil.copytree(src, dst)
p = os.path.join(dst, "_no-cwd/rev-0001/inbox.jsonl")
pad = "lorem ipsum " * 80
with open(p, "w") as f:
    for i in range(n):
        f.write(json.dumps({"type":"message","id":"k-%06d"%i,"time":1000+i,"target":"next-turn","source":{"kind":"user"},"content":[{"type":"text","text":pad}],"keyed":True}, separators=(",",":"))+"\n")
        f.write(json.dumps({"type":"claim","time":1000+i,"ids":["k-%06d"%i]}, separators=(",",":"))+"\n")
