// A real MCP client (the TypeScript SDK's Streamable HTTP transport) using codeagent serve's /mcp with an API key:
// a program, a session of cells whose state is kept, a solve_task whose run it reads back; then a second key must not
// read that run, and the session ends with its DELETE. One "ok <step>" line per step passed.
// URL: the /mcp endpoint; KEY: this client's key; OTHER_KEY: another key of the mcp group.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.env.URL);
const connect = async (key) => {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: "Bearer " + key } } });
  const client = new Client({ name: "codeagent-http-it", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
};
const ok = (step) => console.log("ok " + step);
const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

const { client, transport } = await connect(process.env.KEY);
assert.ok(transport.sessionId, "the server gave a session id");
console.log("SESSION " + transport.sessionId);
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });

const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name).sort(), ["execute_code", "list_languages", "read_file", "restart_kernel", "run_cell", "solve_task"]);
ok("tools/list");

let r = await call("execute_code", { language: "python", code: "print(6 * 7)" });
assert.equal(r.isError, false, text(r));
assert.equal(r.structuredContent.stdout, "42\n");
ok("execute_code");

r = await call("execute_code", { language: "python", code: "print(1)", limits: { timeoutMs: 3600000 } });
assert.equal(r.isError, true);
assert.match(text(r), /mcp\.maxTimeout/, "the same caps as over stdio");
ok("caps");

r = await call("run_cell", { code: "x = 41" });
assert.equal(r.isError, false, text(r));
r = await call("run_cell", { code: "print(x + 1)" });
assert.equal(r.isError, false, text(r));
assert.match(text(r), /^42/, "the kernel kept x");
ok("run_cell state kept");

r = await call("solve_task", { prompt: "Print hello.", language: "python", expectedOutput: "hello\n", maxAttempts: 1 });
assert.equal(r.structuredContent.status, "SOLVED", text(r));
const runUri = "codeagent://runs/" + r.structuredContent.id;
assert.equal(r.structuredContent.owner ?? "key:" + process.env.KEY_NAME, "key:" + process.env.KEY_NAME);
const mine = await client.readResource({ uri: runUri });
assert.equal(JSON.parse(mine.contents[0].text).id, r.structuredContent.id);
ok("solve_task run read by its key");

// a cell cancelled while it sleeps: its program is stopped, so the next cell runs at once, not after the sleep
const controller = new AbortController();
const sleeping = client.callTool({ name: "run_cell", arguments: { code: "import time\ntime.sleep(60)" } }, undefined,
  { timeout: 120000, signal: controller.signal });
await new Promise((resolve) => setTimeout(resolve, 3000));
const started = Date.now();
controller.abort("changed my mind");
await assert.rejects(sleeping, /abort|cancel|changed my mind/i);
r = await call("run_cell", { code: "print('after')" });
assert.equal(r.isError, false, text(r));
assert.match(text(r), /after/);
console.log("after the cancel: " + text(r).split("\n")[0]);
assert.ok(Date.now() - started < 30000, "the cancelled cell was stopped: the next ran after " + (Date.now() - started) + " ms");
ok("run_cell cancelled");

const other = await connect(process.env.OTHER_KEY);
await assert.rejects(other.client.readResource({ uri: runUri }), /no run/, "another key's run is not found");
ok("another key cannot read the run");
await other.transport.terminateSession();
await other.client.close();

await transport.terminateSession();
ok("session deleted");
await client.close();
