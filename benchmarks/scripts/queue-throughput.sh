#!/usr/bin/env bash
# Benchmark (issue 17): what the PostgreSQL queue costs. The same work - ITEMS print(1)-sized programs, as an IO
# problem set (each program prints 1, the host compares) - is evaluated
#
#   local      codeagent eval in this machine's process sandbox, no queue (the baseline)
#   queue K    codeagent eval --queue with K `codeagent worker` processes on this machine (K in $WORKERS)
#
# in one script, against a throwaway PostgreSQL cluster it starts (Debian's postgresql; fsync on, default settings).
# Reported: items/s of evaluating (the command's own wallTimeMs, the JVM's start aside), the ratio to the local
# row, and the workers' claim time per item (codeagent_worker_execution_claim_seconds from their /metrics: one
# transaction each). Every command runs in a JVM of its own (CODEAGENT_NO_DAEMON=1). Median of $RUNS runs.
#
#   ITEMS=300   programs per evaluation
#   RUNS=3      runs of each row (median reported)
#   WORKERS="1 2 3"
#   PLACES=4    executions at once per process (sandbox.maxConcurrent; the local row's --workers too)
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
items="${ITEMS:-300}"
runs="${RUNS:-3}"
workers_list="${WORKERS:-1 2 3}"
places="${PLACES:-4}"
pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[[ -x "$pgbin/initdb" ]] || { echo "queue-throughput: no PostgreSQL server binaries (apt-get install postgresql)" >&2; exit 2; }

# The cluster's superuser can run commands as the server's OS user (COPY ... TO PROGRAM) and sees the queue, so
# another local user reaching the loopback port must not get in: a random password of this cluster's own (SCRAM),
# the unix socket in the server's 0700 directory, and the password only in 0600 files under 0700 directories.
tmp="$(mktemp -d "${TMPDIR:-/tmp}/codeagent-queue.XXXXXX")"
chmod 711 "$tmp" # the server user must reach $tmp/pg; nobody else may list or write here
(umask 077 && mkdir "$tmp/pg")
password="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
(umask 077 && printf '%s\n' "$password" >"$tmp/pg/pwfile")
as=()
if [[ "$(id -u)" == 0 ]]; then
  # the server refuses to run as root; both were made just now in a directory only root can write
  chown postgres "$tmp/pg/pwfile" "$tmp/pg"
  as=(runuser -u postgres --)
fi
worker_pids=()
cleanup() {
  for p in "${worker_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "${as[@]}" "$pgbin/pg_ctl" -D "$tmp/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  # the server user empties its own tree; root then removes what is left of ours
  "${as[@]}" find "$tmp/pg" -mindepth 1 -delete 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"${as[@]}" "$pgbin/initdb" -D "$tmp/pg/data" -U codeagent --auth=scram-sha-256 --pwfile="$tmp/pg/pwfile" \
  -E UTF8 --locale=C >/dev/null
"${as[@]}" rm -f "$tmp/pg/pwfile"
"${as[@]}" "$pgbin/pg_ctl" -D "$tmp/pg/data" -l "$tmp/pg/server.log" \
  -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$tmp/pg -c max_connections=200" -w start >/dev/null
PGPASSWORD="$password" "$pgbin/createdb" -w -h 127.0.0.1 -p "$port" -U codeagent codeagent

(umask 077 && cat >"$tmp/config.yaml") <<EOF
store:
  kind: postgres
  postgres:
    jdbcUrl: jdbc:postgresql://127.0.0.1:$port/codeagent
    user: codeagent
    password: '$password'
sandbox:
  kind: process
  maxConcurrent: $places
EOF
python3 - "$items" "$tmp/items.jsonl" <<'EOF'
import json, sys
n, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as out:
    for i in range(n):
        out.write(json.dumps({"task_id": "q/%d" % i, "prompt": "print 1", "language": "python",
                              "tests": [{"input": "", "output": "1\n"}], "solution": "print(1)\n"}) + "\n")
EOF

"$root/codeagent" --version >/dev/null # builds on first use
export CODEAGENT_SKIP_BUILD=1 CODEAGENT_NO_DAEMON=1 CODEAGENT_CONFIG="$tmp/config.yaml"

# evaluate NAME ARGS...: one evaluation; prints "<wallTimeMs> <passed>/<total>"
evaluate() {
  local name="$1"; shift
  "$root/codeagent" eval --problems "$tmp/items.jsonl" --json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" || true
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["wallTimeMs"], "%d/%d" % (r["passed"], r["total"]))' "$tmp/$name.json" \
    || { echo "queue-throughput: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
}

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# metric PORT NAME: one value from a worker's /metrics
metric() {
  python3 -c 'import re, sys, urllib.request
body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
print(re.search(r"(?m)^%s (\S+)$" % re.escape(sys.argv[2]), body).group(1))' "$1" "$2"
}

start_workers() {
  local k="$1" i
  worker_pids=()
  worker_ports=()
  for ((i = 1; i <= k; i++)); do
    "$root/codeagent" worker --metrics-port 0 >/dev/null 2>"$tmp/worker$i.err" &
    worker_pids+=("$!")
  done
  for ((i = 1; i <= k; i++)); do
    local port_i=""
    for _ in $(seq 600); do
      port_i="$(grep -o 'metrics at http://127.0.0.1:[0-9]*' "$tmp/worker$i.err" 2>/dev/null | sed 's/.*://' || true)"
      [[ -n "$port_i" ]] && break
      sleep 0.1
    done
    [[ -n "$port_i" ]] || { echo "queue-throughput: worker $i did not start:" >&2; cat "$tmp/worker$i.err" >&2; exit 1; }
    worker_ports+=("$port_i")
  done
}

stop_workers() {
  for p in "${worker_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${worker_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  worker_pids=()
}

printf '%-10s %10s %10s %8s %14s %s\n' row "items/s" "wall ms" ratio "claim ms/item" passed
walls=()
for ((r = 0; r < runs; r++)); do
  read -r ms passed < <(evaluate local --workers "$places")
  [[ -n "$ms" ]] || exit 1
  walls+=("$ms")
done
local_ms="$(median "${walls[@]}")"
printf '%-10s %10.1f %10d %8s %14s %s\n' local "$(echo "$items * 1000 / $local_ms" | bc -l)" "$local_ms" 1.00 - "$passed"

for k in $workers_list; do
  start_workers "$k"
  walls=()
  for ((r = 0; r < runs; r++)); do
    read -r ms passed < <(evaluate "queue$k" --queue --workers 64)
    [[ -n "$ms" ]] || exit 1
    walls+=("$ms")
  done
  claims=0 seconds=0
  for port_i in "${worker_ports[@]}"; do
    claims="$(echo "$claims + $(metric "$port_i" codeagent_worker_execution_claims_total)" | bc -l)"
    seconds="$(echo "$seconds + $(metric "$port_i" codeagent_worker_execution_claim_seconds_sum)" | bc -l)"
  done
  stop_workers
  ms="$(median "${walls[@]}")"
  printf '%-10s %10.1f %10d %8.2f %14.2f %s\n' "queue $k" "$(echo "$items * 1000 / $ms" | bc -l)" "$ms" \
    "$(echo "$local_ms / $ms" | bc -l)" "$(echo "$seconds * 1000 / $claims" | bc -l)" "$passed"
done
