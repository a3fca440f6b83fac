#!/usr/bin/env bash
# flock-channel.sh — the covert channel docs/security-model.md states between two concurrent runs of the process
# tier: a sender locks or unlocks a file of the shared read-only /usr once per time slot, a receiver in another
# sandbox probes the lock in the middle of each slot. Prints, per slot length, how many of N random bits arrived
# wrong; the channel's bandwidth is the fastest slot with few errors. Both programs are ordinary `codeagent exec`
# runs (cold, --no-daemon), started so that they overlap; the slots start at a wall-clock time both read.
#
#   benchmarks/scripts/flock-channel.sh [SLOT_MS ...]     (default: 20 5 2 1)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cli="$root/codeagent"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/sender.py" <<'PY'
import fcntl, os, random, sys, time
slot, start, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
random.seed(7)
bits = [random.getrandbits(1) for _ in range(n)]
fd = os.open("/usr/lib/os-release", os.O_RDONLY)
for i, b in enumerate(bits):
    t = start + i * slot
    while time.time() < t:
        pass
    fcntl.flock(fd, fcntl.LOCK_EX if b else fcntl.LOCK_UN)
fcntl.flock(fd, fcntl.LOCK_UN)
PY
cat >"$work/receiver.py" <<'PY'
import fcntl, os, random, sys, time
slot, start, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
random.seed(7)
bits = [random.getrandbits(1) for _ in range(n)]
fd = os.open("/usr/lib/os-release", os.O_RDONLY)
got = []
for i in range(n):
    t = start + i * slot + slot / 2
    while time.time() < t:
        pass
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        got.append(0)
    except BlockingIOError:
        got.append(1)
errors = sum(a != b for a, b in zip(bits, got))
print(f"slot {slot * 1000:6.2f} ms  {1 / slot:7.0f} bit/s  {n} bits  {errors} wrong ({100 * errors / n:.1f}%)")
PY
"$cli" --no-daemon version >/dev/null
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
for ms in "${@:-20 5 2 1}"; do
  for slot_ms in $ms; do
    slot=$(awk -v m="$slot_ms" 'BEGIN {print m / 1000}')
    n=$(awk -v s="$slot" 'BEGIN {n = int(2 / s); print (n > 2000 ? 2000 : n)}')
    start=$(python3 -c 'import time; print(time.time() + 8)')
    "$cli" --no-daemon exec --timeout 30s "$work/sender.py" "$slot" "$start" "$n" >/dev/null &
    "$cli" --no-daemon exec --timeout 30s "$work/receiver.py" "$slot" "$start" "$n"
    wait
  done
done
