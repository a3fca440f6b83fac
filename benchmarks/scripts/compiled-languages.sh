#!/usr/bin/env bash
# Benchmark: compile + run of a hello-world per compiled language (C, C++, Java, Go, Rust) through the process
# sandbox (a compile stage and a run stage, each a sandbox of its own) next to the same two stage scripts run bare
# by Bash from the same JVM, p50 and the ratio; then the docker tier with its warm pool, when an engine and the image
# are there (third argument "no" skips it).
#
#   benchmarks/scripts/compiled-languages.sh [ITERATIONS] [WARMUP] [docker: yes|no]     (defaults 10, 2, yes)
#   SKIP_BUILD=1   reuse benchmarks/target as it is
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cd "$root"
if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  # a fresh file: a fixed name in /tmp could be another user's link, which a redirect as root would follow
  build_log="$(mktemp "${TMPDIR:-/tmp}/codeagent-bench-build.XXXXXX")"
  mvn -B -q -pl benchmarks -am package -DskipTests >"$build_log" 2>&1 \
    || { echo "compiled-languages: build failed, see $build_log" >&2; exit 2; }
fi
exec java -XX:+UseSerialGC -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" \
  dev.codeagent.bench.CompiledLanguagesBench "$@"
