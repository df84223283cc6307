#!/usr/bin/env bash
# Unpack DSH's own session-format codecs and migrations (packages.txt) into
# DIR/node_modules without `npm install`: their declared dependencies are not
# all published, so each tarball is fetched with `npm pack`, checked against
# its pinned integrity, and unpacked; the one import nobody published
# (`AssistantStreamAccumulator` of dsh-llm >= 0.1.3) comes from shims/.
#   setup.sh DIR      (needs node >= 22 and npm on PATH)
set -euo pipefail
dir=${1:?usage: setup.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/tarballs" "$dir/node_modules/@deepseek-ai"
grep -v '^#' "$here/packages.txt" | while read -r spec integrity; do
  [ -n "$spec" ] || continue
  name=${spec%@*}
  tgz=$(cd "$dir/tarballs" && npm pack --silent "@deepseek-ai/$spec")
  got="sha512-$(openssl dgst -sha512 -binary "$dir/tarballs/$tgz" | base64 -w0)"
  if [ "$got" != "$integrity" ]; then
    echo "setup.sh: $spec: integrity $got, pinned $integrity" >&2
    exit 1
  fi
  rm -rf "$dir/node_modules/@deepseek-ai/$name"
  mkdir -p "$dir/node_modules/@deepseek-ai/$name"
  tar xzf "$dir/tarballs/$tgz" -C "$dir/node_modules/@deepseek-ai/$name" --strip-components=1
done
rm -rf "$dir/node_modules/@deepseek-ai/dsh-llm"
cp -r "$here/shims/dsh-llm" "$dir/node_modules/@deepseek-ai/dsh-llm"
cp "$here/migrate.mjs" "$dir/"
echo '{"type":"module"}' > "$dir/package.json"
