#!/usr/bin/env bash
# Benchmark: the whole `codeagent eval` self-test (164 HumanEval references, process tier) of this tree against
# another build of codeagent, in one run, rounds alternating (A B A B ...) so that a machine whose load drifts
# moves both alike. Reports the median wall time and the median CPU time (user + system of the command and every
# process it waited for: the JVM, bubblewrap, the supervisors, the programs and the judges) of each, and their
# ratios. The CPU time is the whole machine's busy time during the run, from /proc/stat: the warm CLI's server
# (which is not the launcher's child), the sandboxes, the programs, the judges and the kernel's own threads that
# tear namespaces and control groups down all count, so run it on an otherwise quiet machine. CPU time is the
# steadier figure; wall time is what a user waits.
#
#   eval-before-after.sh BASE_DIR [ROUNDS] [THIS_DIR]
#
#   BASE_DIR                    a checkout of the other build, its ./codeagent launcher built (e.g. a git worktree
#                               of an earlier commit, after `./codeagent --version` there)
#   ROUNDS                      rounds of each (default 7)
#   THIS_DIR                    the checkout to time against it (default: this one), e.g. to place a regression
#                               between two earlier commits
#   WORKERS=N                   codeagent --workers for both (default: their own default)
#   CODEAGENT_DATA=DIR          where HumanEval.jsonl is (default: ../shared/data beside the repo)
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
base="${1:?usage: eval-before-after.sh BASE_DIR [ROUNDS] [THIS_DIR]}"
rounds="${2:-7}"
root="${3:-$here}"
data="${CODEAGENT_DATA:-$here/../shared/data}/HumanEval.jsonl"
python=/usr/bin/python3
tmp="$(mktemp -d "${TMPDIR:-/tmp}/codeagent-before-after.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

[[ -f "$data" ]] || { echo "eval-before-after: $data not found (set CODEAGENT_DATA)" >&2; exit 2; }
[[ -x "$root/codeagent" ]] || { echo "eval-before-after: $root/codeagent is not a codeagent launcher" >&2; exit 2; }
[[ -x "$base/codeagent" ]] || { echo "eval-before-after: $base/codeagent is not a codeagent launcher" >&2; exit 2; }

# both built now, outside the timing; never rebuilt inside it
"$root/codeagent" --version >/dev/null
"$base/codeagent" --version >/dev/null
export CODEAGENT_SKIP_BUILD=1
workers=()
[[ -n "${WORKERS-}" ]] && workers=(--workers "$WORKERS")

# busy: the machine's busy CPU time so far, in clock ticks (user, nice, system, irq, softirq, steal)
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
ticks="$(getconf CLK_TCK)"

# one_run NAME DIR: one timed eval of the launcher in DIR; appends "wall_s cpu_s" to $tmp/NAME
one_run() {
  local name="$1" dir="$2" t0 t1 b0 b1
  b0="$(busy)"
  t0="$(date +%s%N)"
  "$dir/codeagent" eval --problems "$data" --sandbox process --json "${workers[@]}" >"$tmp/$name.json" 2>"$tmp/$name.err"
  t1="$(date +%s%N)"
  # the kernel's clean-up of the last sandboxes trails the command by a few milliseconds
  sleep 0.2
  b1="$(busy)"
  "$python" - "$tmp/$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if d["passed"] != d["total"]:
    sys.exit("eval-before-after: only %d of %d references passed" % (d["passed"], d["total"]))
PY
  awk -v w="$((t1 - t0))" -v b="$((b1 - b0))" -v hz="$ticks" 'BEGIN {printf "%.2f %.2f\n", w / 1e9, b / hz}' >>"$tmp/$name"
}

echo "HumanEval references through \`codeagent eval --sandbox process\`: $(nproc) cores; $rounds rounds, alternating"
echo "  this tree: $root ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "  baseline:  $base ($(git -C "$base" rev-parse --short HEAD 2>/dev/null || echo '?'))"
one_run warmup "$root"
one_run warmup "$base"
for ((i = 0; i < rounds; i++)); do
  if ((i % 2 == 0)); then
    one_run this "$root"
    one_run base "$base"
  else
    one_run base "$base"
    one_run this "$root"
  fi
done

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
this_wall="$(cut -d' ' -f1 "$tmp/this" | median)"
base_wall="$(cut -d' ' -f1 "$tmp/base" | median)"
this_cpu="$(cut -d' ' -f2 "$tmp/this" | median)"
base_cpu="$(cut -d' ' -f2 "$tmp/base" | median)"
printf '%-12s %8s %8s\n' "" "wall s" "CPU s"
printf '%-12s %8s %8s\n' "baseline" "$base_wall" "$base_cpu"
printf '%-12s %8s %8s\n' "this tree" "$this_wall" "$this_cpu"
printf 'ratio this / baseline: wall %.3f, CPU %.3f (of the medians)\n' "$(bc -l <<<"$this_wall / $base_wall")" \
  "$(bc -l <<<"$this_cpu / $base_cpu")"
# each round's two runs ran back to back: their ratio is free of the drift between rounds
paired="$(paste -d' ' "$tmp/this" "$tmp/base" | awk '{print $2 / $4}' | median)"
printf 'ratio this / baseline: CPU %.3f (median of the rounds'"'"' own ratios)\n' "$paired"
echo "every round (wall s, CPU s): this: $(tr '\n' ';' <"$tmp/this") baseline: $(tr '\n' ';' <"$tmp/base")"
