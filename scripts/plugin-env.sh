#!/usr/bin/env bash
# Sourced by scripts/test-plugin.sh and scripts/try-plugin.sh (from the
# repository root): puts Node 22 on PATH (when the machine's node is older,
# the pinned Node 22 is unpacked from the npm registry into target/node22),
# installs dsh-plugin's packages from its committed lock file (the pinned
# rc.8 `dsh` CLI among them; again only when missing or stale), builds
# dsh-agents, and exports DSH_AGENTS_BIN (the binary cargo just built,
# wherever its target directory is) unless it is set. Leaves the shell in
# dsh-plugin/.
NODE_VERSION=22.23.3
major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(major)" -lt 22 ]; then
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "no pinned Node 22 for $(uname -m)" >&2; exit 1 ;;
  esac
  dir="$PWD/target/node22"
  if [ ! -x "$dir/package/bin/node" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "node-linux-$arch@$NODE_VERSION" >/dev/null \
      && tar xzf "node-linux-$arch-$NODE_VERSION.tgz" && rm -f "node-linux-$arch-$NODE_VERSION.tgz")
  fi
  export PATH="$dir/package/bin:$PATH"
fi
echo "node $(node --version)" >&2
cd dsh-plugin
stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  npm install --before 2026-08-24T15:00:00Z --no-audit --no-fund --silent
fi
(cd .. && cargo build --quiet)
# The binary under test is the one cargo just built, wherever its target
# directory is (CARGO_TARGET_DIR, a config's build.target-dir).
if [ -z "${DSH_AGENTS_BIN:-}" ]; then
  target_dir=$(cd .. && cargo metadata --format-version 1 --no-deps | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')
  export DSH_AGENTS_BIN="$target_dir/debug/dsh-agents"
fi
