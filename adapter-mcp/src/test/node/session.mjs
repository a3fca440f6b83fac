// A real MCP client (the TypeScript SDK) driving `codeagent mcp` over stdio the way an agent would: lists the tools,
// runs programs (good, failing, hostile arguments), a session of cells with a plot, a solve_task with progress, and
// a solve_task cancelled while its program runs. Every step asserts; one "ok <step>" line per step passed.
// The server's command line comes in SERVER (a JSON array), its environment is this process's.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = JSON.parse(process.env.SERVER);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "codeagent-it", version: "1.0.0" });
await client.connect(transport);
const ok = (step) => console.log("ok " + step);
const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
const call = (name, args, options) => client.callTool({ name, arguments: args }, undefined, { timeout: 120000, ...options });

const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name).sort(), ["execute_code", "list_languages", "read_file", "restart_kernel", "run_cell", "solve_task"]);
for (const t of tools) {
  assert.equal(t.inputSchema.type, "object", t.name);
  assert.ok(t.description.length > 40, t.name + " has a description a model can act on");
}
assert.ok(tools.find((t) => t.name === "execute_code").outputSchema, "execute_code declares its output");
ok("tools/list");

const langs = await call("list_languages", {});
assert.ok(langs.structuredContent.languages.includes("python"), JSON.stringify(langs));
ok("list_languages");

let r = await call("execute_code", { language: "python", code: "import sys\nprint(6 * 7)\nprint(sys.stdin.read().upper())", stdin: "hi" });
assert.equal(r.isError, false, text(r));
assert.equal(r.structuredContent.outcome, "OK");
assert.equal(r.structuredContent.stdout, "42\nHI\n");
ok("execute_code python");

r = await call("execute_code", { language: "python", code: "print(open('data.txt').read())", files: { "data.txt": "from a file" } });
assert.equal(r.structuredContent.stdout, "from a file\n", text(r));
ok("execute_code files");

r = await call("execute_code", { language: "python", code: "1/0" });
assert.equal(r.isError, true);
assert.match(text(r).split("\n")[0], /^RUNTIME_ERROR: exit 1 .*ZeroDivisionError/);
ok("execute_code failure is a tool error");

r = await call("execute_code", { language: "c", code: "int main(void) { return undefined_name; }" });
assert.equal(r.isError, true);
assert.equal(r.structuredContent.compile.outcome, "COMPILATION_ERROR", text(r));
assert.match(text(r), /undefined_name/);
ok("execute_code compile stage");

r = await call("execute_code", { language: "python", code: "while True: pass", limits: { timeoutMs: 1000 } });
assert.equal(r.isError, true);
assert.equal(r.structuredContent.outcome, "TIME_LIMIT", text(r));
ok("execute_code limits");

// hostile arguments: each a clear tool error, and the server answers the next call
r = await call("execute_code", { language: "python", code: "print(1)", limits: { timeoutMs: 3600000 } });
assert.equal(r.isError, true);
assert.match(text(r), /mcp\.maxTimeout/, "a cap is named by its key");
r = await call("execute_code", { language: "python", code: "print(1)", limits: { network: true } });
assert.equal(r.isError, true);
r = await call("execute_code", { language: "python", code: 5 });
assert.equal(r.isError, true);
assert.match(text(r), /code/);
r = await call("execute_code", { language: "python", code: "print(1)", shell: "rm -rf /" });
assert.equal(r.isError, true);
assert.match(text(r), /shell/);
r = await call("execute_code", { language: "cobol-77", code: "x" });
assert.equal(r.isError, true);
assert.match(text(r), /language/);
r = await call("execute_code", { language: "python", code: "#" + "x".repeat(3 * 1024 * 1024) });
assert.equal(r.isError, true);
r = await call("execute_code", { language: "python", code: "print('\ud800 alone')" });
assert.ok(r.content.length > 0);
await assert.rejects(call("no_such_tool", {}), /no_such_tool|not found|Unknown/i);
r = await call("execute_code", { language: "python", code: "print('still here')" });
assert.equal(r.structuredContent.stdout, "still here\n");
ok("hostile arguments");

