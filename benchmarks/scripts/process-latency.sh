#!/usr/bin/env bash
# Benchmark: latency of print(1) through the process sandbox (with its pre-started sandbox, the
# default, and cold) next to a bare start of the same interpreter binary from the same JVM (default
# flags, and the flags the sandbox uses), p50/p95 and ratios, in one interleaved run.
# Target (issue 2): sandbox p50 at most 1.3x the bare start.
#
#   benchmarks/scripts/process-latency.sh [ITERATIONS] [WARMUP]     (defaults 200 and 30)
#   SKIP_BUILD=1   reuse benchmarks/target as it is
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cd "$root"
if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  # a fresh file: a fixed name in /tmp could be another user's link, which a redirect as root would follow
  build_log="$(mktemp "${TMPDIR:-/tmp}/codeagent-bench-build.XXXXXX")"
  mvn -B -q -pl benchmarks -am package -DskipTests >"$build_log" 2>&1 \
    || { echo "process-latency: build failed, see $build_log" >&2; exit 2; }
fi
# benchmarks/src/main/resources/logback.xml keeps the log to warnings on stderr
exec java -XX:+UseSerialGC -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" \
  dev.codeagent.bench.ProcessLatencyBench "$@"
