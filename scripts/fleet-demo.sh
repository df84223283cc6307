#!/usr/bin/env bash
# The fleet on one machine: a 3-node hub on loopback (the pinned
# nats-server), two stores as hosts `a` and `b` with their daemons, a
# followup from a to b's lead, then `fleet status` on a and the inbox on b.
# Everything it starts is stopped, and its directory removed, however it ends
# (KEEP=1 keeps the directory).
set -euo pipefail
source "$(dirname "$0")/fleet/hub.sh"
start_hub a,b
for h in a b; do
  mkdir -p "$work/$h"
  "$bin" --store "$work/$h" spawn --prompt "lead the work on host $h" >/dev/null
  start_daemon "$h" "$work/$h"
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
