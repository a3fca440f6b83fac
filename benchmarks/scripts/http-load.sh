#!/usr/bin/env bash
# Benchmark: N concurrent clients on POST /v1/executions (print(1)) against a local server on
# loopback, at a baseline of 1 client, at the level the server sustains (its execution places) and
# at twice that. Prints throughput, p50/p99 of answered and of refused requests, errors, and
# throughput against the baseline. Overload must be refused fast (503 + Retry-After), not queued.
#
#   benchmarks/scripts/http-load.sh [REQUESTS] [SECONDS]     (defaults 400 and 60: per level, whichever ends first)
#   PLACES=4      execution places (http.maxConcurrentExecutions; default: sandbox.maxConcurrent = 2 x cores)
#   SKIP_BUILD=1  reuse codeagent-dist/target as it is
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cd "$root"
requests="${1:-400}"
seconds="${2:-60}"
cores="$(nproc)"
places="${PLACES:-$(( cores * 2 > 2 ? cores * 2 : 2 ))}"

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

echo "http-load: $url, $cores cores, $places execution places, $requests requests or ${seconds}s per level"
java benchmarks/src/main/java/dev/codeagent/bench/HttpLoadBench.java --url "$url" --key "$key" \
  --levels "1,$places,$(( places * 2 ))" --requests "$requests" --seconds "$seconds"