// a session bound to this MCP session: state kept, a plot as an image, restart loses the state
r = await call("run_cell", { code: "x = 41\nimport math" });
assert.equal(r.isError, false, text(r));
r = await call("run_cell", { code: "print(x + 1)\nx + 2" });
assert.equal(r.isError, false, text(r));
assert.match(text(r), /42/);
assert.match(text(r), /43/);
r = await call("run_cell", { code: "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.show()" });
assert.equal(r.isError, false, text(r));
const image = r.content.find((c) => c.type === "image");
assert.ok(image, "a plot comes back as image content: " + JSON.stringify(r.content.map((c) => c.type)));
assert.equal(image.mimeType, "image/png");
assert.equal(Buffer.from(image.data, "base64").subarray(1, 4).toString(), "PNG");
r = await call("run_cell", { code: "from IPython.display import HTML, display\ndisplay(HTML('<b>bold</b><script>alert(1)</script>'))" });
const html = r.content.find((c) => c.type === "resource");
assert.ok(html && html.resource.mimeType === "text/html", JSON.stringify(r.content));
assert.ok(!html.resource.text.includes("<script"), "HTML goes through the sanitizer: " + html.resource.text);
r = await call("run_cell", { code: "1/0" });
assert.equal(r.isError, true);
assert.match(text(r).split("\n")[0], /^ZeroDivisionError/);
r = await call("run_cell", { code: "print(open('notes.txt').read())", files: { "notes.txt": "kept" } });
assert.match(text(r), /kept/);
r = await call("run_cell", { code: "open('out.txt', 'w').write('written by a cell')\nplt.savefig('fig.png')" });
assert.equal(r.isError, false, text(r));
r = await call("read_file", { path: "out.txt" });
assert.equal(text(r), "written by a cell");
r = await call("read_file", { path: "fig.png" });
assert.equal(r.content[0].type, "image", JSON.stringify(r.content[0]).slice(0, 200));
r = await call("read_file", { path: "../../etc/passwd" });
assert.equal(r.isError, true);
assert.match(text(r), /^path: /);
r = await call("read_file", { path: "missing.txt" });
assert.equal(r.isError, true);
r = await call("restart_kernel", {});
assert.equal(r.isError, false, text(r));
r = await call("run_cell", { code: "print(x)" });
assert.equal(r.isError, true);
assert.match(text(r), /NameError/);
ok("run_cell session");

// solve_task with progress per attempt: the replayed model's first answer fails its tests, the second passes
const progress = [];
r = await call("solve_task", { prompt: "Write add(a, b) returning the sum.", language: "python", tests: "assert add(2, 3) == 5", maxAttempts: 3 },
  { onprogress: (p) => progress.push(p) });
assert.equal(r.isError, false, text(r));
assert.equal(r.structuredContent.status, "SOLVED");
assert.equal(r.structuredContent.attemptCount, 2);
assert.ok(progress.length >= 3, "progress per attempt: " + JSON.stringify(progress));
assert.match(progress[0].message, /attempt 1 of 3/);
for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress, "progress increases");
const runUri = text(r).match(/codeagent:\/\/runs\/[a-z0-9]+/)[0];
const read = await client.readResource({ uri: runUri });
const run = JSON.parse(read.contents[0].text);
assert.equal(run.status, "SOLVED");
assert.equal(run.attempts.length, 2);
await assert.rejects(client.readResource({ uri: "codeagent://runs/no-such-run" }), /no run/);
ok("solve_task progress");

// cancelled while its program runs: the program is killed and the run ends CANCELLED
const controller = new AbortController();
let cancelledRun;
const started = Date.now();
const pending = call("solve_task", { prompt: "Write add(a, b).", language: "python", tests: "import time\ntime.sleep(50)\nassert add(2, 3) == 5",
  maxAttempts: 1, limits: { timeoutMs: 55000 } }, {
  signal: controller.signal,
  onprogress: (p) => {
    cancelledRun = cancelledRun || (p.message.match(/codeagent:\/\/runs\/[a-z0-9]+/) || [])[0];
    if (/generating/.test(p.message)) setTimeout(() => controller.abort("the user changed their mind"), 2000);
  },
});
await assert.rejects(pending, /abort|cancel|changed their mind/i);
assert.ok(cancelledRun, "progress names the run");
let status;
for (let i = 0; i < 50 && status !== "CANCELLED"; i++) {
  await new Promise((res) => setTimeout(res, 200));
  status = JSON.parse((await client.readResource({ uri: cancelledRun })).contents[0].text).status;
}
assert.equal(status, "CANCELLED");
assert.ok(Date.now() - started < 20000, "cancelled long before the program's 50 s sleep: " + (Date.now() - started) + " ms");
r = await call("execute_code", { language: "python", code: "print('after the cancel')" });
assert.equal(r.structuredContent.stdout, "after the cancel\n");
ok("solve_task cancelled");

await client.close();
ok("closed");
