#!/usr/bin/env bash
# The fleet on one machine: a 3-node hub on loopback (the pinned
# nats-server), two stores as hosts `a` and `b` with their daemons, a
# followup from a to b's lead, then `fleet status` on a and the inbox on b.
# Everything it starts is stopped, and its directory removed, however it ends
# (KEEP=1 keeps the directory).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys;print(json.load(sys.stdin)["target_directory"])')
bin="${DSH_AGENTS_BIN:-$target_dir/debug/dsh-agents}"
server=$(scripts/nats-server.sh)
work=$(mktemp -d)
pids=()
cleanup() {
  status=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
  exit $status
}
trap cleanup EXIT
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
if [ "$port" -gt 65000 ]; then port=24222; fi
"$bin" fleet config --hosts a,b --out "$work/hub" --port "$port" >/dev/null
for n in 1 2 3; do
  "$server" -c "$work/hub/hub-$n.conf" >"$work/hub-$n.log" 2>&1 &
  pids+=($!)
done
nats="nats://127.0.0.1:$port,nats://127.0.0.1:$((port + 1)),nats://127.0.0.1:$((port + 2))"
"$bin" fleet init --nats "$nats" --creds "$work/hub/admin.nk" 2>/dev/null
for h in a b; do
  mkdir -p "$work/$h"
  "$bin" --store "$work/$h" spawn --prompt "lead the work on host $h" >/dev/null
  "$bin" --store "$work/$h" fleet run --host "$h" --nats "$nats" --creds "$work/hub/$h.nk" \
    >"$work/daemon-$h.log" 2>&1 &
  pids+=($!)
  until grep -q serving "$work/daemon-$h.log"; do sleep 0.1; done
done
echo "\$ dsh-agents --store A followup b:lead 'Review the diff on host b' --id demo-1"
"$bin" --store "$work/a" followup b:lead "Review the diff on host b" --id demo-1
for _ in $(seq 1 100); do
  "$bin" --store "$work/a" fleet status | grep -q "demo-1  b:lead  accepted" && break
  sleep 0.1
done
echo "\$ dsh-agents --store A fleet status"
"$bin" --store "$work/a" fleet status
echo "\$ dsh-agents --store B inbox lead"
"$bin" --store "$work/b" inbox lead
