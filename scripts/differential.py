#!/usr/bin/env python3
"""Differential check of contract v1 against the real DSH 0.1.0-rc.8.

Optional developer tool, never part of CI: it needs the oracle installed by
`../shared/tools/dsh-rc8/setup.sh ORACLE_DIR`.

    python3 scripts/differential.py ORACLE_DIR [--bin target/debug/dsh-agents]
    python3 scripts/differential.py ORACLE_DIR --record testdata/differential

Builds edge-case stores (ties, Unicode ids and labels, forks with seeds,
descriptor versions, corrupt and torn logs, packed rows, zstd, a deep
chain), lists every session of every store with both scopes under rc.8 and
under `dsh-agents --contract v1`, and reports every difference.

`--record DIR` also writes the stores (all but the 10,000-session chain) to
DIR and what rc.8 printed for each of their requests to DIR/expected.jsonl:
the integration test `differential` holds every build to that text without
the oracle.
"""
import json, os, shutil, subprocess, sys, tempfile

import zstd_helper  # noqa: F401  (local module: frames via the zstd CLI if present)


def encode_segment(raw):
    if raw == ".":
        return "~002E"
    if raw == "..":
        return "~002E~002E"
    out = []
    units = raw.encode("utf-16-le")
    for i in range(0, len(units), 2):
        u = units[i] | units[i + 1] << 8
        c = chr(u) if u < 0xD800 or u > 0xDFFF else None
        if c is not None and c != "~" and (c.isascii() and (c.isalnum() or c in "._-")):
            out.append(c)
        else:
            out.append("~%04X" % u)
    return "".join(out)


def header(id, created=1, parent=None, origin=True, **extra):
    h = {"type": "session", "version": 0, "id": id, "createdAt": created}
    if "cwd" in extra:
        h["cwd"] = extra.pop("cwd")
    if parent is not None:
        h["parentSession"] = parent
    if "seedLength" in extra:
        h["seedLength"] = extra.pop("seedLength")
    if origin and parent is not None:
        h["origin"] = "subagent"
    h["delegationDepth"] = extra.pop("delegationDepth", 1 if parent else 0)
    h.update(extra)
    return h


def ev(type, seq, data, **extra):
    e = {"type": type, "seq": seq, "time": 10 + seq, "data": data}
    e.update(extra)
    return e


def desc(seq, label="task", mode="continuable", version=2, **extra):
    d = {"version": version, "mode": mode, "provider": "spawn"}
    if label is not None:
        d["label"] = label
    d.update(extra)
    return ev("subagent/descriptor", seq, d)


def um(seq, text="work"):
    return ev("user/message", seq, {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}, "role": "user", "id": "m%d" % seq}, surfaceOp="append")


