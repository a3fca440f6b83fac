package dev.codeagent.application.sandbox;

import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.UnsupportedLanguageException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link Sandbox} tier promises, whatever it runs on. A tier's test extends this
 * class and supplies the sandbox (usually one shared instance built in {@code @BeforeAll} and closed in
 * {@code @AfterAll}); the tests run real programs through it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class SandboxContractTest {

    /** The sandbox under test; may return the same instance on every call. */
    protected abstract Sandbox sandbox();

    /** Outcome, detail and stderr of an execution, for assertion messages. */
    protected static String why(Execution e) {
        return e.outcome() + " (" + e.detail() + "), exit " + e.exitCode() + ", signal " + e.signal() + ", stderr: "
                + e.stderr().text();
    }

    /** Limits the tests start from: the defaults with a wall time that keeps the suite quick. */
    protected ResourceLimits limits() {
        return ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10));
    }

    /** Time a tier may take beyond a wall limit to kill and clean up a run. */
    protected Duration slack() {
        return Duration.ofSeconds(3);
    }

    /** How long processes may linger after {@code execute} returns; the contract says none, so zero. */
    protected Duration survivorGrace() {
        return Duration.ZERO;
    }

    protected Execution run(String python) {
        return run(python, "", limits());
    }

    protected Execution run(String python, String stdin, ResourceLimits limits) {
        return sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON, python), stdin, limits));
    }

    /**
     * Guarantees this tier is known not to hold yet, by test method name, with why: such a test is reported
     * skipped with that reason instead of passing or hiding. Every entry is a gap the docs name.
     */
    protected java.util.Map<String, String> knownGaps() {
        return java.util.Map.of();
    }

    private void skipIfKnownGap(String test) {
        String why = knownGaps().get(test);
        org.junit.jupiter.api.Assumptions.assumeTrue(why == null, () -> "a known gap of this tier: " + why);
    }

    @Test
    void describesItself() {
        assertThat(sandbox().tier()).isNotBlank();
        assertThat(sandbox().isolation().tier()).isEqualTo(sandbox().tier());
        assertThat(sandbox().languages()).contains(Language.PYTHON);
    }

    /**
     * Every tier answers the same questions in the same words: whether the network is closed, the process
     * space private, the uid unprivileged, rlimits set. Each is either in force or reported missing, never
     * silently absent, and nothing is both.
     */
    @Test
    void reportsIsolationInTheSharedVocabulary() {
        Isolation i = sandbox().isolation();
        assertThat(java.util.Collections.disjoint(i.features(), i.missing())).as(i.toString()).isTrue();
        for (IsolationFeature f : List.of(IsolationFeature.NETWORK_NONE, IsolationFeature.PID_NAMESPACE,
                IsolationFeature.UNPRIVILEGED_UID, IsolationFeature.RLIMITS, IsolationFeature.MOUNT_NAMESPACE)) {
            assertThat(i.has(f) || i.missing().contains(f)).as(f.wireName() + " in " + i).isTrue();
        }
        assertThat(i.sortedFeatures()).allSatisfy(name -> assertThat(IsolationFeature.fromWireName(name)).isPresent());
    }

    @Test
    void runsAProgramAndCapturesStdout() {
        Execution e = run("print('hello')");
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.exitCode()).isZero();
        assertThat(e.signal()).isNull();
        assertThat(e.stdout().text()).isEqualTo("hello\n");
        assertThat(e.stdout().truncated()).isFalse();
        assertThat(e.stderr().text()).isEmpty();
        assertThat(e.wallTime()).isPositive();
        assertThat(e.isolation()).isEqualTo(sandbox().isolation());
    }

    @Test
    void keepsStdoutAndStderrApart() {
        Execution e = run("import sys\nprint('out')\nprint('err', file=sys.stderr)");
        assertThat(e.stdout().text()).isEqualTo("out\n");
        assertThat(e.stderr().text()).isEqualTo("err\n");
    }

    @Test
    void nonZeroExitIsARuntimeErrorWithItsStatus() {
        Execution e = run("import sys\nprint('before')\nsys.exit(3)");
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.exitCode()).isEqualTo(3);
        assertThat(e.stdout().text()).isEqualTo("before\n");
    }

    @Test
    void theProgramGetsStandardPythonWithSiteBuiltins() {
        // generated code calls exit() and quit() often; they come from the site module
        Execution e = run("print('x')\nexit(4)");
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.exitCode()).isEqualTo(4);
        Execution site = run("import sys\nprint(sys.flags.no_site)");
        assertThat(site.stdout().text()).as(why(site)).isEqualTo("0\n");
    }

    @Test
    void uncaughtExceptionIsARuntimeErrorWithTheTraceback() {
        Execution e = run("def f(x):\n    return 1 / x\n\nf(0)\n");
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.exitCode()).isEqualTo(1);
        assertThat(e.stderr().text()).contains("Traceback").contains("ZeroDivisionError").contains("line 2");
    }

    @Test
    void syntaxErrorIsARuntimeError() {
        Execution e = run("def broken(:\n  pass\n");
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.stderr().text()).contains("SyntaxError");
    }

    @Test
    void stdinIsAtEndOfFileUnlessGiven() {
        Execution e = run("import sys\nprint(repr(sys.stdin.read()))");
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("''\n");
    }

    @Test
    void passesStdin() {
        Execution e = run("import sys\nfor line in sys.stdin:\n    print(int(line) * 2)", "1\n2\n21\n", limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("2\n4\n42\n");
    }

    @Test
    void passesLargeStdinWithoutDeadlock() {
        String big = "x".repeat(300_000) + "\n";
        Execution e = run("import sys\ndata = sys.stdin.read()\nprint(len(data))", big, limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("300001\n");
    }

    @Test
    void passesArgumentsAfterTheFileName() {
        ExecutionRequest r = new ExecutionRequest(new Program(Language.PYTHON, "import sys\nprint(sys.argv[1:])"), "",
                List.of("a b", "--flag", "ünï"), limits());
        Execution e = sandbox().execute(r);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("['a b', '--flag', 'ünï']\n");
    }

    @Test
    void placesExtraFilesBesideTheSource() {
        Program p = new Program(Language.PYTHON,
                "from pkg.util import twice\nprint(twice(open('data.txt').read().strip()))",
                Map.of("data.txt", "21\n", "pkg/__init__.py", "", "pkg/util.py", "def twice(s):\n    return int(s) * 2\n"));
        Execution e = sandbox().execute(new ExecutionRequest(p, "", limits()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("42\n");
    }

    @Test
    void recordsTheOrderInWhichTheTwoStreamsArrived() {
        Execution e = run("import sys, time\n"
                + "for i in range(3):\n"
                + "    print('out', i, flush=True)\n"
                + "    time.sleep(0.15)\n"
                + "    print('err', i, file=sys.stderr, flush=True)\n"
                + "    time.sleep(0.15)\n");
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("out 0\nout 1\nout 2\n");
        assertThat(e.output()).as("the tier records the arrival order").isNotNull();
        assertThat(e.output().text()).isEqualTo("out 0\nerr 0\nout 1\nerr 1\nout 2\nerr 2\n");
    }

    @Test
    void writesBinaryFilesByteForByte() {
        byte[] every = new byte[256];
        for (int i = 0; i < every.length; i++) {
            every[i] = (byte) i;
        }
        Program p = new Program(Language.PYTHON, "import hashlib\n"
                + "b = open('bin/all.dat', 'rb').read()\n"
                + "print(len(b), hashlib.sha256(b).hexdigest())\n"
                + "print(open('text.txt', 'rb').read())\n",
                Map.of("text.txt", "tëxt"), null,
                Map.of("bin/all.dat", java.util.Base64.getEncoder().encodeToString(every)));
        Execution e = sandbox().execute(new ExecutionRequest(p, "", limits()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("256 40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880\n"
                + "b't\\xc3\\xabxt'\n");
    }

    @Test
    void workDirectoryIsWritable() {
        Execution e = run("open('out.txt', 'w').write('kept')\nprint(open('out.txt').read())\n"
                + "import tempfile\nwith tempfile.TemporaryFile() as t:\n    t.write(b'x')\nprint('tmp ok')");
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("kept\ntmp ok\n");
    }

    @Test
    void speaksUtf8() {
        Execution e = run("print('héllo wörld ✓')");
        assertThat(e.stdout().text()).isEqualTo("héllo wörld ✓\n");
    }

    @Test
    void replacesInvalidUtf8() {
        Execution e = run("import sys\nsys.stdout.buffer.write(b'ok\\xff\\xfe-\\xc3')\nsys.stderr.buffer.write(b'\\x80err')");
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).startsWith("ok\uFFFD").contains("-");
        assertThat(e.stderr().text()).isEqualTo("\uFFFDerr");
    }

    @Test
    void capsStdoutAndEndsAsOutputLimit() {
        ResourceLimits l = limits().withMaxOutputBytes(10_000);
        Execution e = run("import sys\nsys.stdout.write('a' * 9000)\nsys.stdout.flush()\nsys.stdout.write('b' * 50000)\n", "", l);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OUTPUT_LIMIT);
        assertThat(e.stdout().truncated()).isTrue();
        assertThat(e.stdout().text()).startsWith("a".repeat(9000));
        assertThat(e.stdout().text().length()).isLessThanOrEqualTo(10_000);
        assertThat(e.stderr().truncated()).isFalse();
    }

    @Test
    void capsStderrToo() {
        ResourceLimits l = limits().withMaxOutputBytes(4096);
        Execution e = run("import sys\nsys.stderr.write('e' * 100000)", "", l);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OUTPUT_LIMIT);
        assertThat(e.stderr().truncated()).isTrue();
        assertThat(e.stderr().text()).hasSizeLessThanOrEqualTo(4096).startsWith("eeee");
    }

    @Test
    void outputExactlyAtTheCapIsNotTruncated() {
        ResourceLimits l = limits().withMaxOutputBytes(5000);
        Execution e = run("import sys\nsys.stdout.write('z' * 5000)", "", l);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().truncated()).isFalse();
        assertThat(e.stdout().text()).hasSize(5000);
    }

    @Test
    void wallTimeLimitEndsAsTimeLimitAndKeepsPartialOutput() {
        ResourceLimits l = limits().withWallTime(Duration.ofSeconds(1));
        long start = System.nanoTime();
        Execution e = run("import sys, time\nprint('started', flush=True)\nprint('err', file=sys.stderr, flush=True)\n"
                + "time.sleep(60)\nprint('never')", "", l);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(e.stdout().text()).isEqualTo("started\n");
        assertThat(e.stderr().text()).isEqualTo("err\n");
        assertThat(e.exitCode()).isNull();
        assertThat(took).isLessThan(Duration.ofSeconds(1).plus(slack()));
        assertThat(e.wallTime()).isGreaterThanOrEqualTo(Duration.ofMillis(900));
    }

    @Test
    void cpuTimeLimitEndsAsTimeLimit() {
        ResourceLimits l = limits().withWallTime(Duration.ofSeconds(8)).withCpuTime(Duration.ofSeconds(1));
        Execution e = run("print('spin', flush=True)\nwhile True:\n    pass", "", l);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(e.stdout().text()).isEqualTo("spin\n");
        assertThat(e.wallTime()).isLessThan(Duration.ofSeconds(8));
    }

    @Test
    void aSigxcpuTheProgramSendsItselfIsNotTheCpuLimit() {
        // any process may signal itself: only CPU time measured where the program cannot write makes SIGXCPU the limit
        ResourceLimits l = limits().withWallTime(Duration.ofSeconds(8)).withCpuTime(Duration.ofSeconds(2));
        Execution e = run("import os, signal\nos.kill(os.getpid(), signal.SIGXCPU)", "", l);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.signal()).isEqualTo(24);
    }

    @Test
    void memoryLimitIsToldApartFromARuntimeError() {
        ResourceLimits l = limits().withMemoryBytes(96 * ResourceLimits.MIB);
        Execution e = run("blocks = []\nwhile True:\n    blocks.append(bytearray(8 * 1024 * 1024))", "", l);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
    }

    @Test
    void runsManyExecutionsInParallelWithoutCrossTalk() throws Exception {
        int n = 8;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<Execution>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String id = "run-" + i;
                String code = "import os, time\n"
                        + "for path in ('shared.txt', '/tmp/shared.txt'):\n"
                        + "    open(path, 'w').write('" + id + "')\n"
                        + "time.sleep(0.3)\n"
                        + "print(open('shared.txt').read(), open('/tmp/shared.txt').read(), sorted(os.listdir('.')))\n";
                futures.add(pool.submit(() -> run(code)));
            }
            for (int i = 0; i < n; i++) {
                Execution e = futures.get(i).get(60, TimeUnit.SECONDS);
                assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
                assertThat(e.stdout().text()).isEqualTo("run-" + i + " run-" + i + " ['main.py', 'shared.txt']\n");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void interruptingTheCallerCancelsAndKillsTheRun() throws Exception {
        skipIfKnownGap("interruptingTheCallerCancelsAndKillsTheRun");
        String marker = HostProbe.marker("cancel");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        ResourceLimits l = limits().withWallTime(Duration.ofSeconds(30)).withCpuTime(Duration.ofSeconds(30));
        Thread caller = new Thread(() -> {
            try {
                sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON,
                        "import time\nprint('up', flush=True)\ntime.sleep(60)"), "", List.of(marker), l));
            } catch (Throwable t) {
                thrown.set(t);
            }
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        });
        caller.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!programRunning(marker) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(programRunning(marker)).as("the run started").isTrue();
        Thread.sleep(200);
        long interruptedAt = System.nanoTime();
        caller.interrupt();
        caller.join(Duration.ofSeconds(10).toMillis());
        assertThat(caller.isAlive()).as("execute returned after the interrupt").isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - interruptedAt)).isLessThan(slack());
        assertThat(thrown.get()).isInstanceOf(ExecutionCancelledException.class);
        assertThat(interruptedAfter.get()).as("interrupt flag set again").isTrue();
        assertThat(survivors(marker)).isEmpty();
    }

    /**
     * Whether the program run with {@code marker} among its arguments is running now: seen in the host's /proc.
     * A tier whose programs the host cannot see (gVisor) asks its own kernel.
     */
    protected boolean programRunning(String marker) throws Exception {
        return !HostProbe.processesWithArg(marker).isEmpty();
    }

    /** What is left of the program run with {@code marker} once {@link #survivorGrace()} has passed; empty when nothing. */
    protected List<?> survivors(String marker) {
        return HostProbe.survivors(marker, survivorGrace());
    }

    @Test
    void refusesALanguageItCannotRun() {
        Set<Language> missing = EnumSet.allOf(Language.class);
        missing.removeAll(sandbox().languages());
        assumeThat(missing).as("every language is supported here").isNotEmpty();
        Language l = missing.iterator().next();
        assertThatThrownBy(() -> sandbox().execute(new ExecutionRequest(new Program(l, "x"), "", limits())))
                .isInstanceOf(UnsupportedLanguageException.class);
    }

    @Test
    void runsBash() {
        assumeThat(sandbox().languages()).contains(Language.BASH);
        Execution e = sandbox().execute(new ExecutionRequest(new Program(Language.BASH,
                "read x\necho \"got $x and $1\"\nexit 4"), "in\n", List.of("arg"), limits()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.exitCode()).isEqualTo(4);
        assertThat(e.stdout().text()).isEqualTo("got in and arg\n");
    }

    @Test
    void runsJavaScript() {
        assumeThat(sandbox().languages()).contains(Language.JAVASCRIPT);
        Execution e = sandbox().execute(new ExecutionRequest(new Program(Language.JAVASCRIPT,
                "console.log('js', process.argv.slice(2).join(','));"), "", List.of("a", "b"), limits()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("js a,b\n");
    }

    @Test
    void javaScriptErrorIsARuntimeError() {
        assumeThat(sandbox().languages()).contains(Language.JAVASCRIPT);
        Execution e = sandbox().execute(new ExecutionRequest(new Program(Language.JAVASCRIPT,
                "throw new Error('boom');"), "", limits()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.stderr().text()).contains("boom");
    }

    /** A V8 heap overflow is the memory limit in every tier (it once was a runtime error in one of them). */
    @Test
    void javaScriptHeapOverflowIsAMemoryLimit() {
        assumeThat(sandbox().languages()).contains(Language.JAVASCRIPT);
        Execution e = sandbox().execute(new ExecutionRequest(new Program(Language.JAVASCRIPT,
                "const a = [];\nwhile (true) { a.push(new Array(1 << 20).fill(a.length + 0.5)); }"), "",
                limits().withMemoryBytes(128L * 1024 * 1024).withWallTime(Duration.ofSeconds(30))));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
    }
}
