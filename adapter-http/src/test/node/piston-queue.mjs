// Fires N executions at once through the real piston-client, as a busy Piston user does.
// Usage: node piston-queue.mjs http://user:KEY@127.0.0.1:PORT N — prints one JSON array of the N answers.
import piston from "piston-client";

const [server, count] = [process.argv[2], Number(process.argv[3])];
const client = piston({ server });
await client.runtimes();
const calls = [];
for (let i = 0; i < count; i++) {
  calls.push(client.execute("python", `import time\ntime.sleep(0.4)\nprint(${i})`, { args: [] }));
}
console.log(JSON.stringify(await Promise.all(calls)));
