#!/usr/bin/env bash
# The plugin's tests (dsh-plugin/, `node --test`): the in-process rc.8 runtime
# and the real `dsh` rc.8 CLI end to end, both driving target/debug/dsh-agents.
# Needs Node 22 (rc.8 uses zstd in node:zlib): when the machine's node is
# older, the pinned Node 22 is unpacked from the npm registry into
# target/node22. dsh-plugin's packages install from its committed lock file
# (never resolved from scratch: see docs/bridge.md), again only when missing or stale.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/plugin-env.sh
# The name index of the stores these tests make goes to the build tree, not $HOME.
export DSH_AGENTS_CACHE_DIR="$PWD/../target/test-cache"
# DSH spills tool output into a directory it makes under os.tmpdir() and
# never removes: the DSH runs these tests start get a temporary directory of
# their own, removed when the tests end however they end.
TMPDIR="$(mktemp -d)"
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
npm test
# The crash-point tests again beside two CPU-bound loops: the windows they
# aim at (a step's claim before its write, a hand-off racing a disposal)
# widen under load.
LOAD=1 node --test --test-concurrency=1 test/crash-points.test.mjs
