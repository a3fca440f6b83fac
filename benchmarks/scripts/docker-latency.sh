#!/usr/bin/env bash
# Benchmark: latency of print(1) through the docker sandbox with its warm pool, without a pool, and
# through `docker run --rm IMAGE python3 -c 'print(1)'` from the same JVM, p50/p95 and ratios, in one
# run on the same image. Target (issue 4): with the pool, p50 at most 1/8 of `docker run --rm`.
#
#   benchmarks/scripts/docker-latency.sh [ITERATIONS] [WARMUP]     (defaults 40 and 5)
#   CODEAGENT_SANDBOX_IMAGE=name   the image (default codeagent-sandbox:latest; built if missing)
#   CODEAGENT_DOCKER_RUNTIME=runsc  gVisor, for the tier and `docker run --runtime` alike (default runc)
#   SKIP_BUILD=1                   reuse benchmarks/target as it is
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cd "$root"
image="${CODEAGENT_SANDBOX_IMAGE:-codeagent-sandbox:latest}"
docker image inspect "$image" >/dev/null 2>&1 || scripts/build-sandbox-image.sh "$image" >/dev/null
if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  # a fresh file: a fixed name in /tmp could be another user's link, which a redirect as root would follow
  build_log="$(mktemp "${TMPDIR:-/tmp}/codeagent-bench-build.XXXXXX")"
  mvn -B -q -pl benchmarks -am package -DskipTests >"$build_log" 2>&1 \
    || { echo "docker-latency: build failed, see $build_log" >&2; exit 2; }
fi
# quiet logging: without a configuration Logback logs every HTTP exchange at DEBUG, which would be measured too
logconf="$(mktemp "${TMPDIR:-/tmp}/codeagent-bench-logback.XXXXXX.xml")"
trap 'rm -f "$logconf"' EXIT
cat >"$logconf" <<'XML'
<configuration>
  <appender name="E" class="ch.qos.logback.core.ConsoleAppender"><target>System.err</target>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern></encoder></appender>
  <root level="WARN"><appender-ref ref="E"/></root>
</configuration>
XML
CODEAGENT_SANDBOX_IMAGE="$image" java -XX:+UseSerialGC -Xshare:auto -Dlogback.configurationFile="$logconf" \
  -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" dev.codeagent.bench.DockerLatencyBench "$@"
