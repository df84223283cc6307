#!/usr/bin/env bash
# The OTLP export received by a real backend: Phoenix (arize-phoenix from
# PyPI, pinned with every dependency in scripts/otlp/requirements.txt, in a
# venv under target/) is started on a free local port, the rc.8-written
# sample stores are exported to it over OTLP/HTTP (protobuf), and
# check_phoenix.py queries the spans back and compares them with the
# OTLP/JSON export of the same stores. Phoenix is stopped however this ends.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$PWD/target/phoenix-venv"
stamp="$venv/.requirements"
if [ ! -f "$stamp" ] || ! cmp -s scripts/otlp/requirements.txt "$stamp"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/otlp/requirements.txt
  cp scripts/otlp/requirements.txt "$stamp"
fi
cargo build --quiet
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys;print(json.load(sys.stdin)["target_directory"])')
bin="${DSH_AGENTS_BIN:-$target_dir/debug/dsh-agents}"
work=$(mktemp -d)
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
grpc=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
PHOENIX_WORKING_DIR="$work/phoenix" PHOENIX_HOST=127.0.0.1 PHOENIX_PORT="$port" \
  PHOENIX_GRPC_PORT="$grpc" "$venv/bin/phoenix" serve >"$work/phoenix.log" 2>&1 &
pid=$!
trap 'status=$?; kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"; exit $status' EXIT
url="http://127.0.0.1:$port"
for _ in $(seq 1 240); do
  if curl -fs -o /dev/null "$url/healthz"; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat "$work/phoenix.log" >&2; exit 1; fi
  sleep 0.5
done
curl -fs -o /dev/null "$url/healthz" || { echo "test-otlp.sh: Phoenix did not start" >&2; cat "$work/phoenix.log" >&2; exit 1; }
exports=()
for store in rc8-cli rc8-live; do
  "$bin" --store "testdata/stores/$store" export --otlp --all --endpoint "$url"
  "$bin" --store "testdata/stores/$store" export --otlp --all -o "$work/$store.json" >/dev/null
  exports+=("$work/$store.json")
done
python3 scripts/otlp/check_phoenix.py "$url" "${exports[@]}"
