// execute_code of print(1) over stdio, timed call by call from this client: one line "mcp <ms>" per call after
// a warm-up. The server's command line comes in SERVER (a JSON array); RUNS calls (default 21).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = JSON.parse(process.env.SERVER);
const client = new Client({ name: "codeagent-latency", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" }));
const once = () => client.callTool({ name: "execute_code", arguments: { language: "python", code: "print(1)" } });
for (let i = 0; i < 3; i++) await once();
for (let i = 0; i < Number(process.env.RUNS || 21); i++) {
  const t = process.hrtime.bigint();
  const r = await once();
  if (r.structuredContent.stdout !== "1\n") throw new Error(JSON.stringify(r));
  console.log("mcp " + Number((process.hrtime.bigint() - t) / 1000000n));
}
await client.close();
