#!/usr/bin/env bash
# Benchmark: a session's start and the per-cell overhead of `1+1`, on each tier, against jupyter_client driving a
# local, unsandboxed ipykernel (benchmarks/scripts/session_reference.py), in one script. Sessions are not pooled:
# every start is cold.
#
#   benchmarks/scripts/session-latency.sh [ROUNDS] [CELLS] [TIERS]     (defaults 5, 50, process,docker)
#   SKIP_BUILD=1   reuse benchmarks/target as it is
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
cd "$root"
rounds="${1:-5}"; cells="${2:-50}"; tiers="${3:-process,docker}"
if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  # a fresh file: a fixed name in /tmp could be another user's link, which a redirect as root would follow
  build_log="$(mktemp "${TMPDIR:-/tmp}/codeagent-bench-build.XXXXXX")"
  mvn -B -q -pl benchmarks -am package -DskipTests >"$build_log" 2>&1 \
    || { echo "session-latency: build failed, see $build_log" >&2; exit 2; }
fi
ref="$(/usr/bin/python3 "$root/benchmarks/scripts/session_reference.py" "$rounds" "$cells" 2>/dev/null)" \
  || { echo "session-latency: the reference needs /usr/bin/python3 with python3-ipykernel" >&2; exit 2; }
ours="$(java -XX:+UseSerialGC -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" \
  dev.codeagent.bench.SessionLatencyBench "$rounds" "$cells" "$tiers" 2>/dev/null)"
ref_start="$(awk '$1 == "start" {print $2}' <<<"$ref")"
ref_cell="$(awk '$1 == "cell" {print $2}' <<<"$ref")"
echo "sessions: $rounds starts, $cells cells of 1+1 each, $(nproc) cores (medians)"
printf '%-44s %10s %10s\n' "" "start ms" "cell ms"
printf '%-44s %10s %10s\n' "jupyter_client + local ipykernel (no sandbox)" "$ref_start" "$ref_cell"
for tier in ${tiers//,/ }; do
  s="$(awk -v t="$tier" '$1 == t && $2 == "start" {print $3}' <<<"$ours")"
  c="$(awk -v t="$tier" '$1 == t && $2 == "cell" {print $3}' <<<"$ours")"
  if [[ -z "$s" ]]; then
    echo "$tier: $(grep "^$tier" <<<"$ours" || echo unavailable)"
    continue
  fi
  p="$(awk -v t="$tier" '$1 == t && $2 == "pooled" {print $3}' <<<"$ours")"
  printf '%-44s %10s %10s   (%sx, %sx)\n' "codeagent session, $tier tier" "$s" "$c" \
    "$(awk -v a="$s" -v b="$ref_start" 'BEGIN {printf "%.2f", a / b}')" "$(awk -v a="$c" -v b="$ref_cell" 'BEGIN {printf "%.2f", a / b}')"
  [[ -z "$p" ]] || printf '%-44s %10s %10s   (%sx)\n' "  same, opened from the pool (http.sessionPool)" "$p" "" \
    "$(awk -v a="$p" -v b="$ref_start" 'BEGIN {printf "%.3f", a / b}')"
done
