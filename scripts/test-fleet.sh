#!/usr/bin/env bash
# The fleet suite against real nats-servers: installs the pinned
# nats-server (scripts/nats-server.sh, by hash), runs the integration
# tests under `fleet::` (ignored by a plain `cargo test`, which needs
# nothing outside the repository) with DSH_AGENTS_NATS_SERVER set, and
# fails when the suite ran fewer tests than it holds — never green on zero.
# LOAD=1 runs it beside two CPU-bound loops; BURSTS=N runs the burst test
# N times in all (the suite's run and N-1 more, each with its own seed).
set -euo pipefail
cd "$(dirname "$0")/.."
server=$(scripts/nats-server.sh)
"$server" --version >&2
loads=()
if [ "${LOAD:-0}" = 1 ]; then
  for _ in 1 2; do (while :; do :; done) & loads+=($!); done
fi
trap 'for p in "${loads[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
# The partition test needs network namespaces: as root with `ip` it must
# run (it fails rather than skip); elsewhere it skips, and this says so.
probe="dsh-probe-$$"
if command -v ip > /dev/null && ip netns add "$probe" 2> /dev/null; then
  ip netns del "$probe"
  export DSH_AGENTS_REQUIRE_NETNS=1
else
  echo "test-fleet.sh: no network namespace can be made here (not root, no ip): the partition test skips" >&2
fi
expected=$(awk '/^#\[test\]/{n++} END{print n}' tests/it/fleet.rs)
log=$(mktemp)
DSH_AGENTS_NATS_SERVER="$server" cargo test --test it fleet:: -- --ignored 2>&1 | tee "$log"
passed=$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$log" | tail -1)
rm -f "$log"
if [ -z "$passed" ] || [ "$passed" -lt "$expected" ] || [ "$passed" = 0 ]; then
  echo "test-fleet.sh: ran ${passed:-0} fleet tests of $expected" >&2
  exit 1
fi
echo "test-fleet.sh: $passed of $expected fleet tests passed" >&2
for run in $(seq 2 "${BURSTS:-1}"); do
  echo "test-fleet.sh: burst run $run of $BURSTS" >&2
  log=$(mktemp)
  if ! DSH_AGENTS_NATS_SERVER="$server" cargo test --test it -- --ignored --exact \
    fleet::a_burst_from_two_hosts_through_daemon_and_hub_node_kills_lands_each_acknowledged_id_once > "$log" 2>&1; then
    cat "$log" >&2
    echo "test-fleet.sh: burst run $run of $BURSTS failed" >&2
    exit 1
  fi
  grep -E "^test result|burst seed" "$log" >&2 || true
  rm -f "$log"
done
