#!/usr/bin/env bash
# Rebuild the format-generation fixtures from the rc.8-written stores with
# DSH's own migrations (setup.sh, migrate.mjs) and, for generation 4, from
# the reference (make-v4.py). Run from the repository root:
#   scripts/formats/make-fixtures.sh DIR   (DIR: a scratch directory)
# Writes testdata/generations/v{1,2,3,4}/stores/<store> (only
# stores whose every session DSH migrated) and testdata/stores/<store>-v<N>.
set -euo pipefail
dir=${1:?usage: make-fixtures.sh SCRATCH_DIR}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
"$here/setup.sh" "$dir"
out="$repo/testdata/generations"
rm -rf "$out"/v1 "$out"/v2 "$out"/v3 "$out"/v4
migrate() { # SRC DEST N
  rm -rf "$2"; mkdir -p "$(dirname "$2")"; cp -r "$1" "$2"
  if ! (cd "$dir" && node migrate.mjs "$2" "$3" --upgrade-descriptors --drop-source >"$dir/last.log"); then
    echo "v$3 $(basename "$1"): not every session migrates:"; grep refused "$dir/last.log" | head -3
    rm -rf "$2"
    return 1
  fi
}
for n in 1 2 3; do
  for src in "$repo"/testdata/conformance/v1/stores/*; do
    migrate "$src" "$out/v$n/stores/$(basename "$src")" "$n" || true
  done
  for s in rc8-cli rc8-live rc8-inbox; do
    migrate "$repo/testdata/stores/$s" "$repo/testdata/stores/$s-v$n" "$n"
  done
done
for s in rc8-cli rc8-live rc8-inbox; do
  rm -rf "$repo/testdata/stores/$s-v4"
  cp -r "$repo/testdata/stores/$s-v3" "$repo/testdata/stores/$s-v4"
  python3 "$here/make-v4.py" "$repo/testdata/stores/$s-v4"
done
for src in "$out"/v3/stores/*; do
  mkdir -p "$out/v4/stores"
  cp -r "$src" "$out/v4/stores/$(basename "$src")"
  python3 "$here/make-v4.py" "$out/v4/stores/$(basename "$src")"
done
