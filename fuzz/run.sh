#!/usr/bin/env bash
# Run each fuzz target for SECONDS (default 600), seeded from testdata/.
#   fuzz/run.sh [SECONDS] [TARGET...]
# Uses the machine's stable toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz needs
# nightly flags); install cargo-fuzz first: cargo install cargo-fuzz --locked.
# Crashes land in fuzz/artifacts/<target>/; keep each as a regression test.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(header event_log packed_rows json zstd_frames inbox names native_inbox)
export RUSTC_BOOTSTRAP=1
seed() {
  local t=$1 dir=corpus/$1
  mkdir -p "$dir"
  case $t in
    event_log|zstd_frames)
      find ../testdata/stores -name 'session.jsonl*' | while read -r f; do cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16)"; done ;;
    header|packed_rows|json)
      find ../testdata/stores -name 'session.jsonl' -exec cat {} + | split -l 1 - "$dir/line-" ;;
    inbox)
      grep -h '^{"type"' ../testdata/golden/messaging.*.txt | sed 's/\[ID\]/0192/; s/\[TIME\]/1/' > "$dir/records" || true ;;
    native_inbox)
      grep -h '"agent/inbox/spliced"' ../testdata/stores/*/*/*/session.jsonl | sed 's/.*"data"://; s/}$//' > "$dir/splices" || true ;;
    names)
      printf '%s' 'task/1 ü' > "$dir/a"; printf '%s' '..' > "$dir/b"; printf '/home/u/my proj' > "$dir/c" ;;
  esac
}
for t in "${targets[@]}"; do
  seed "$t"
  echo "== $t for ${secs}s"
  cargo fuzz run -O "$t" "corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 2>&1 | tail -n 12
done
