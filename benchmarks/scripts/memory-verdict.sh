#!/usr/bin/env bash
# Benchmark: a program that touches 1 GiB under --memory 256m --timeout 2s, in Python, C, Go, Java and JavaScript, on
# every tier (process pre-started and cold, docker runc and runsc where the engine and image are there): the verdict of
# each run (a contest user expects MEMORY_LIMIT) and the time from the breach to the run's end (its last line under
# the limit to execute()'s return), p50 and max.
#
#   benchmarks/scripts/memory-verdict.sh [RUNS] [TIERS]     (defaults 5, process,process-cold,runc,runsc)
#   SKIP_BUILD=1   reuse benchmarks/target as it is
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cd "$root"
if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  # a fresh file: a fixed name in /tmp could be another user's link, which a redirect as root would follow
  build_log="$(mktemp "${TMPDIR:-/tmp}/codeagent-bench-build.XXXXXX")"
  mvn -B -q -pl benchmarks -am package -DskipTests >"$build_log" 2>&1 \
    || { echo "memory-verdict: build failed, see $build_log" >&2; exit 2; }
fi
exec java -XX:+UseSerialGC -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" \
  dev.codeagent.bench.MemoryVerdictBench "$@"
