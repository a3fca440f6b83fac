#!/usr/bin/env bash
# Benchmark: what a build's process tier costs per run, against another build, in one script. Both run the same
# workload — the 164 HumanEval references with their tests appended to the program (the self-test before the
# split judge), 4 workers, one sandbox per JVM — from one source (SandboxCost.java), rounds alternating.
# Prints each round's wall time, the medians and the ratio. Issue 10's target: not slower than the build
# before the whole-run limits (4a1c64e~1).
#
#   benchmarks/scripts/sandbox-cost.sh BASELINE_DIR [ROUNDS] [WORKERS]      (defaults 5 and 4)
#   BASELINE_DIR: a checkout of the other build, packaged, e.g.
#     git worktree add /tmp/base 4a1c64e~1 && (cd /tmp/base && mvn -B -q -DskipTests -pl adapter-cli -am package)
#   CODEAGENT_DATA=DIR   where HumanEval.jsonl is (default: ../shared/data beside the repo)
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
base="${1:?usage: sandbox-cost.sh BASELINE_DIR [ROUNDS] [WORKERS]}"
rounds="${2:-5}"
workers="${3:-4}"
data="${CODEAGENT_DATA:-$root/../shared/data}/HumanEval.jsonl"
[[ -f "$data" ]] || { echo "sandbox-cost: $data not found (set CODEAGENT_DATA)" >&2; exit 2; }

# the classpath of a packaged build: the distribution's jar (or, before it existed, the CLI's) and its lib/
classpath() {
  local d
  for d in "$1/codeagent-dist/target" "$1/adapter-cli/target"; do
    local jar
    jar="$(ls "$d"/*.jar 2>/dev/null | grep -v -- '-serve.jar' | head -1 || true)"
    if [[ -n "$jar" && -d "$d/lib" ]]; then
      echo "$jar:$d/lib/*"
      return
    fi
  done
  echo "sandbox-cost: no packaged build under $1 (package it first)" >&2
  exit 2
}

"$root/codeagent" --version >/dev/null   # builds this checkout if its sources changed
ours="$(classpath "$root")"
theirs="$(classpath "$base")"
src="$root/benchmarks/scripts/SandboxCost.java"

one() {
  local out
  out="$(java -XX:+UseSerialGC -cp "$1" "$src" "$data" "$workers" 2>/dev/null | tail -1)"
  [[ "$out" == *" 164/164" ]] || { echo "sandbox-cost: a round did not pass every reference: '$out'" >&2; exit 1; }
  echo "${out%% *}"
}

a=(); b=()
for ((i = 1; i <= rounds; i++)); do
  a+=("$(one "$ours")")
  b+=("$(one "$theirs")")
  echo "round $i: this build ${a[-1]} ms, baseline ${b[-1]} ms"
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
ma="$(median "${a[@]}")"; mb="$(median "${b[@]}")"
echo "HumanEval references, tests appended, $workers workers, $(nproc) cores, median of $rounds:"
echo "  this build  $ma ms"
echo "  baseline    $mb ms ($base)"
echo "  ratio       $(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.2f", a / b}')"
