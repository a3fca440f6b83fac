#!/usr/bin/env bash
# Benchmark (issue 16): `codeagent eval` on the process tier against the human-eval-style reference harness
# (benchmarks/scripts/reference_harness.py: a Manager and a forked Process per sample, 4 threads, 3 s timeout,
# unisolated), on the three workloads the issue names, in one run on this machine:
#
#   1. 1,640 HumanEval samples (the 164 canonical solutions, 10 copies each)   throughput, target >= 3x
#   2. the 164 canonical solutions, whole command (JVM start-up included)       wall,       target <= 0.75x
#   3. MBPP's 500 test problems (ids 11-510), their reference code              throughput, target >= 2x
#   4. a heavy suite (benchmarks/scripts/heavy_suite.py: HumanEval's problems with ~170 asserts each on
#      generated inputs, as modern benchmarks test; its 141 references)             throughput, target >= 1x
#
# (Issue 30 restated the targets for the split judge: >= 2x on 1, <= 0.75x on 2, >= 1.5x on 3, >= 1x on 4.)
#
# Throughput is samples per second of evaluating (each harness's own wallTimeMs: the JVM's or interpreter's start
# aside); "wall" is the whole command. ./codeagent hands `eval` to its warm background process (one JVM kept between
# commands, with its sandbox and zygote; started by the first command and not timed here); workload 2 also gives the
# command in a JVM of its own (--no-daemon), the JVM's start included. Each codeagent figure is also given with the zygote off
# (--set sandbox.process.zygote=off: every sample starts its own sandbox and interpreter, the path before it) as the
# in-script baseline. Median of $RUNS runs each.
#
#   RUNS=3                 runs of each (median reported)
#   CODEAGENT_DATA=DIR     where HumanEval.jsonl and mbpp.jsonl are (default: ../shared/data beside the repo)
#   ONLY="1 2 3 4"         which workloads
#   ZYGOTE_OFF=0           leave out the zygote-off baseline (the longest part of a run)
#   SMOKE=1                CI's smoke run: one run each, 164 HumanEval samples for workload 1, workloads 1 and 4
#                          only, the zygote-off baseline left out; ratios printed, never asserted
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
data="${CODEAGENT_DATA:-$root/../shared/data}"
python=/usr/bin/python3.11
runs="${RUNS:-3}"
only="${ONLY:-1 2 3 4}"
smoke="${SMOKE:-}"
zygote_off="${ZYGOTE_OFF:-1}"
copies=10
if [[ -n $smoke ]]; then
  runs=1
  only="${ONLY:-1 4}"
  copies=1
  zygote_off=0
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/codeagent-throughput.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
for f in HumanEval.jsonl mbpp.jsonl; do
  [[ -f "$data/$f" ]] || { echo "eval-throughput: $data/$f not found (set CODEAGENT_DATA)" >&2; exit 2; }
done
"$root/codeagent" --version >/dev/null
export CODEAGENT_SKIP_BUILD=1
# the background process up before anything is timed
"$root/codeagent" eval --problems "$data/HumanEval.jsonl" --sandbox process --json >/dev/null

