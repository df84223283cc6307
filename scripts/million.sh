#!/bin/bash
# Time the listings, `tree` and `check` on a large store, once each, with the
# `find -exec cat` floor measured three times among them (the floor moves with
# the page cache). Prints one line a command: wall s, user and sys s, peak KiB.
# usage: scripts/million.sh STORE BINARY [ROOT]
#   python3 scripts/small_sessions.py /tmp/m1 1000000
#   cargo build --release && scripts/million.sh /tmp/m1 target/release/dsh-agents
set -u
S=$1; B=$2; ROOT=${3:-root}
export DSH_AGENTS_CACHE_DIR=${TMPDIR:-/tmp}/million-cache
t() { /usr/bin/time -f "$1 | %e s | user %U sys %S | %M KiB" "${@:2}" 2>&1 > /dev/null | tail -1; }
t "floor cat" sh -c "find '$S' -name session.jsonl -exec cat {} +"
t "v2 list-agents --as $ROOT" "$B" --store "$S" list-agents --as "$ROOT"
t "floor cat" sh -c "find '$S' -name session.jsonl -exec cat {} +"
t "v1 list-agents --scope descendants" "$B" --store "$S" --contract v1 list-agents --as "$ROOT" --scope descendants
t "tree" "$B" --store "$S" tree
t "check" "$B" --store "$S" check
t "floor cat" sh -c "find '$S' -name session.jsonl -exec cat {} +"
