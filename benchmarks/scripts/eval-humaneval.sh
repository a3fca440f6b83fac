#!/usr/bin/env bash
# Benchmark: `codeagent eval` against a human-eval-style reference harness, in one go on this machine.
#
# Both check the 164 canonical HumanEval solutions. The reference (benchmarks/scripts/reference_harness.py) runs
# each in a fresh multiprocessing Process with a Manager, 3 s timeout, 4 threads, as openai/human-eval
# does, unisolated; codeagent runs each as its own sandboxed process (process tier). Wall times are of
# the whole command, interpreter or JVM start-up included; each is the median of $RUNS runs.
#
#   RUNS=3                      runs of each (median reported)
#   WORKERS=N                   codeagent --workers (default: its own default)
#   SPAWN=1                     also time the reference with the spawn start method (a fresh
#                               interpreter per Process and Manager: human-eval on macOS/Windows)
#   CODEAGENT_DATA=DIR          where HumanEval.jsonl is (default: ../shared/data beside the repo)
#   CODEAGENT_CMD="cmd args"    how to run codeagent (default: ./codeagent, else the CLI jar)
#   BASELINE_CMD="cmd args"     also time another codeagent (e.g. an earlier commit's ./codeagent) the same way,
#                               and print codeagent's ratio to it (how a change moved the self-test)
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
data="${CODEAGENT_DATA:-$root/../shared/data}/HumanEval.jsonl"
python=/usr/bin/python3.11
runs="${RUNS:-3}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/codeagent-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

[[ -f "$data" ]] || { echo "eval-humaneval: $data not found (set CODEAGENT_DATA)" >&2; exit 2; }
[[ -x "$python" ]] || { echo "eval-humaneval: $python not found" >&2; exit 2; }

# the launcher when it exists (it builds when sources changed: do that now, outside the timing)
if [[ -n "${CODEAGENT_CMD-}" ]]; then
  read -r -a codeagent <<<"$CODEAGENT_CMD"
elif [[ -x "$root/codeagent" ]]; then
  codeagent=("$root/codeagent")
  "$root/codeagent" --version >/dev/null
  # built now: never rebuild inside a timed run
  export CODEAGENT_SKIP_BUILD=1
else
  jar="$root/codeagent-dist/target/codeagent.jar"
  [[ -f "$jar" ]] || (cd "$root" && mvn -B -q -DskipTests -pl codeagent-dist -am package)
  codeagent=(java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -jar "$jar")
fi
workers=()
[[ -n "${WORKERS-}" ]] && workers=(--workers "$WORKERS")

now_ms() { date +%s%3N; }

# time_runs NAME CMD...: runs CMD $runs times, keeps the JSON of the last run in $tmp/NAME.json,
# and prints the median wall time in ms
time_runs() {
  local name="$1"; shift
  local times=()
  for ((i = 0; i < runs; i++)); do
    local t0 t1
    t0="$(now_ms)"
    "$@" >"$tmp/$name.json"
    t1="$(now_ms)"
    times+=($((t1 - t0)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

passed() { "$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); print("%d/%d" % (d["passed"], d["total"]))' "$1"; }

echo "HumanEval canonical solutions: $(wc -l <"$data") problems; $(nproc) cores; median of $runs runs"

ref_ms="$(time_runs reference "$python" "$root/benchmarks/scripts/reference_harness.py" "$data" --json)"
printf '%-44s %7.2f s  (%s passed)\n' "reference harness (fork, 4 threads, unisolated)" "$(bc -l <<<"$ref_ms / 1000")" "$(passed "$tmp/reference.json")"

if [[ "${SPAWN-}" == 1 ]]; then
  spawn_ms="$(runs=1 time_runs spawn "$python" "$root/benchmarks/scripts/reference_harness.py" "$data" --json --start-method spawn)"
  printf '%-44s %7.2f s  (%s passed)\n' "reference harness (spawn, 4 threads, 1 run)" "$(bc -l <<<"$spawn_ms / 1000")" "$(passed "$tmp/spawn.json")"
fi

ca_ms="$(time_runs codeagent "${codeagent[@]}" eval --problems "$data" --sandbox process --json "${workers[@]}")"
inner_ms="$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["wallTimeMs"])' "$tmp/codeagent.json")"
ca_workers="$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["workers"])' "$tmp/codeagent.json")"
printf '%-44s %7.2f s  (%s passed; %.2f s evaluating, JVM start-up aside)\n' \
  "codeagent eval (process sandbox, $ca_workers workers)" "$(bc -l <<<"$ca_ms / 1000")" "$(passed "$tmp/codeagent.json")" \
  "$(bc -l <<<"$inner_ms / 1000")"

if [[ -n "${BASELINE_CMD-}" ]]; then
  read -r -a baseline <<<"$BASELINE_CMD"
  base_ms="$(time_runs baseline "${baseline[@]}" eval --problems "$data" --sandbox process --json "${workers[@]}")"
  printf '%-44s %7.2f s  (%s passed)\n' "baseline: $BASELINE_CMD" "$(bc -l <<<"$base_ms / 1000")" "$(passed "$tmp/baseline.json")"
  printf 'ratio codeagent / baseline:          %.2f\n' "$(bc -l <<<"$ca_ms / $base_ms")"
fi
printf 'ratio codeagent / reference (fork):  %.2f  (target: at most 0.33)\n' "$(bc -l <<<"$ca_ms / $ref_ms")"
if [[ -n "${spawn_ms-}" ]]; then
  printf 'ratio codeagent / reference (spawn): %.2f\n' "$(bc -l <<<"$ca_ms / $spawn_ms")"
fi