"$python" - "$data" "$tmp" "$copies" <<'EOF'
import json, sys
data, tmp, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(tmp + "/he1640.jsonl", "w") as out:
    for line in open(data + "/HumanEval.jsonl"):
        p = json.loads(line)
        for _ in range(copies):
            out.write(json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n")
with open(tmp + "/mbpp-test.jsonl", "w") as out:
    for line in open(data + "/mbpp.jsonl"):
        if 11 <= json.loads(line)["task_id"] <= 510:
            out.write(line)
EOF
"$python" "$root/benchmarks/scripts/heavy_suite.py" "$data" "$tmp/heavy.jsonl"

now_ms() { date +%s%3N; }
# measure NAME CMD...: runs CMD $runs times; prints "<median whole-command ms> <median inner wallTimeMs> <passed>/<total>"
measure() {
  local name="$1"; shift
  local walls=() inners=()
  for ((i = 0; i < runs; i++)); do
    local t0 t1
    t0="$(now_ms)"
    "$@" >"$tmp/$name.json" || true
    t1="$(now_ms)"
    walls+=($((t1 - t0)))
    inners+=("$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["wallTimeMs"])' "$tmp/$name.json")")
  done
  local mw mi
  mw="$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  mi="$(printf '%s\n' "${inners[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  echo "$mw $mi $("$python" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%d/%d" % (d["passed"], d["total"]))' "$tmp/$name.json")"
}

row() { printf '  %-44s %8.2f s whole  %8.2f s evaluating  %7.1f samples/s  (%s)\n' "$1" "$(bc -l <<<"$2/1000")" \
  "$(bc -l <<<"$3/1000")" "$(bc -l <<<"$5*1000/$3")" "$4"; }

# workload NAME PROBLEMS SAMPLES(or -) COUNT
workload() {
  local name="$1" problems="$2" samples="$3" n="$4"
  local ref_samples=() ca_samples=()
  if [[ "$samples" != - ]]; then ref_samples=(--samples "$samples"); ca_samples=(--samples "$samples"); fi
  read -r rw ri rp < <(measure "$name-ref" "$python" "$root/benchmarks/scripts/reference_harness.py" "$problems" "${ref_samples[@]}" --json)
  read -r cw ci cp < <(measure "$name-ca" "$root/codeagent" eval --problems "$problems" "${ca_samples[@]}" --sandbox process --json)
  row "reference harness (fork, 4 threads, unisolated)" "$rw" "$ri" "$rp" "$n"
  row "codeagent eval, zygote (default)" "$cw" "$ci" "$cp" "$n"
  if [[ $zygote_off == 1 ]]; then
    read -r ow oi op < <(measure "$name-off" "$root/codeagent" eval --problems "$problems" "${ca_samples[@]}" --sandbox process --json \
      --set sandbox.process.zygote=off)
    row "codeagent eval, zygote off" "$ow" "$oi" "$op" "$n"
  fi
  if [[ "${5-}" == own-jvm ]]; then
    read -r jw ji jp < <(measure "$name-jvm" "$root/codeagent" --no-daemon eval --problems "$problems" "${ca_samples[@]}" \
      --sandbox process --json)
    row "codeagent eval, zygote, own JVM (--no-daemon)" "$jw" "$ji" "$jp" "$n"
    printf '  whole-command wall, own JVM / reference: %.2fx\n' "$(bc -l <<<"$jw/$rw")"
  fi
  printf '  throughput codeagent / reference: %.2fx   whole-command wall codeagent / reference: %.2fx\n' \
    "$(bc -l <<<"$ri/$ci")" "$(bc -l <<<"$cw/$rw")"
  [[ $zygote_off != 1 ]] || printf '  zygote on / off: throughput %.2fx, whole-command wall %.2fx\n' "$(bc -l <<<"$oi/$ci")" "$(bc -l <<<"$cw/$ow")"
}

echo "eval throughput, process tier; $(nproc) cores; median of $runs runs"
if [[ " $only " == *" 1 "* ]]; then
  echo "1. HumanEval, $((164 * copies)) samples (164 canonical solutions x $copies)   target: throughput >= 2x the reference"
  workload he1640 "$data/HumanEval.jsonl" "$tmp/he1640.jsonl" $((164 * copies))
fi
if [[ " $only " == *" 2 "* ]]; then
  echo "2. HumanEval, the 164 canonical solutions                     target: whole-command wall <= 0.75x the reference"
  workload he164 "$data/HumanEval.jsonl" - 164 own-jvm
fi
if [[ " $only " == *" 3 "* ]]; then
  echo "3. MBPP test split (ids 11-510), reference code               target: throughput >= 1.5x the reference"
  workload mbpp "$tmp/mbpp-test.jsonl" - 500
fi
if [[ " $only " == *" 4 "* ]]; then
  heavy_n="$(wc -l <"$tmp/heavy.jsonl")"
  echo "4. heavy suite, $heavy_n references, ~170 calls each (heavy_suite.py)  target: throughput >= 1x the reference"
  workload heavy "$tmp/heavy.jsonl" - "$heavy_n"
fi
