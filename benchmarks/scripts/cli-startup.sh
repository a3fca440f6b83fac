#!/usr/bin/env bash
# cli-startup.sh — whole-process time of `./codeagent exec` of print(1) against the bare tool, in one
# script so the ratios hold on a loaded machine (issue 18's targets):
#   process tier, background process warm   <= 3x   /usr/bin/python3 p.py           (median)
#   docker tier, pool warm in the background <= 1.2x docker run --rm <image> python3 (median)
#   docker tier with --no-daemon             never slower than docker run --rm (no pool is started)
# Also the first call (the background process starting) and --no-daemon on the process tier.
#
#   benchmarks/scripts/cli-startup.sh [RUNS]      (default 21; docker rows use RUNS/2+1)
# Runs are interleaved (bare tool, then codeagent, in turn) so load drifts hit both alike.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cli="$root/codeagent"
runs="${1:-21}"
image="${CODEAGENT_SANDBOX_DOCKER_IMAGE:-codeagent-sandbox:latest}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
printf 'print(1)\n' >p.py
printf '{}\n' >empty.yaml
export CODEAGENT_CONFIG="$work/empty.yaml" CODEAGENT_STORE=memory
unset CODEAGENT_NO_DAEMON

ms() { local a b; a=$(date +%s%N); "$@" >/dev/null 2>&1 || true; b=$(date +%s%N); echo $(((b - a) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

# the background process of this checkout, to stop it for the first-call figure
stop_daemon() {
  local run key info pid
  if [[ -n "${XDG_RUNTIME_DIR-}" && -d "${XDG_RUNTIME_DIR}" && -O "${XDG_RUNTIME_DIR}" ]]; then run="$XDG_RUNTIME_DIR/codeagent"; else run="$HOME/.codeagent/run"; fi
  # the launcher's name for this checkout's process (see ./codeagent)
  key=5381
  for ((i = 0; i < ${#root}; i++)); do printf -v c '%d' "'${root:i:1}"; key=$(((key * 33 + c) % 4294967296)); done
  info="$run/cli-$key.sock.info"
  if [[ -r $info ]] && read -r pid _ <"$info" && grep -qa CliServer "/proc/$pid/cmdline" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
}

"$cli" --no-daemon version >/dev/null   # builds if needed, outside the timings
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; runs: $runs"

stop_daemon
first=$(ms "$cli" exec p.py)
[[ "$("$cli" exec p.py)" == 1 ]] || { echo "codeagent exec p.py did not print 1" >&2; exit 1; }
for _ in 1 2 3; do "$cli" exec p.py >/dev/null; done   # warm: the JIT, the sandbox probe

py=() warm=() cold=()
for _ in $(seq "$runs"); do
  py+=("$(ms /usr/bin/python3 p.py)")
  warm+=("$(ms "$cli" exec p.py)")
done
for _ in $(seq $((runs / 3 + 1))); do cold+=("$(ms "$cli" --no-daemon exec p.py)"); done
py_m=$(printf '%s\n' "${py[@]}" | median)
warm_m=$(printf '%s\n' "${warm[@]}" | median)
cold_m=$(printf '%s\n' "${cold[@]}" | median)
echo "process tier (print(1)), median ms:"
echo "  /usr/bin/python3 p.py                 $py_m"
echo "  codeagent exec p.py (warm background) $warm_m   ratio $(ratio "$warm_m" "$py_m")  target <= 3"
echo "  codeagent exec p.py (first call)      $first   (starts the background process)"
echo "  codeagent --no-daemon exec p.py       $cold_m   ratio $(ratio "$cold_m" "$py_m")"

if docker image inspect "$image" >/dev/null 2>&1; then
  n=$((runs / 2 + 1))
  "$cli" exec --sandbox docker p.py >/dev/null   # the pool fills in the background process
  sleep 3
  dr=() dw=() dc=()
  for _ in $(seq "$n"); do
    dr+=("$(ms docker run --rm --network none "$image" python3 -c 'print(1)')")
    dw+=("$(ms "$cli" exec --sandbox docker p.py)")
    dc+=("$(ms "$cli" --no-daemon exec --sandbox docker p.py)")
  done
  dr_m=$(printf '%s\n' "${dr[@]}" | median)
  dw_m=$(printf '%s\n' "${dw[@]}" | median)
  dc_m=$(printf '%s\n' "${dc[@]}" | median)
  echo "docker tier (print(1)), median ms:"
  echo "  docker run --rm --network none        $dr_m"
  echo "  codeagent exec --sandbox docker       $dw_m   ratio $(ratio "$dw_m" "$dr_m")  target <= 1.2 (pool warm in the background)"
  echo "  codeagent --no-daemon exec (docker)   $dc_m   ratio $(ratio "$dc_m" "$dr_m")  target <= 1 (no pool for one run)"
else
  echo "docker tier: image $image not present; skipped"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
