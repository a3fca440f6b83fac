package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The split judge's scripts (kit-sandbox's src/main/python, on the classpath beside {@link JudgeScripts}) as real processes:
 * the candidate runs the code, the judge runs the tests and decides, over two FIFOs, as the process
 * tier will connect them. As root the two run under two different uids, as both tiers will run them.
 * Then the dataset check (test resource judge-check/check_datasets.py) over the 164 HumanEval reference
 * solutions and the attack corpus (judge-attacks/, one attack per file).
 */
class SplitJudgeScriptsIT {

    private static final String PYTHON = "/usr/bin/python3";
    private static final String[] SCRIPTS = {"codeagent_wire.py", "judge.py", "candidate.py"};
    private static final long CANDIDATE_UID = 60_001;
    private static final long JUDGE_UID = 60_002;
    private static final Pattern OUTCOME = Pattern.compile("\"outcome\": ?\"([a-z-]+)\"");

    private static Path scripts;

    @BeforeAll
    static void extractScripts() throws IOException {
        assumeTrue(Files.isExecutable(Path.of(PYTHON)), PYTHON + " is needed");
        scripts = Files.createTempDirectory("split-judge-");
        Files.setPosixFilePermissions(scripts, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (String name : SCRIPTS) {
            try (InputStream in = JudgeScripts.class.getResourceAsStream(name)) {
                assertThat(in).as(name).isNotNull();
                Path f = scripts.resolve(name);
                Files.copy(in, f);
                Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
            }
        }
    }

    @AfterAll
    static void removeScripts() throws IOException {
        delete(scripts);
    }

    @Test
    void aCorrectFunctionPasses() throws Exception {
        Judged j = judge("def add(a, b):\n    return a + b\n", "assert add(1, 2) == 3\nassert add('a', 'b') == 'ab'\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("passed");
    }

    @Test
    void anAssertOverSeveralLinesIsShownWholeNotCutMidExpression() throws Exception {
        Judged j = judge("def add(a, b):\n    return a - b\n",
                "def check(candidate):\n    assert candidate(\n        2,\n        2,\n    ) == 4, \\\n        'sums'\n\ncheck(add)\n");
        assertThat(j.outcome()).isEqualTo("assertion");
        assertThat(j.report).contains("failed assertion: assert candidate( 2, 2, ) == 4, 'sums' - sums");
    }

    @Test
    void aWrongAnswerNamesTheAssertionAndTheValueReturned() throws Exception {
        Judged j = judge("def add(a, b):\n    return a - b\n", "assert add(1, 1) == 0\nassert add(2, 2) == 4\n");
        assertThat(j.outcome()).isEqualTo("assertion");
        assertThat(j.report).contains("failed assertion: assert add(2, 2) == 4").contains("add(2, 2) returned 0");
    }

    @Test
    void anExceptionInTheCodeComesWithItsLineInTheCode() throws Exception {
        Judged j = judge("def inv(x):\n    y = 1\n    return y / x\n", "assert inv(2) == 0.5\nassert inv(0) == 0\n");
        assertThat(j.outcome()).isEqualTo("raised");
        assertThat(j.report).contains("ZeroDivisionError").contains("\"line\":3").contains("return y / x");
    }

    @Test
    void aSyntaxErrorIsTheJudgesOwnFinding() throws Exception {
        Judged j = judge("def f(:\n    pass\n", "assert f() is None\n");
        assertThat(j.outcome()).isEqualTo("syntax");
    }

    @Test
    void anAlwaysEqualObjectCannotBeCompared() throws Exception {
        String code = "class Yes:\n    def __eq__(self, o):\n        return True\n\ndef f():\n    return Yes()\n";
        Judged j = judge(code, "assert f() == 42\n");
        assertThat(j.outcome()).isEqualTo("not-data");
        assertThat(j.report).contains("returned an object that cannot be compared: Yes");
    }

    @Test
    void objectsOfTheCodeWorkByReference() throws Exception {
        String code = "class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, x):\n"
                + "        self.items.append(x)\n    def pop(self):\n        return self.items.pop()\n";
        Judged j = judge(code, "s = Stack()\ns.push(1)\ns.push(2)\nassert s.pop() == 2\nassert s.items == [1]\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("passed");
    }

    @Test
    void exitingBeforeTheTestsFails() throws Exception {
        Judged j = judge("import os\ndef f():\n    return 1\nos._exit(0)\n", "assert f() == 1\n");
        assertThat(j.outcome()).isEqualTo("ended");
    }

    // ------------------------------------------------------------------ parity with one process (issue 30)

    private static final String SORT_IN_PLACE = "def f(xs):\n    xs.sort()\n    return xs\n";

    @Test
    void anArgumentSortedInPlaceIsSortedForTheTests() throws Exception {
        Judged wrong = judge(SORT_IN_PLACE, "data = [3, 1, 2]\nr = f(data)\nassert data == [3, 1, 2]\n");
        assertThat(wrong.outcome()).as(wrong.report).isEqualTo("assertion");
        Judged same = judge(SORT_IN_PLACE, "data = [3, 1, 2]\nr = f(data)\nassert r is data and data == [1, 2, 3]\n");
        assertThat(same.outcome()).as(same.report).isEqualTo("passed");
        Judged nested = judge("def f(d):\n    d['k'].append(1)\n    d['n'] = 2\n    return [d['k'], d['k']]\n",
                "x = {'k': []}\ninner = x['k']\nr = f(x)\nassert x == {'k': [1], 'n': 2} and r[0] is inner and r[1] is inner\n");
        assertThat(nested.outcome()).as(nested.report).isEqualTo("passed");
    }

    @Test
    void subclassesOfBuiltInTypesKeepTheirTypeIdentity() throws Exception {
        String nt = "from collections import namedtuple\nP = namedtuple('P', 'x y')\ndef f():\n    return P(1, 2)\n";
        Judged equal = judge(nt, "r = f()\nassert r == (1, 2) and isinstance(r, tuple) and r.x == 1 and type(r).__name__ == 'P'\n");
        assertThat(equal.outcome()).as(equal.report).isEqualTo("passed");
        Judged exact = judge(nt, "assert type(f()) is tuple\n");
        assertThat(exact.outcome()).as(exact.report).isEqualTo("assertion");
        String ie = "from enum import IntEnum\nclass C(IntEnum):\n    A = 1\ndef f():\n    return C.A\n";
        assertThat(judge(ie, "assert f() == 1 and isinstance(f(), int)\n").outcome()).isEqualTo("passed");
        assertThat(judge(ie, "assert type(f()) is int\n").outcome()).isEqualTo("assertion");
        Judged counter = judge("from collections import Counter\ndef f(s):\n    return Counter(s)\n",
                "from collections import Counter\nc = f('aab')\nassert type(c) is Counter and c.most_common(1) == [('a', 2)]\n");
        assertThat(counter.outcome()).as(counter.report).isEqualTo("passed");
    }

    @Test
    void complexInfinitiesNansAndSignedZerosCrossExactly() throws Exception {
        String code = "def f():\n    return complex(1, float('inf'))\ndef g(z):\n    return z\n"
                + "def h():\n    return complex(-0.0, 1)\n";
        String tests = "import math\ninf = float('inf')\nassert f() == complex(1, inf)\nassert g(complex(2, inf)) == complex(2, inf)\n"
                + "assert math.copysign(1, h().real) == -1\nassert math.copysign(1, g(-0.0)) == -1\n"
                + "assert math.isnan(g(float('nan')))\nassert g(10 ** 5000) == 10 ** 4999 * 10\n";
        Judged j = judge(code, tests);
        assertThat(j.outcome()).as(j.report).isEqualTo("passed");
    }

    @Test
    void theTestsReadTheCodesGlobalsAsTheCodeLeftThem() throws Exception {
        String code = "n = 0\nseen = []\ndef inc():\n    global n\n    n += 1\n    seen.append(n)\n";
        Judged j = judge(code, "inc()\nassert n == 1 and seen == [1]\nkept = seen\ninc()\nassert n == 2 and kept == [1, 2]\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("passed");
        // the code may change its own globals, never a name the tests bound themselves
        Judged own = judge("def f():\n    global expected\n    expected = 0\n    return 1\n",
                "expected = 1\nassert f() == expected\n");
        assertThat(own.outcome()).as(own.report).isEqualTo("passed");
    }

    @Test
    void bothSidesCapTheDepthAlikeAndSayWhichCap() throws Exception {
        String code = "def f(d):\n    x = []\n    for _ in range(d - 1):\n        x = [x]\n    return x\n";
        Judged deep = judge(code, "r = f(99)\nd = 1\nwhile r:\n    r = r[0]\n    d += 1\nassert d == 99\n");
        assertThat(deep.outcome()).as(deep.report).isEqualTo("passed");
        Judged over = judge(code, "assert f(150) is not None\n");
        assertThat(over.outcome()).as(over.report).isEqualTo("not-data");
        assertThat(over.report).contains("nested deeper than 100 levels (the cap)");
    }

    /** A reply the candidate writes itself, bypassing its own encoder: the judge's parse is the one that counts. */
    private static String rawReply(String body) {
        return "import gc, os\ndef f():\n    c = next(o for o in gc.get_objects() if type(o).__name__ == 'Candidate')\n"
                + "    body = " + body + "\n    os.write(c.wfd, b'%d\\n' % len(body) + body)\n    os.read(c.rfd, 1)\n";
    }

    /** The code's f() writes the given bytes (a Python expression) to the judge's channel itself, in the given pieces. */
    private static String rawWrites(String pieces) {
        return "import gc, os, time\ndef f():\n    c = next(o for o in gc.get_objects() if type(o).__name__ == 'Candidate')\n"
                + "    for piece in " + pieces + ":\n        os.write(c.wfd, piece)\n        time.sleep(0.002)\n"
                + "    os.read(c.rfd, 1)\n";
    }

    @Test
    void aReplyWrittenAByteAtATimeIsReadWhole() throws Exception {
        // the judge reads ahead (a frame's header and body in one read): a frame cut anywhere must still be one frame
        Judged j = judge(rawWrites("[bytes([b]) for b in b'14\\n[\"ok\",5,[],[]]']"), "assert f() == 5\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("passed");
    }

    @Test
    void twoRepliesInOneWriteAreTwoRepliesInOrder() throws Exception {
        // what was read past the first frame is the start of the next, never dropped: g() gets the second frame
        Judged j = judge(rawWrites("[b'14\\n[\"ok\",5,[],[]]14\\n[\"ok\",6,[],[]]']") + "def g():\n    return 7\n",
                "assert f() == 5\nassert g() == 6\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("passed");
    }

    @Test
    void aFrameHeaderOverTwelveBytesIsRefusedNamingTheCap() throws Exception {
        Judged j = judge(rawWrites("[b'1234567', b'8901234567']"), "assert f() == 1\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("protocol");
        assertThat(j.report).contains("a frame header longer than 12 bytes");
    }

    @Test
    void aHugeDecimalIntegerIsRefusedInLinearTimeNamingTheCap() throws Exception {
        Judged j = judge(rawReply("b'[\"ok\",' + b'1' * 1500000 + b',[],[]]'"), "assert f() == 1\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("protocol");
        assertThat(j.report).contains("more than 4300 decimal digits (the cap)");
    }

    @Test
    void aFloodOfItemsIsRefusedBeforeItIsBuilt() throws Exception {
        Judged j = judge(rawReply("b'[\"ok\",[' + b'[],' * 2000000 + b'0],[],[]]'"), "assert f() == 1\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("protocol");
        assertThat(j.report).contains("more than 1000000 items (the cap)");
    }

    @Test
    void aTracebackOfThousandsOfFramesGivesABoundedVerdict() throws Exception {
        String frames = "b'[\"raise\",[\"RecursionError\",\"deep\",[' + b','.join(b'[\"main.py\",%d,\"f\",\"%s\"]' % (i, b'x' * 900)"
                + " for i in range(8000)) + b'],\"RecursionError\",8000],[],[]]'";
        Judged j = judge(rawReply(frames), "assert f() == 1\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("raised");
        assertThat(j.report.length()).isLessThan(64 * 1024);
        assertThat(j.report).contains("8000 frames in the code: the last 20 kept, the cap");
    }

    @Test
    void theTestsMayImportWhatTheProgramMayImport() throws Exception {
        assumeTrue(new ProcessBuilder(PYTHON, "-c", "import numpy").start().waitFor() == 0, "numpy is needed");
        Judged j = judge("def f():\n    return [1, 2]\n", "import numpy as np\nassert np.array_equal(np.array(f()), np.array([1, 2]))\n");
        assertThat(j.outcome()).as(j.report).isEqualTo("passed");
    }

    @Test
    void testsThatCannotLoadAreTheProblemsFaultNotTheCodes() throws Exception {
        Judged syntax = judge("def f():\n    return 1\n", "assert f( == 1\n");
        assertThat(syntax.outcome()).as(syntax.report).isEqualTo("tests");
        assertThat(syntax.report).contains("the tests do not compile");
        Judged missing = judge("def f():\n    return 1\n", "import no_such_module_anywhere\nassert f() == 1\n");
        assertThat(missing.outcome()).as(missing.report).isEqualTo("tests");
        assertThat(missing.report).contains("No module named 'no_such_module_anywhere'");
    }

    @Test
    void everyHumanEvalReferenceSolutionPasses() throws Exception {
        Path data = dataset();
        Check c = check("humaneval", "--data", data.toString());
        assertThat(c.output).as(c.output).contains("164/164 passed");
        assertThat(c.status).isZero();
    }

    /**
     * The differential check on a fixed subset of its corpus (references and mutants of HumanEval and MBPP; the whole
     * corpus, 2,149 completions, is judged by running judge-check/differential.py without --limit): the split judge
     * and one plain process agree, but for the listed disagreements (judge-check/differential-known.txt).
     */
    @Test
    void theSplitJudgeAgreesWithOneProcessOnASubsetOfTheDifferentialCorpus() throws Exception {
        Path data = dataset();
        Path dir = Path.of(SplitJudgeScriptsIT.class.getResource("/judge-check").toURI());
        Process p = new ProcessBuilder(PYTHON, dir.resolve("differential.py").toString(), "--scripts", scripts.toString(),
                "--data", data.toString(), "--limit", "150", "--known", dir.resolve("differential-known.txt").toString())
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(15, TimeUnit.MINUTES)).isTrue();
        assertThat(out).as(out).contains("differential: 150 completions").contains("0 of them unexplained");
        assertThat(p.exitValue()).as(out).isZero();
    }

    /**
     * As root only: each attack's candidate under bubblewrap and a uid of its own, the judge under another,
     * as the tiers run them. (Unconfined, the host's own files are in reach: a copy of the HumanEval tests
     * anywhere on disk is a lookup table, which no judge design can hide.)
     */
    @Test
    void noAttackPasses() throws Exception {
        assumeTrue(root() && Files.isExecutable(Path.of("/usr/bin/bwrap")), "the attacks run as root, under bwrap");
        Path data = dataset();
        Path attacks = Path.of(SplitJudgeScriptsIT.class.getResource("/judge-attacks").toURI());
        long count;
        try (Stream<Path> s = Files.list(attacks)) {
            count = s.filter(p -> p.toString().endsWith(".py")).count();
        }
        List<String> args = new ArrayList<>(List.of("attacks", "--data", data.toString(), "--attacks", attacks.toString(),
                "--show", "--workers", "2", "--uids", "--bwrap"));
        Check c = check(args.toArray(new String[0]));
        assertThat(c.output).as(c.output).contains("0/" + count + " passed");
        assertThat(count).isGreaterThanOrEqualTo(20);
        assertThat(c.status).isZero();
    }

    // ------------------------------------------------------------------ helpers

    private record Judged(String report) {
        String outcome() {
            Matcher m = OUTCOME.matcher(report);
            return m.find() ? m.group(1) : "no-verdict";
        }
    }

    private record Check(int status, String output) {
    }

    /** Runs the code and the tests as the tiers will: two processes, two FIFOs, two uids when root. */
    private static Judged judge(String code, String tests) throws Exception {
        Path dir = Files.createTempDirectory("split-judge-run-");
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path call = dir.resolve("call");
            Path reply = dir.resolve("reply");
            // as the process tier hands a channel over: the judge's, group the candidate's, each FIFO open only in
            // the direction its side uses it (the wire refuses a FIFO other users can open); one uid's alone unless root
            for (Path fifo : List.of(call, reply)) {
                Process mk = new ProcessBuilder("mkfifo", "-m", "0600", fifo.toString()).start();
                assertThat(mk.waitFor()).isZero();
                if (root()) {
                    Files.setAttribute(fifo, "unix:uid", (int) JUDGE_UID);
                    Files.setAttribute(fifo, "unix:gid", (int) CANDIDATE_UID);
                    Files.setPosixFilePermissions(fifo, PosixFilePermissions.fromString(fifo == call ? "-w-r-----" : "r---w----"));
                }
            }
            Path main = write(dir.resolve("main.py"), code, "rw-r--r--");
            // the tests where the candidate cannot read them
            Path judgeDir = Files.createDirectory(dir.resolve("judge"), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            Path judgeCode = write(judgeDir.resolve("main.py"), code, "rw-------");
            Path testsFile = write(judgeDir.resolve("tests.py"), tests, "rw-------");
            if (root()) {
                for (Path p : List.of(judgeDir, judgeCode, testsFile)) {
                    Files.setAttribute(p, "unix:uid", (int) JUDGE_UID);
                }
            }
            Process candidate = start(CANDIDATE_UID, dir, List.of(PYTHON, scripts.resolve("candidate.py").toString(),
                    call.toString(), reply.toString(), main.toString()));
            Process judge = start(JUDGE_UID, dir, List.of(PYTHON, "-I", "-S", scripts.resolve("judge.py").toString(),
                    reply.toString(), call.toString(), judgeCode.toString(), testsFile.toString()));
            candidate.getOutputStream().close();
            judge.getOutputStream().close();
            String report = new String(judge.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            boolean ended = judge.waitFor(20, TimeUnit.SECONDS);
            candidate.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            assertThat(ended).as("the judge ended").isTrue();
            return new Judged(report);
        } finally {
            delete(dir);
        }
    }

    private static Process start(long uid, Path dir, List<String> command) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (root()) {
            cmd.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "--no-new-privs", "--"));
        }
        cmd.addAll(command);
        return new ProcessBuilder(cmd).directory(dir.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static Check check(String... args) throws Exception {
        Path script = Path.of(SplitJudgeScriptsIT.class.getResource("/judge-check/check_datasets.py").toURI());
        List<String> cmd = new ArrayList<>(List.of(PYTHON, script.toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--scripts", scripts.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, TimeUnit.MINUTES)).isTrue();
        return new Check(p.exitValue(), out);
    }

    private static Path dataset() {
        String root = System.getenv("CODEAGENT_REPO_ROOT");
        Path base = root != null ? Path.of(root) : Path.of("").toAbsolutePath();
        for (Path dir = base; dir != null; dir = dir.getParent()) {
            for (Path data : List.of(dir.resolve("shared/data"), dir.resolve("../shared/data"))) {
                if (Files.isRegularFile(data.resolve("HumanEval.jsonl"))) {
                    return data.normalize();
                }
            }
        }
        assumeTrue(false, "HumanEval.jsonl not found in shared/data beside the repository");
        return null;
    }

    private static boolean root() {
        try {
            return "0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                    StandardCharsets.US_ASCII).strip());
        } catch (IOException e) {
            return false;
        }
    }

    private static Path write(Path file, String text, String mode) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    private static void delete(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
