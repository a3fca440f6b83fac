#!/usr/bin/env bash
# Benchmark: a notebook's wait for the first cell. From `kernel start` to the execute_reply of `1+1`, for the
# codeagent kernel (process tier) against Debian's ipykernel on its own (no sandbox), in one script, both driven by
# jupyter_client (benchmarks/scripts/jupyter_startup.py). "ready" is the first kernel_info reply: the kernel
# process is up and speaking the protocol (for codeagent: the JVM's share); the rest is the sandboxed session.
#
#   benchmarks/scripts/jupyter-startup.sh [ROUNDS]     (default 5)
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
rounds="${1:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$root/codeagent" jupyter install --prefix "$work" --sandbox process --set store.sqlite.path="$work/runs.db" >/dev/null
export JUPYTER_PATH="$work/share/jupyter" JUPYTER_RUNTIME_DIR="$work/runtime" PYDEVD_DISABLE_FILE_VALIDATION=1
out="$(/usr/bin/python3 "$root/benchmarks/scripts/jupyter_startup.py" "$rounds" python3 codeagent 2>/dev/null)" \
  || { echo "jupyter-startup: needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client" >&2; exit 2; }
read -r _ ref_ready ref_first <<<"$(grep '^python3 ' <<<"$out")"
read -r _ ready first <<<"$(grep '^codeagent ' <<<"$out")"
echo "kernel start to the first execute_reply of 1+1, $rounds rounds, $(nproc) cores (medians, ms)"
printf '%-40s %8s %8s\n' "" "ready" "1+1"
printf '%-40s %8s %8s\n' "ipykernel alone (no sandbox)" "$ref_ready" "$ref_first"
printf '%-40s %8s %8s   (%sx)\n' "codeagent kernel, process tier" "$ready" "$first" \
  "$(awk -v a="$first" -v b="$ref_first" 'BEGIN {printf "%.2f", a / b}')"