def child_lines(label="task", mode="continuable", version=2):
    return [ev("turn/start", 0, {"turn": 1}), um(1), desc(2, label, mode, version), ev("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}})]


def J(x):
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


def cases():
    c = {}
    root = lambda created=1: (header("root", created), [ev("turn/start", 0, {"turn": 1}), ev("turn/end", 1, {"turn": 1, "reason": {"kind": "completed"}})])
    # Ties on createdAt with ids that sort differently bytewise and by collation.
    ids = ["b", "B", "a", "A", "_x", "-y", "é", "e", "Z9", "z10", "中", "😀", "a b", "a~b"]
    c["ties"] = [root()] + [(header(i, 5, "root"), child_lines("tie " + i)) for i in ids]
    # Labels with Unicode and newlines, one-shots with and without labels.
    c["labels"] = [root(), (header("k1", 2, "root"), child_lines("line1\nline2 — ü 😀")), (header("k2", 3, "root"), child_lines("")),
                   (header("k3", 4, "root"), child_lines(None, "one-shot")), (header("k4", 5, "root"), child_lines("os", "one-shot"))]
    # Descriptor versions and malformed payloads.
    dv = [root()]
    for n, d in enumerate([desc(2, version=1), desc(2, version=3), desc(2, version="2"), desc(2, label=None), desc(2, mode="weird"),
                           desc(2, persona="p"), desc(2, mode="one-shot", persona="p"), desc(2, toolFilter={}), desc(2, toolFilter={"allow": ["x"]}),
                           desc(2, toolFilter={"allow": [1]}), ev("subagent/descriptor", 2, None), ev("subagent/descriptor", 2, [])]):
        dv.append((header("d%02d" % n, 2 + n, "root"), [ev("turn/start", 0, {"turn": 1}), um(1), d, ev("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}})]))
    c["descriptors"] = dv
    # Last descriptor wins; a later invalid one resets.
    c["fold"] = [root(), (header("w1", 2, "root"), child_lines("first") + [desc(4, "second")]),
                 (header("w2", 3, "root"), child_lines("first") + [desc(4, version=9)]),
                 (header("w3", 4, "root"), child_lines("first") + [desc(4, label=None)])]
    # Forks: ordinary fork with a subagent below; fork child with seed replaying an ancestor descriptor.
    c["forks"] = [root(), (header("fork", 2, "root", origin=False), [ev("turn/start", 0, {"turn": 1})]),
                  (header("under", 3, "fork"), child_lines("under fork")),
                  (header("fchild", 4, "under", seedLength=4), child_lines("ancestor")[:4] + [ev("session/end-seed", 4, {}), desc(5, "own"), ev("session/end-seed", 6, {})]),
                  (header("fnodesc", 5, "under", seedLength=4), child_lines("ancestor")[:4] + [ev("session/end-seed", 4, {})])]
    # Log-level defects.
    base = child_lines("ok")
    c["defects"] = [root(),
        (header("torn", 2, "root"), base, b'{"type":"turn/start","seq":4'),
        (header("badline", 3, "root"), base[:3] + ["{not json"] + [base[3]]),
        (header("badtail", 4, "root"), base[:3] + ["{not json", J(ev("step/start", 3, {}))]),
        (header("gap", 5, "root"), base[:2] + [J(desc(5, "gap"))]),
        (header("gapend", 6, "root"), base[:3] + [J(ev("turn/end", 7, {"turn": 1, "reason": {"kind": "completed"}}))]),
        (header("unknown", 7, "root"), base + [ev("x/custom", 4, {})]),
        (header("ignorable", 8, "root"), base + [ev("x/custom", 4, {}, ignorable=True)]),
        (header("extrakey", 9, "root"), base + [ev("step/start", 4, {}, extra=1)]),
        (header("nullline", 10, "root"), base + ["null"]),
        (header("numline", 11, "root"), base + ["5"]),
        (header("v1hdr", 12, "root", version=1), base),
        (header("relcwd", 13, "root", cwd="rel/dir"), base),
        (header("noid", 14, "root"), base[:1] + [ev("user/message", 1, {"content": [], "source": {"kind": "user"}, "role": "user", "id": ""})] + base[2:]),
        (header("packed", 15, "root"), base[:2] + [{"type": "text-chunks", "seq0": 2, "time0": 1, "data": {"turn": 1, "step": 1, "index": 0, "dt": [1, -2], "texts": ["a", "b", "c"]}}, desc(5, "packed"), ev("turn/end", 6, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("badpack", 16, "root"), base[:2] + [{"type": "text-chunks", "seq0": 2, "time0": 1, "data": {"turn": 1, "step": 1, "index": 0, "dt": [1], "texts": ["a", "b", "c"]}}, desc(3, "bp")]),
        (header("legacyend", 17, "root"), base[:3] + [ev("turn/end", 3, {"turn": 1})]),
        (header("trigger", 18, "root"), [ev("turn/start", 0, {"turn": 1, "trigger": {"kind": ""}})] + base[1:]),
        (header("invalidutf8", 19, "root"), base[:3] + [b'{"type":"step/start","seq":3,"time":1,"data":{"x":"\xff"}}'] + [ev("turn/end", 4, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("nonl", 20, "root"), [], b""),
        (header("opentail", 21, "root"), base[:3]),
        (header("nosurface", 23, "root"), [ev("turn/start", 0, {"turn": 1}), {k: v for k, v in um(1).items() if k != "surfaceOp"}, desc(2, "ns"), ev("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("goodreplace", 24, "root"), [ev("turn/start", 0, {"turn": 1}), um(1), dict(um(2, "again"), surfaceOp={"op": "replace", "start": 1, "end": 1}, sourceEventSeqs=[1]), desc(3, "gr"), ev("turn/end", 4, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("badreplace", 25, "root"), [ev("turn/start", 0, {"turn": 1}), um(1), dict(um(2, "again"), surfaceOp={"op": "replace", "start": 0, "end": 1}, sourceEventSeqs=[1]), desc(3, "br"), ev("turn/end", 4, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("nosource", 26, "root"), [ev("turn/start", 0, {"turn": 1}), um(1), dict(um(2, "again"), surfaceOp={"op": "replace", "start": 1, "end": 1}), desc(3, "nsrc"), ev("turn/end", 4, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("latersrc", 27, "root"), [ev("turn/start", 0, {"turn": 1}), dict(um(1), sourceEventSeqs=[5]), desc(2, "ls"), ev("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("toolok", 28, "root"), [ev("turn/start", 0, {"turn": 1}), ev("tool/result", 1, {"message": {"id": "t1", "role": "user", "content": [{"type": "tool-result", "toolCallId": "c1", "content": [], "isError": False}], "source": {"kind": "tool", "callId": "c1"}}}, surfaceOp="append"), ev("tool/result", 2, {"message": {"id": "t1", "role": "user", "content": [{"type": "tool-result", "toolCallId": "c1", "content": [{"type": "text", "text": "shorter"}], "isError": False}], "source": {"kind": "tool", "callId": "c1"}}}, surfaceOp={"op": "replace", "start": 1, "end": 1}, sourceEventSeqs=[1]), desc(3, "to"), ev("turn/end", 4, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("toolbad", 29, "root"), [ev("turn/start", 0, {"turn": 1}), ev("tool/result", 1, {"message": {"id": "t1", "role": "user", "content": [{"type": "tool-result", "toolCallId": "c1", "content": [], "isError": False}], "source": {"kind": "tool", "callId": "c1"}}}, surfaceOp="append"), ev("tool/result", 2, {"message": {"id": "t2", "role": "user", "content": [{"type": "tool-result", "toolCallId": "c1", "content": [], "isError": False}], "source": {"kind": "tool", "callId": "c1"}}}, surfaceOp={"op": "replace", "start": 1, "end": 1}, sourceEventSeqs=[1]), desc(3, "tb"), ev("turn/end", 4, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("surrogate", 30, "root"), [ev("turn/start", 0, {"turn": 1}), um(1), '{"type":"subagent/descriptor","seq":2,"time":1,"data":{"version":2,"mode":"continuable","provider":"spawn","label":"lone \\ud800 surrogate"}}', ev("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("negtime", 22, "root"), [ev("turn/start", 0, {"turn": 1}), um(1), desc(2, "neg"), {"type": "step/start", "seq": 3, "time": -50, "data": {}}]),
        # Header versions in a generation-0 file: JavaScript compares numbers.
        (header("v0float", 31, "root", version=0.0), base),
        (header("vneg0", 32, "root", version=-0.0), base),
        (header("v2hdr", 33, "root", version=2), base),
        (header("v3hdr", 34, "root", version=3, isSeeded=False), [ev("turn/start", 0, {"turn": 1}), um(1), desc(2, "v3", version=3), ev("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}})]),
        (header("v5hdr", 35, "root", version=5), base),
        (header("vfrac", 36, "root", version=0.5), base),
    ]
    c["cycle"] = [(header("c1", 1, "c2"), child_lines("one")), (header("c2", 2, "c1"), child_lines("two")), (header("c3", 3, "c1"), child_lines("three"))]
    # A deep chain.
    deep = [root()]
    prev = "root"
    for i in range(10000):
        deep.append((header("n%05d" % i, 2 + i, prev), child_lines("depth %d" % i)))
        prev = "n%05d" % i
    c["deep"] = deep
    return c


def write_store(dir, sessions, compression):
    for item in sessions:
        h, lines = item[0], item[1]
        tail = item[2] if len(item) > 2 else None
        project = "_no-cwd" if "cwd" not in h else project_key(h["cwd"])
        sd = os.path.join(dir, project, encode_segment(h["id"]))
        os.makedirs(sd, exist_ok=True)
        body = [J(h).encode() + b"\n"]
        events = b""
        for l in lines:
            events += (l if isinstance(l, bytes) else (l if isinstance(l, str) else J(l)).encode()) + b"\n"
        if tail is not None:
            events += tail
        name = "session.jsonl"
        if compression == "zstd":
            name += ".zstd"
            data = zstd_helper.frame(body[0]) + (zstd_helper.frame(events) if events else b"")
        else:
            data = body[0] + events
        if tail == b"" and not lines:
            data = J(h).encode() if compression == "none" else b""  # no complete header
        with open(os.path.join(sd, name), "wb") as f:
            f.write(data)


def project_key(cwd):
    out, run = "", False
    units = cwd.encode("utf-16-le")
    for i in range(0, len(units), 2):
        u = units[i] | units[i + 1] << 8
        ch = chr(u) if u < 0xD800 or u > 0xDFFF else None
        if ch in ("/", "\\", ":"):
            if not run:
                out += "-"
            run = True
        elif ch is not None and ch != "~" and ch.isascii() and (ch.isalnum() or ch in "._-"):
            out += ch
            run = False
        else:
            out += "~%04X" % u
            run = False
    return "--%s--" % ((out.lstrip("-") or "root")[:251])


def record(out, tmp, requests, answers):
    """The generated stores and rc.8's text for each request on them."""
    out = os.path.abspath(out)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    lines = []
    for req, want in zip(requests, answers):
        store = os.path.basename(req["root"])
        if os.path.dirname(req["root"]) != tmp or store.startswith("deep-"):
            continue
        if not os.path.isdir(os.path.join(out, store)):
            shutil.copytree(req["root"], os.path.join(out, store))
        text = want["text"].encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        lines.append(json.dumps({"store": store, "caller": req["caller"], "scope": req["scope"], "isError": want["isError"], "text": text}, ensure_ascii=False))
    with open(os.path.join(out, "expected.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main():
    oracle = os.path.abspath(sys.argv[1])
    binary = os.path.abspath(sys.argv[sys.argv.index("--bin") + 1]) if "--bin" in sys.argv else os.path.abspath("target/debug/dsh-agents")
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    tmp = tempfile.mkdtemp(prefix="dsh-diff-")
    shutil.copy(os.path.join(os.path.dirname(__file__), "oracle-multi.mjs"), oracle)
    requests = []
    for name, sessions in cases().items():
        if only and name not in only:
            continue
        for compression in (["none", "zstd"] if zstd_helper.available() and name != "deep" else ["none"]):
            root = os.path.join(tmp, f"{name}-{compression}")
            write_store(root, sessions, compression)
            # Every session, and an id no session has (rc.8 lists nothing
            # under it: the caller is opaque).
            callers = [s[0]["id"] for s in sessions] + ["no-such-session"]
            if name == "deep":
                callers = ["root", "n09990"]
            for caller in callers:
                for scope in ("children", "descendants"):
                    requests.append({"root": root, "caller": caller, "scope": scope, "compression": compression})
    # Existing stores (e.g. testdata/stores/*, built with `spawn`): every session as caller.
    for extra in (sys.argv[sys.argv.index("--stores") + 1].split(",") if "--stores" in sys.argv else []):
        extra = os.path.abspath(extra)
        logs = [os.path.join(d, f) for d, _, fs in os.walk(extra) for f in fs if f.startswith("session.jsonl")]
        compression = "zstd" if any(l.endswith(".zstd") for l in logs) else "none"
        for log in logs:
            first = zstd_helper.first_line(log) if log.endswith(".zstd") else open(log, "rb").readline()
            caller = json.loads(first)["id"]
            for scope in ("children", "descendants"):
                requests.append({"root": extra, "caller": caller, "scope": scope, "compression": compression})
    env = dict(os.environ, PATH=os.path.join(oracle, "node22/package/bin") + ":" + os.environ["PATH"])
    proc = subprocess.run(["node", "oracle-multi.mjs"], cwd=oracle, input="".join(J(r) + "\n" for r in requests), capture_output=True, text=True, env=env)
    answers = [json.loads(l) for l in proc.stdout.splitlines()]
    if len(answers) != len(requests):
        print(proc.stderr[-2000:])
        sys.exit("oracle returned %d answers for %d requests" % (len(answers), len(requests)))
    diffs = 0
    for req, want in zip(requests, answers):
        got = subprocess.run([binary, "--contract", "v1", "--store", req["root"], "list-agents", "--as=" + req["caller"], "--scope", req["scope"]], capture_output=True, text=True)
        ours_err = got.returncode != 0
        # Node writes a lone surrogate as U+FFFD; JSON carried it escaped.
        want_text = want["text"].encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        same = (ours_err and want["isError"]) if ours_err or want["isError"] else got.stdout == want_text + "\n"
        if not same:
            diffs += 1
            print("DIFF %s caller=%s scope=%s\n  rc8 : %r\n  ours: %r %r" % (os.path.basename(req["root"]), req["caller"], req["scope"], want["text"][:600], got.stdout[:600], got.stderr[:300]))
    if "--record" in sys.argv:
        record(sys.argv[sys.argv.index("--record") + 1], tmp, requests, answers)
    print("%d requests, %d differences" % (len(requests), diffs))
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
