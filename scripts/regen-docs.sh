#!/usr/bin/env bash
# Regenerate the committed man pages and shell completions from the binary
# (a test fails when they drift from it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
B=target/debug/dsh-agents
for f in man/dsh-agents-*.1; do c=${f#man/dsh-agents-}; c=${c%.1}; $B man "$c" > "$f"; done
$B man > man/dsh-agents.1
$B completions bash > completions/dsh-agents.bash
$B completions zsh > completions/_dsh-agents
$B completions fish > completions/dsh-agents.fish
$B completions elvish > completions/dsh-agents.elv
$B completions powershell > completions/_dsh-agents.ps1
