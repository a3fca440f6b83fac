// Drives codeagent's Piston-compatible endpoint with the real piston-client package, unchanged.
// Usage: node piston-check.mjs http://user:KEY@127.0.0.1:PORT — prints one JSON object of results.
import piston from "piston-client";

const server = process.argv[2];
const client = piston({ server });
const out = {};
out.runtimes = await client.runtimes();
out.hello = await client.execute("python", "print(input())", { stdin: "hi from stdin" });
out.argv = await client.execute("python", "import sys\nprint(sys.argv[1:])");
out.js = await client.execute("javascript", "console.log(40 + 2)");
out.failure = await client.execute("python", "raise ValueError('boom')");
out.timeout = await client.execute("python", "while True: pass", { runTimeout: 500 });
out.files = await client.execute({
  language: "python",
  files: [{ name: "main.py", content: "print(open('data.txt').read())" }, { name: "data.txt", content: "from a file" }],
  args: [],
});
out.range = await client.execute("python", "print('in range')", { version: ">=3.8 <4", args: [] });
out.either = await client.execute("python", "print('either')", { version: "2.x || 3.x", args: [] });
out.tooNew = await client.execute("python", "print('no')", { version: "^4" });
out.named = await client.execute({
  language: "python",
  files: [{ name: "solution.py", content: "import sys\nprint(sys.argv[0])" }, { name: "main.py", content: "print('not me')" }],
  args: [],
});
out.interleaved = await client.execute("python",
  "import sys, time\nfor i in range(2):\n    print('out', i, flush=True)\n    time.sleep(0.15)\n"
  + "    print('err', i, file=sys.stderr, flush=True)\n    time.sleep(0.15)\n");
// bytes that are not UTF-8, as Piston's own CLI sends a binary -f file (base64), and as hex
out.binary = await client.execute({
  language: "python",
  files: [
    { name: "main.py", content: "print(open('blob.bin', 'rb').read().hex(), open('h.bin', 'rb').read().hex())" },
    { name: "blob.bin", content: Buffer.from([0, 255, 128, 10]).toString("base64"), encoding: "base64" },
    { name: "h.bin", content: "c3a9fe", encoding: "hex" },
  ],
  args: [],
});
out.unknown = await client.execute("cobol", "DISPLAY 'HI'.");
const anonymous = piston({ server: server.replace(/\/\/[^@]*@/, "//") });
out.anonymous = await anonymous.runtimes();
console.log(JSON.stringify(out));
