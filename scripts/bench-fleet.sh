#!/usr/bin/env bash
# Cross-host followups on one machine: a 3-node hub on loopback (the pinned
# nats-server), two stores as hosts `a` and `b` with their daemons (release
# build). Prints four lines:
#   latency: N sends from a to b:lead, one at a time, each `--wait accepted`
#     (queued → in b's inbox), wall time of each whole command: median, p95, max;
#   remote read: N `inbox b:lead` and N `log b:lead --last 1` run on a
#     (asked of b's daemon over the hub), each whole command: median, p95, max;
#   throughput: M sends queued in a's outbox while a's daemon is stopped,
#     then the daemon started again and timed until b's inbox holds all M
#     (the fleet's own rate, without the sending commands' start-up).
# usage: scripts/bench-fleet.sh [N] [M]    (defaults 200 and 1000)
# Everything it starts is stopped, and its directory removed, however it ends.
set -euo pipefail
N=${1:-200}
M=${2:-1000}
PROFILE=release source "$(dirname "$0")/fleet/hub.sh"
start_hub a,b
for h in a b; do
  mkdir -p "$work/$h"
  "$bin" --store "$work/$h" spawn --prompt "lead the work on host $h" >/dev/null
  start_daemon "$h" "$work/$h"
  eval "daemon_$h=$daemon"
done
# A first send warms both daemons' consumers before anything is timed.
"$bin" --store "$work/a" followup b:lead "warm up" --id warm --wait accepted --timeout 60 >/dev/null
BIN="$bin" A="$work/a" B="$work/b" N="$N" M="$M" DAEMON_A="$daemon_a" NATS="$nats" \
  CREDS="$work/hub/a.nk" LOG="$work/daemon-a2.log" python3 - <<'EOF'
import os, subprocess, time, statistics
bin_, a, b, n, m = os.environ["BIN"], os.environ["A"], os.environ["B"], int(os.environ["N"]), int(os.environ["M"])
times = []
for i in range(n):
    t = time.monotonic()
    subprocess.run([bin_, "--store", a, "followup", "b:lead", f"latency {i}", "--id", f"lat-{i}",
                    "--wait", "accepted", "--timeout", "60"], check=True, stdout=subprocess.DEVNULL)
    times.append((time.monotonic() - t) * 1000)
times.sort()
p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
print(f"latency: {n} sends, --wait accepted: median {statistics.median(times):.1f} ms, "
      f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms")
# Reads of b's agent from a: asked of b's daemon over the hub, answered there.
reads = {}
for what in (["inbox", "b:lead"], ["log", "b:lead", "--last", "1"]):
    took = []
    for i in range(n):
        t = time.monotonic()
        subprocess.run([bin_, "--store", a, *what], check=True, stdout=subprocess.DEVNULL)
        took.append((time.monotonic() - t) * 1000)
    took.sort()
    print(f"remote read: {n} × `{' '.join(what)}` from a: median {statistics.median(took):.1f} ms, "
          f"p95 {took[min(n - 1, int(n * 0.95))]:.1f} ms, max {took[-1]:.1f} ms")
def pending():
    out = subprocess.run([bin_, "--store", b, "inbox", "lead", "--json"], check=True,
                         capture_output=True, text=True).stdout
    return out.count('"id": "thr-') + out.count('"id":"thr-')
os.kill(int(os.environ["DAEMON_A"]), 15)
while subprocess.run(["kill", "-0", os.environ["DAEMON_A"]], capture_output=True).returncode == 0:
    time.sleep(0.05)
for i in range(m):
    subprocess.run([bin_, "--store", a, "followup", "b:lead", f"throughput {i}", "--id", f"thr-{i}"],
                   check=True, stdout=subprocess.DEVNULL)
log = open(os.environ["LOG"], "w")
t = time.monotonic()
daemon = subprocess.Popen([bin_, "--store", a, "fleet", "run", "--host", "a", "--nats", os.environ["NATS"],
                           "--creds", os.environ["CREDS"]], stdout=log, stderr=log)
try:
    while pending() < m:
        time.sleep(0.05)
    took = time.monotonic() - t
finally:
    daemon.terminate()
    daemon.wait()
print(f"throughput: {m} queued sends, all in b's inbox {took:.2f} s after a's daemon started: "
      f"{m / took:.0f} messages/s")
EOF
