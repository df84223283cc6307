#!/usr/bin/env bash
# Rebuild the sample stores under testdata/stores with the real binary.
# Every session is made by `dsh-agents spawn` except the two deliberately
# broken logs, which no writer of ours would produce.
#   testdata/make-stores.sh [path/to/dsh-agents]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-"$here/../target/debug/dsh-agents"}
out="$here/stores"
rm -rf "$out/team" "$out/zstd"
mkdir -p "$out/team" "$out/zstd"

s() { "$bin" --store "$out/team" spawn "$@" >/dev/null; }
s --id lead-1 --created-at 1000 --prompt "Lead the review of the payment service"
s --parent lead-1 --id rev-0001 --name reviewer --label "Review the diff" --created-at 1001 --prompt "Review src/pay.rs"
s --parent rev-0001 --id chk-0001 --name checker --label "Check the tests" --created-at 1002 --prompt "Run the tests"
s --parent lead-1 --id sct-0001 --name scout --mode one-shot --label "Scout once" --created-at 1003 --prompt "Find the entry points"
s --parent sct-0001 --id dep-0001 --name deep --label "Dig deeper" --created-at 1004
s --parent lead-1 --id bat-0001 --name batch --mode one-shot --created-at 1005
s --parent bat-0001 --id stp-0001 --name step --mode one-shot --label "one step" --created-at 1006
s --parent stp-0001 --id fix-0001 --name fix --label "Fix what the step found" --created-at 1007
s --parent lead-1 --id anon-0001 --label "Unnamed helper" --created-at 1008
s --parent anon-0001 --id kid-0001 --name kid --label "Below the unnamed helper" --created-at 1009
s --parent lead-1 --id ext-0001 --name outside --mode external --label "External run" --created-at 1010
s --parent lead-1 --id 'task/1 ü' --name escaped --label "An id that needs escaping — ü" --created-at 1011
s --parent lead-1 --id Tie-b --name tie-upper --label "Tie, upper-case B" --created-at 1012
s --parent lead-1 --id tie-a --name tie-lower --label "Tie, lower-case a" --created-at 1012

# A settled child without a descriptor: rc.8 and v2 list it as corrupt.
d="$out/team/_no-cwd/brk-0001"; mkdir -p "$d"
cat > "$d/session.jsonl" <<'JSONL'
{"type":"session","version":0,"id":"brk-0001","createdAt":1013,"parentSession":"lead-1","origin":"subagent","delegationDepth":1,"name":"broken"}
{"type":"turn/start","seq":0,"time":1013,"data":{"turn":1}}
{"type":"turn/end","seq":1,"time":1013,"data":{"turn":1,"reason":{"kind":"completed"}}}
JSONL
# A child whose log has a defect before a committed turn end: unreadable.
d="$out/team/_no-cwd/unr-0001"; mkdir -p "$d"
cat > "$d/session.jsonl" <<'JSONL'
{"type":"session","version":0,"id":"unr-0001","createdAt":1014,"parentSession":"lead-1","origin":"subagent","delegationDepth":1,"name":"unreadable"}
{"type":"subagent/descriptor","seq":0,"time":1014,"data":{"version":2,"mode":"continuable","provider":"spawn","label":"Lost"}}
{"type":"turn/start","seq":1,"time":1014,"data":{"turn":1}}
{not json
{"type":"turn/end","seq":2,"time":1014,"data":{"turn":1,"reason":{"kind":"completed"}}}
JSONL

z() { "$bin" --store "$out/zstd" spawn --compression zstd "$@" >/dev/null; }
z --id zroot --created-at 2000 --cwd /home/u/proj --prompt "Compressed root"
z --parent zroot --id zkid-1 --name first --label "First compressed child" --created-at 2001 --prompt "go"
z --parent zroot --id zkid-2 --name second --label "Second compressed child" --created-at 2002
z --parent zkid-1 --id 'z/escaped' --name grand --label "Grandchild with an escaped id" --created-at 2003
echo "rebuilt $out"
