#!/usr/bin/env bash
# Benchmark: ApacheBench (ab, Debian apache2-utils) on POST /v1/executions (print(1)) against a local server on
# loopback, at concurrency 16 and 64 (LEVELS) with 400 requests each, over PLACES execution places: far more clients
# than places, so most requests wait in the execution queue (http.maxQueuedExecutions, http.executionQueueWait). Every
# request must be answered 200 within the wait; prints a table of answered/refused requests, throughput and p50/p99.
#
#   benchmarks/scripts/http-load.sh [REQUESTS]        (default 400 per level)
#   LEVELS="16 64"  the concurrency levels
#   PLACES=4        execution places (http.maxConcurrentExecutions and sandbox.maxConcurrent)
#   QUEUED=64       http.maxQueuedExecutions (a level above PLACES + QUEUED is refused in part, by design)
#   SKIP_BUILD=1    reuse codeagent-dist/target as it is
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cd "$root"
requests="${1:-400}"
levels="${LEVELS:-16 64}"
cores="$(nproc)"
places="${PLACES:-4}"
queued="${QUEUED:-64}"
command -v ab >/dev/null || { echo "http-load: needs ApacheBench (ab): apt-get install apache2-utils" >&2; exit 2; }

if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  # a fresh file: a fixed name in /tmp could be another user's link, which a redirect as root would follow
  build_log="$(mktemp "${TMPDIR:-/tmp}/codeagent-http-bench-build.XXXXXX")"
  mvn -B -q -pl codeagent-dist -am package -DskipTests >"$build_log" 2>&1 \
    || { echo "http-load: build failed, see $build_log" >&2; exit 2; }
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

key="bench-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
hash="$(printf %s "$key" | sha256sum | cut -d' ' -f1)"
cat >"$work/config.yaml" <<YAML
sandbox: {kind: process, maxConcurrent: $places}
store: {kind: memory}
http:
  host: 127.0.0.1
  port: 0
  maxConcurrentExecutions: $places
  maxQueuedExecutions: $queued
  executionQueueWait: 60s
  auth:
    keys:
      - {name: bench, sha256: $hash, rateLimitPerMinute: 1000000}
YAML

java \
  -jar codeagent-dist/target/codeagent-serve.jar serve --config "$work/config.yaml" >"$work/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 300); do
  url="$(grep -o 'listening on http://[0-9.:]*' "$work/server.log" | head -1 | cut -d' ' -f3 || true)"
  [[ -n "$url" ]] && break
  kill -0 "$server_pid" 2>/dev/null || { echo "http-load: the server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { echo "http-load: the server did not report its address" >&2; exit 1; }

echo "http-load: $url, $cores cores, $places execution places, $queued may queue, $requests requests per level (ab)"
printf '{"language":"python","code":"print(1)"}' >"$work/body.json"
# one warm-up, so the first level does not pay for the sandbox's first start
ab -q -l -n 2 -c 1 -p "$work/body.json" -T application/json -H "Authorization: Bearer $key" "$url/v1/executions" \
  >/dev/null 2>&1 || { echo "http-load: the warm-up requests failed" >&2; exit 1; }

echo
echo "| clients | requests | 200 | refused (non-2xx) | failed | req/s | p50 | p99 | longest |"
echo "|---|---|---|---|---|---|---|---|---|"
status=0
for c in $levels; do
  out="$work/ab-$c.txt"
  # -l: the answers differ in length (timings), which ab would otherwise count as failures; -s: ab's own timeout
  # beyond the queue wait, so a request the server holds is never cut off by the client
  ab -q -l -s 120 -n "$requests" -c "$c" -p "$work/body.json" -T application/json \
    -H "Authorization: Bearer $key" "$url/v1/executions" >"$out" 2>&1 \
    || { echo "http-load: ab failed at concurrency $c:" >&2; cat "$out" >&2; exit 1; }
  complete="$(awk '/^Complete requests:/ {print $3}' "$out")"
  failed="$(awk '/^Failed requests:/ {print $3}' "$out")"
  non2xx="$(awk '/^Non-2xx responses:/ {print $3}' "$out")"
  non2xx="${non2xx:-0}"
  rps="$(awk '/^Requests per second:/ {print $4}' "$out")"
  p50="$(awk '$1 == "50%" {print $2}' "$out")"
  p99="$(awk '$1 == "99%" {print $2}' "$out")"
  longest="$(awk '$1 == "100%" {print $2}' "$out")"
  ok=$(( complete - failed - non2xx ))
  echo "| $c | $requests | $ok | $non2xx | $failed | $rps | ${p50} ms | ${p99} ms | ${longest} ms |"
  [[ "$ok" == "$requests" ]] || status=1
done
if [[ $status != 0 ]]; then
  kept="$(mktemp "${TMPDIR:-/tmp}/codeagent-http-load-server.XXXXXX")"
  cp "$work/server.log" "$kept"
  echo "http-load: not every request was answered 200 (server log: $kept)" >&2
  exit 1
fi
