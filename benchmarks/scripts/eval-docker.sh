#!/usr/bin/env bash
# Benchmark (issue 30): `codeagent eval` of HumanEval's 164 references on the docker tier against the process tier,
# in one run on this machine: the process tier (its zygote), the docker tier with a batch's samples in reusable
# containers whose zygotes fork each sample's judge and program (the default), in reusable containers without zygotes
# (sandbox.docker.zygote=off: both interpreters start afresh per sample) and with a container per sample
# (sandbox.docker.reuse=off), on runc and, when the engine has it, on gVisor (runsc). Runs alternate between the variants (round by round), so a
# load that moves affects them alike; the median of $RUNS runs of each is reported, as seconds of evaluating (the
# eval's own wallTimeMs) and as ratios. The warm background process runs every command (not timed: started first).
#
#   RUNS=3                 runs of each (median reported)
#   CODEAGENT_DATA=DIR     where HumanEval.jsonl is (default: ../shared/data beside the repo)
#   RUNSC=0                leave out gVisor
#   OFF=0                  leave out the container-per-sample baseline (the longest part)
#   SMOKE=1                CI's smoke run: one run each, gVisor's baseline left out; ratios printed, never asserted
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
data="${CODEAGENT_DATA:-$root/../shared/data}"
python=/usr/bin/python3
runs="${RUNS:-3}"
off="${OFF:-1}"
runsc="${RUNSC:-1}"
smoke="${SMOKE:-}"
[[ -z $smoke ]] || runs=1
[[ -f "$data/HumanEval.jsonl" ]] || { echo "eval-docker: $data/HumanEval.jsonl not found (set CODEAGENT_DATA)" >&2; exit 2; }
if [[ $runsc == 1 ]] && ! docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; then
  echo "eval-docker: the Docker engine has no runsc runtime; gVisor left out"
  runsc=0
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/codeagent-eval-docker.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
"$root/codeagent" --version >/dev/null
export CODEAGENT_SKIP_BUILD=1
problems="$data/HumanEval.jsonl"
# the background process, and each variant's first containers, up before anything is timed
"$root/codeagent" eval --problems "$problems" --sandbox process --json >/dev/null

declare -A args=(
  [process]="--sandbox process"
  [runc]="--sandbox docker"
  [runc-cold]="--sandbox docker --set sandbox.docker.zygote=off"
  [runc-off]="--sandbox docker --set sandbox.docker.reuse=off"
  [runsc]="--sandbox docker --set sandbox.docker.runtime=runsc"
  [runsc-cold]="--sandbox docker --set sandbox.docker.runtime=runsc --set sandbox.docker.zygote=off"
  [runsc-off]="--sandbox docker --set sandbox.docker.runtime=runsc --set sandbox.docker.reuse=off"
)
variants=(process runc runc-cold)
[[ $off != 1 ]] || variants+=(runc-off)
[[ $runsc != 1 ]] || variants+=(runsc runsc-cold)
[[ $runsc != 1 || $off != 1 || -n $smoke ]] || variants+=(runsc-off)

declare -A times
for ((i = 0; i < runs; i++)); do
  for v in "${variants[@]}"; do
    # shellcheck disable=SC2086
    "$root/codeagent" eval --problems "$problems" ${args[$v]} --json >"$tmp/$v.json" || true
    t="$("$python" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["wallTimeMs"], "%d/%d" % (d["passed"], d["total"]))' "$tmp/$v.json")"
    times[$v]+="${t%% *} "
    echo "${t#* }" >"$tmp/$v.passed"
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "eval of HumanEval's 164 references: docker tier against the process tier; $(nproc) cores; median of $runs runs"
declare -A med
for v in "${variants[@]}"; do
  med[$v]="$(median "${times[$v]}")"
  printf '  %-64s %8.2f s evaluating  (%s passed)\n' "codeagent eval ${args[$v]}" "$(bc -l <<<"${med[$v]}/1000")" "$(cat "$tmp/$v.passed")"
done
printf '  docker (runc), reusable containers / process tier: %.2fx the time\n' "$(bc -l <<<"${med[runc]}/${med[process]}")"
printf '  docker (runc), reusable containers without zygotes / with: %.2fx the time\n' "$(bc -l <<<"${med[runc-cold]}/${med[runc]}")"
[[ -z ${med[runc-off]-} ]] || printf '  docker (runc), a container per sample / reusable: %.2fx the time\n' "$(bc -l <<<"${med[runc-off]}/${med[runc]}")"
[[ -z ${med[runsc]-} ]] || printf '  gVisor, reusable containers / process tier: %.2fx the time\n' "$(bc -l <<<"${med[runsc]}/${med[process]}")"
[[ -z ${med[runsc-cold]-} ]] || printf '  gVisor, reusable containers without zygotes / with: %.2fx the time\n' "$(bc -l <<<"${med[runsc-cold]}/${med[runsc]}")"
[[ -z ${med[runsc-off]-} ]] || printf '  gVisor, a container per sample / reusable: %.2fx the time\n' "$(bc -l <<<"${med[runsc-off]}/${med[runsc]}")"
