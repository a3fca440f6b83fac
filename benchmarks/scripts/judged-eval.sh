#!/usr/bin/env bash
# Benchmark: the HumanEval self-test through the process tier with the tests appended to the program (before
# the sound judge) and with the split judge (code and tests in two sandboxes), interleaved in one run.
# Target (issue 12): the split judge at most 1.5x the appended tests' wall time.
#
#   benchmarks/scripts/judged-eval.sh [ROUNDS] [WORKERS]     (defaults 3 and 4)
#   CODEAGENT_DATA=DIR   where HumanEval.jsonl is (default: ../shared/data beside the repo)
#   SKIP_BUILD=1         reuse benchmarks/target as it is
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cd "$root"
data="${CODEAGENT_DATA:-$root/../shared/data}/HumanEval.jsonl"
[[ -f "$data" ]] || { echo "judged-eval: $data not found (set CODEAGENT_DATA)" >&2; exit 2; }
if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  # a fresh file: a fixed name in /tmp could be another user's link, which a redirect as root would follow
  build_log="$(mktemp "${TMPDIR:-/tmp}/codeagent-bench-build.XXXXXX")"
  mvn -B -q -pl benchmarks -am package -DskipTests >"$build_log" 2>&1 \
    || { echo "judged-eval: build failed, see $build_log" >&2; exit 2; }
fi
exec java -XX:+UseSerialGC -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" \
  dev.codeagent.bench.JudgedEvalBench "$data" "${1:-3}" "${2:-4}"
