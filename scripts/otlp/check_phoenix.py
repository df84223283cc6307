"""Query a Phoenix server for the spans `dsh-agents export --otlp` sent it
and compare them with the OTLP/JSON export of the same stores: every span
arrived, with its trace, parent, name and kind as exported, and the tree
shape holds (one trace per root turn, child turns nested or linked).
  python3 check_phoenix.py URL EXPORT.json [EXPORT.json ...]"""
import json
import sys
import time
import urllib.request

url, exports = sys.argv[1], sys.argv[2:]
want = {}
for path in exports:
    with open(path) as f:
        doc = json.load(f)
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                want[s["spanId"]] = s


def fetch():
    got, cursor = {}, None
    while True:
        q = f"{url}/v1/projects/default/spans?limit=1000" + (f"&cursor={cursor}" if cursor else "")
        with urllib.request.urlopen(q, timeout=30) as r:
            body = json.load(r)
        for s in body["data"]:
            got[s["context"]["span_id"]] = s
        cursor = body.get("next_cursor")
        if not cursor:
            return got


# Phoenix writes what it receives asynchronously: wait for every span.
deadline = time.time() + 120
while True:
    got = fetch()
    if all(k in got for k in want) or time.time() > deadline:
        break
    time.sleep(1)
missing = [want[k]["name"] for k in want if k not in got]
assert not missing, f"{len(missing)} spans never arrived: {missing[:5]}"
ops = {}
for k, s in want.items():
    g = got[k]
    assert g["context"]["trace_id"] == s["traceId"], (s["name"], g["context"])
    assert (g.get("parent_id") or None) == s.get("parentSpanId"), (s["name"], g.get("parent_id"))
    assert g["name"] == s["name"], (g["name"], s["name"])
    attrs = g["attributes"]
    op = attrs.get("gen_ai.operation.name")
    assert op in ("invoke_agent", "chat", "execute_tool"), (s["name"], op)
    ops[op] = ops.get(op, 0) + 1
    if op == "chat" and "gen_ai.usage.input_tokens" in {a["key"] for a in s["attributes"]}:
        sent = {a["key"]: int(a["value"]["intValue"]) for a in s["attributes"] if "intValue" in a["value"]}
        assert attrs["gen_ai.usage.input_tokens"] == sent["gen_ai.usage.input_tokens"], (attrs, sent)
# The shape: a span whose parent is a tool call is a child agent's turn.
nested = [k for k, s in want.items()
          if s.get("parentSpanId") and want[s["parentSpanId"]]["name"].startswith("execute_tool")]
for k in nested:
    assert got[k]["name"].startswith("invoke_agent"), got[k]["name"]
roots = {s["traceId"] for s in want.values() if not s.get("parentSpanId")}
print(f"phoenix holds all {len(want)} spans: {ops}; {len(roots)} traces; "
      f"{len(nested)} child turns nested under the call that delegated them")
