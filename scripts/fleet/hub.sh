# Sourced by the fleet scripts (fleet-demo.sh, bench-fleet.sh,
# bench-fleet-rows.sh): a 3-node hub on loopback from the pinned
# nats-server, and hosts with their daemons. Everything started is stopped,
# and the work directory removed, however the script ends (KEEP=1 keeps it).
#   PROFILE=release|debug (default debug) picks the build `bin` runs;
#   DSH_AGENTS_BIN overrides it.
#   start_hub HOSTS     # a,b: writes the configs, starts 3 nodes, `fleet init`;
#                       # sets $work, $nats
#   start_daemon HOST STORE   # `fleet run` for STORE as HOST, waits until it
#                             # serves; its pid in $daemon, its log in
#                             # $work/daemon-HOST.log
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if [ "${PROFILE:-debug}" = release ]; then
  cargo build --quiet --release
else
  cargo build --quiet
fi
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys;print(json.load(sys.stdin)["target_directory"])')
bin="${DSH_AGENTS_BIN:-$target_dir/${PROFILE:-debug}/dsh-agents}"
server=$(scripts/nats-server.sh)
work=$(mktemp -d)
pids=()
hub_cleanup() {
  status=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
  for extra in "${cleanup_also[@]}"; do rm -rf "$extra"; done
  exit $status
}
cleanup_also=()
trap hub_cleanup EXIT

start_hub() {
  local port
  port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  if [ "$port" -gt 65000 ]; then port=24222; fi
  "$bin" fleet config --hosts "$1" --out "$work/hub" --port "$port" >/dev/null
  for n in 1 2 3; do
    "$server" -c "$work/hub/hub-$n.conf" >"$work/hub-$n.log" 2>&1 &
    pids+=($!)
  done
  nats="nats://127.0.0.1:$port,nats://127.0.0.1:$((port + 1)),nats://127.0.0.1:$((port + 2))"
  # The nodes take a moment to form their cluster.
  for _ in $(seq 1 100); do
    "$bin" fleet init --nats "$nats" --creds "$work/hub/admin.nk" 2>/dev/null && return 0
    sleep 0.2
  done
  echo "the hub did not come up: see $work/hub-*.log" >&2
  return 1
}

start_daemon() {
  "$bin" --store "$2" fleet run --host "$1" --nats "$nats" --creds "$work/hub/$1.nk" \
    >"$work/daemon-$1.log" 2>&1 &
  daemon=$!
  pids+=($daemon)
  until grep -qs serving "$work/daemon-$1.log"; do
    kill -0 "$daemon" 2>/dev/null || { cat "$work/daemon-$1.log" >&2; return 1; }
    sleep 0.1
  done
}
