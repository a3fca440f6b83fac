// Probes from inside every tool that runs code (execute_code in Python and C, run_cell, solve_task's program): each
// tries to read a marker file on the host and to connect to a listener on the host's loopback, and prints what it
// got. Prints one JSON object of every tool's full result; the Java test decides what they must not contain.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = JSON.parse(process.env.SERVER);
const client = new Client({ name: "codeagent-host-probe", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" }));
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });

const results = {};
results.python = await call("execute_code", { language: "python", code: process.env.PYTHON_PROBE });
results.c = await call("execute_code", { language: "c", code: process.env.C_PROBE });
results.cell = await call("run_cell", { code: process.env.PYTHON_PROBE });
results.solve = await call("solve_task", { prompt: "probe", language: "python", tests: "assert True", maxAttempts: 1 });
console.log(JSON.stringify(results));
await client.close();
