#!/usr/bin/env bash
# Try the plugin offline: the real `dsh` rc.8 CLI (pinned, from npm) runs with
# the plugin loaded and its model a local scripted fake (the root delegates to
# a reviewer child; every agent answers "Done: ..."; a message containing LONG
# keeps its turn open until interrupted). It prints the commands to type in
# another terminal and runs until Ctrl-C; the store is a temporary directory,
# removed when it stops. Needs network access once (npm), no API key.
#   scripts/try-plugin.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/plugin-env.sh
exec node ../scripts/rc8/walkthrough.mjs --try
