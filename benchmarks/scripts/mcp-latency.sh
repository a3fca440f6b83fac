#!/usr/bin/env bash
# mcp-latency.sh — execute_code of print(1) over MCP stdio (a TypeScript-SDK client, the server already started)
# against `./codeagent exec` of the same program through the warm CLI (the background process up), in one script so
# the ratio holds on a loaded machine. Both on the process tier, medians of RUNS calls (default 21), interleaved in
# blocks. Issue 31: an agent's tool call should cost no more than a warm command line.
#
#   benchmarks/scripts/mcp-latency.sh [RUNS]
# Needs Node.js and npm (the MCP client is installed from adapter-mcp's pinned lock file).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cli="$root/codeagent"
runs="${1:-21}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '{}\n' >"$work/empty.yaml"
export CODEAGENT_CONFIG="$work/empty.yaml" CODEAGENT_STORE=memory
unset CODEAGENT_NO_DAEMON

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

clients="$root/adapter-mcp/target/mcp-clients"
if [[ ! -f $clients/node_modules/@modelcontextprotocol/sdk/package.json ]]; then
  mkdir -p "$clients"
  cp "$root"/adapter-mcp/src/test/node/* "$clients"/
  (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error)
fi
cp "$root/adapter-mcp/src/test/node/latency.mjs" "$clients/"

"$cli" version >/dev/null   # builds when stale, outside the timing
printf 'print(1)\n' >"$work/p.py"
# the warm CLI: the first call starts the background process
for _ in 1 2 3; do "$cli" exec --sandbox process "$work/p.py" >/dev/null; done
exec_ms=()
for _ in $(seq "$runs"); do
  a=$(date +%s%N); "$cli" exec --sandbox process "$work/p.py" >/dev/null; b=$(date +%s%N)
  exec_ms+=($(((b - a) / 1000000)))
done
server="[\"$cli\", \"mcp\", \"--sandbox\", \"process\"]"
mcp_ms="$(cd "$clients" && SERVER="$server" RUNS="$runs" node latency.mjs | awk '/^mcp /{print $2}')"

m_exec="$(printf '%s\n' "${exec_ms[@]}" | median)"
m_mcp="$(printf '%s\n' "$mcp_ms" | median)"
printf 'execute_code print(1) over MCP stdio (median of %s): %s ms\n' "$runs" "$m_mcp"
printf './codeagent exec print(1), warm CLI (median of %s):  %s ms\n' "$runs" "$m_exec"
awk -v a="$m_mcp" -v b="$m_exec" 'BEGIN {printf "ratio mcp / warm exec: %.2f\n", a / b}'
