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
// compiled languages: a compile stage, then the run; a compile error answers run as the compile stage
out.c = await client.execute("c", "#include <stdio.h>\nint main(int c, char **v) { printf(\"%s %d\\n\", v[1], c); return 3; }");
out.cpp = await client.execute("c++", "#include <iostream>\nint main() { std::cout << 6 * 7 << std::endl; }", { args: [] });
out.java = await client.execute({
  language: "java",
  files: [{ name: "Main.java", content: "public class Main { public static void main(String[] a) { System.out.println(a.length); } }" }],
  args: ["x", "y"],
});
out.brokenC = await client.execute("gcc", "int main(void) {\n  return missing;\n}\n", { args: [] });
out.slowCompile = await client.execute("c++",
  "constexpr long f() { long s = 0; for (long i = 0; i < 200000; i++) for (long j = 0; j < 200000; j++) s += i ^ j; return s; }\n"
  + "static_assert(f() != 1, \"\");\nint main() {}\n", { compileTimeout: 1500, args: [] });
out.unknown = await client.execute("cobol", "DISPLAY 'HI'.");
const anonymous = piston({ server: server.replace(/\/\/[^@]*@/, "//") });
out.anonymous = await anonymous.runtimes();
console.log(JSON.stringify(out));
