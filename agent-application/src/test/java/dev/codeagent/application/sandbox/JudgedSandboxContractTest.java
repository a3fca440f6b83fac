package dev.codeagent.application.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What every tier owes a judged execution (see {@link Sandbox#execute}): the verdict is the judge's, made where
 * the code cannot reach. Each attack of the corpus ({@code kit-sandbox/src/test/resources/judge-attacks}: reading
 * its own source, frames, {@code gc}, {@code /proc}, fds; exiting early every way; patching builtins and
 * {@code __eq__}; printing markers) runs as a HumanEval completion and must not get a passing report; honest code
 * passes with the value it returned shown when it fails; the tests cannot be read by the code. A tier's
 * integration test extends this class and supplies the sandbox.
 */
public abstract class JudgedSandboxContractTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The sandbox under test, shared by the tests of a class. */
    protected abstract Sandbox sandbox();

    protected ResourceLimits limits() {
        return ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10)).withCpuTime(Duration.ofSeconds(5));
    }

    protected Execution judge(String code, JudgeJob job) {
        return sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON, code), "", List.of(), limits(), job));
    }

    private static String why(Execution e) {
        return e.outcome() + " exit=" + e.exitCode() + " signal=" + e.signal() + " detail=" + e.detail() + " judgement="
                + e.judgement() + " stderr=" + e.stderr().text();
    }

    @Test
    void honestCodePassesAndItsStdoutIsItsOwn() {
        Execution e = judge("def add(a, b):\n    print('adding', a, b)\n    return a + b\n",
                new JudgeJob("assert add(1, 2) == 3\nassert add('a', 'b') == 'ab'\n", null, List.of("add")));
        assertThat(e.judgement()).as(why(e)).isNotNull();
        assertThat(e.judgement().outcome()).as(why(e)).isEqualTo(JudgeReport.Outcome.PASSED);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("adding 1 2\nadding a b\n");
        assertThat(e.stderr().text()).as("nothing of the judge in the program's stderr").isEmpty();
    }

    @Test
    void aWrongAnswerIsAnAssertionShowingTheValueTheCodeReturned() {
        Execution e = judge("def add(a, b):\n    return a - b\n",
                new JudgeJob("assert add(2, 2) == 4\n", null, List.of("add")));
        assertThat(e.judgement()).as(why(e)).isNotNull();
        assertThat(e.judgement().outcome()).isEqualTo(JudgeReport.Outcome.ASSERTION);
        assertThat(e.judgement().testLine()).isEqualTo(1);
        assertThat(e.judgement().testSource()).isEqualTo("assert add(2, 2) == 4");
        assertThat(e.judgement().calls()).anySatisfy(c -> assertThat(c).contains("add(2, 2)").contains("returned 0"));
    }

    @Test
    void anExceptionInTheCodeIsReportedWithItsLineInTheCode() {
        Execution e = judge("def inv(x):\n    y = 1\n    return y / x\n",
                new JudgeJob("assert inv(0) == 1\n", null, List.of("inv")));
        assertThat(e.judgement()).as(why(e)).isNotNull();
        assertThat(e.judgement().outcome()).isEqualTo(JudgeReport.Outcome.RAISED);
        assertThat(e.judgement().error().type()).isEqualTo("ZeroDivisionError");
        assertThat(e.judgement().error().frames()).anySatisfy(f -> {
            assertThat(f.line()).isEqualTo(3);
            assertThat(f.source()).isEqualTo("return y / x");
        });
    }

    @Test
    void theTestsAreNowhereTheCodeCanLook() {
        String marker = "codeagent-secret-" + UUID.randomUUID().toString().replace("-", "");
        // the code searches everything it can open for the marker the tests hold (spelled backwards in its own
        // source, so that only a copy of the tests can match), and says what it found
        String code = "import os, stat\n"
                + "def found():\n"
                + "    hits = []\n"
                + "    paths = []\n"
                + "    for d, dirs, files in os.walk('/'):\n"
                + "        if d in ('/proc', '/sys', '/usr', '/dev'):\n"
                + "            dirs[:] = []\n"
                + "            continue\n"
                + "        paths += [os.path.join(d, f) for f in files]\n"
                + "    for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
                + "        paths += ['/proc/%s/%s' % (pid, f) for f in ('cmdline', 'environ', 'maps')]\n"
                + "    for p in paths:\n"
                + "        try:\n"
                + "            if not stat.S_ISREG(os.stat(p).st_mode) and not p.startswith('/proc/'):\n"
                + "                continue\n"
                + "            with open(p, 'rb') as fh:\n"
                + "                if b'" + new StringBuilder(marker).reverse() + "'[::-1] in fh.read(1 << 20):\n"
                + "                    hits.append(p)\n"
                + "        except Exception:\n"
                + "            pass\n"
                + "    return hits\n";
        Execution e = judge(code, new JudgeJob("MARK = '" + marker + "'\nassert found() == []\n", null, List.of("found")));
        assertThat(e.judgement()).as(why(e)).isNotNull();
        assertThat(e.judgement().outcome()).as(why(e) + " calls " + e.judgement().calls()).isEqualTo(JudgeReport.Outcome.PASSED);
    }

    @Test
    void codeThatEndsItselfBeforeTheTestsIsNeverPassed() {
        for (String end : List.of("import os\nos._exit(0)\n", "import sys\nsys.exit(0)\n",
                "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")) {
            Execution e = judge("def f():\n    return 1\n" + end, new JudgeJob("assert f() == 1\n", null, List.of("f")));
            assertThat(e.judgement()).as(end + why(e)).satisfiesAnyOf(
                    r -> assertThat(r).isNull(), r -> assertThat(r.passed()).isFalse());
        }
    }

    @Test
    void aJudgeThatNeverEndsIsBoundedAndNotPassed() {
        long start = System.nanoTime();
        Execution e = sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON, "def f():\n    return 1\n"), "",
                List.of(), limits().withWallTime(Duration.ofSeconds(2)).withCpuTime(Duration.ofSeconds(2)),
                new JudgeJob("while True:\n    f()\n", null, List.of("f"))));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
        assertThat(e.judgement()).as(why(e)).satisfiesAnyOf(r -> assertThat(r).isNull(), r -> assertThat(r.passed()).isFalse());
    }

    /** A large data global (told to the judge as the code's state) is the code's right: it must not fail the tests. */
    @Test
    void codeHoldingAMegabytesStringGlobalIsJudgedOnItsAnswers() {
        Execution e = judge("DATA = 'x' * 3000000\ndef f():\n    return len(DATA)\n",
                new JudgeJob("assert f() == 3000000\nassert len(DATA) == 3000000\n", null, List.of("f")));
        assertThat(e.judgement()).as(why(e)).isNotNull();
        assertThat(e.judgement().outcome()).as(why(e)).isEqualTo(JudgeReport.Outcome.PASSED);
    }

    /**
     * The judge's CPU reading a sample's replies is the sample's: code that answers every call with one large but
     * legal reply, encoded once (its own cost per call is a write), makes the judge parse megabytes per call; under a
     * 1 s CPU limit that ends as a failure naming that limit (not the judge's default 10 s), well before the wall
     * time, never as a judge killed mute.
     */
    @Test
    void repliesThatCostTheJudgeMoreThanTheSamplesCpuLimitEndTheSample() {
        String code = "import os, sys\n"
                + "def f():\n"
                + "    return 0\n"
                + "_body = ('[\"ok\",[' + ','.join(['1234567'] * 400000) + '],[],[]]').encode()\n"
                + "_frame = b'%d\\n' % len(_body) + _body\n"
                + "for _m in list(sys.modules.values()):\n"
                + "    if hasattr(_m, 'write_frame') and hasattr(_m, 'MAX_FRAME'):\n"
                + "        def _wf(fd, message, orig=_m.write_frame):\n"
                + "            if message[0] != 'ok':\n"
                + "                return orig(fd, message)\n"
                + "            data = memoryview(_frame)\n"
                + "            while data:\n"
                + "                data = data[os.write(fd, data):]\n"
                + "        _m.write_frame = _wf\n";
        long start = System.nanoTime();
        Execution e = sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON, code), "", List.of(),
                limits().withWallTime(Duration.ofSeconds(30)).withCpuTime(Duration.ofSeconds(1)),
                new JudgeJob("for _ in range(5000):\n    f()\n", null, List.of("f"))));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        // the judge stops reading at the sample's limit and says so; where the tier counts the judge's CPU with the
        // sample's (docker: the container's control group), the run is killed at that limit first
        assertThat(e).as(why(e)).satisfiesAnyOf(
                x -> {
                    assertThat(x.judgement()).isNotNull();
                    assertThat(x.judgement().outcome()).isEqualTo(JudgeReport.Outcome.PROTOCOL);
                    assertThat(x.judgement().message()).contains("more than 1 s of CPU").contains("time limit");
                },
                x -> {
                    assertThat(x.outcome()).isEqualTo(Outcome.TIME_LIMIT);
                    assertThat(x.detail()).contains("CPU-time limit of 1s");
                    assertThat(x.judgement() == null || !x.judgement().passed()).isTrue();
                });
        assertThat(took).as("bounded well under the 30 s wall time").isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void noAttackOfTheCorpusIsPassed() throws IOException {
        Map<String, JsonNode> humanEval = humanEval();
        List<String> passed = new ArrayList<>();
        int n = 0;
        for (Map.Entry<String, String> attack : attacks().entrySet()) {
            String src = attack.getValue();
            String task = src.lines().findFirst().orElseThrow().split("task:")[1].strip();
            JsonNode p = humanEval.get(task);
            Execution e = judge(p.get("prompt").asText() + src, job(p));
            n++;
            if (e.judgement() != null && e.judgement().passed()) {
                passed.add(attack.getKey() + ": " + why(e));
            }
        }
        assertThat(n).isGreaterThanOrEqualTo(31);
        assertThat(passed).as("attacks that got a passing report").isEmpty();
    }

    @Test
    void humanEvalReferenceSolutionsPass() throws IOException {
        List<String> failed = new ArrayList<>();
        int n = 0;
        for (JsonNode p : humanEval().values()) {
            if (n++ >= sampleSize()) {
                break;
            }
            Execution e = judge(p.get("prompt").asText() + p.get("canonical_solution").asText(), job(p));
            if (e.judgement() == null || !e.judgement().passed() || e.outcome() != Outcome.OK) {
                failed.add(p.get("task_id").asText() + ": " + why(e));
            }
        }
        assertThat(failed).isEmpty();
    }

    /** How many HumanEval reference solutions {@link #humanEvalReferenceSolutionsPass} checks (all 164 at most). */
    protected int sampleSize() {
        return 20;
    }

    protected static JudgeJob job(JsonNode p) {
        return new JudgeJob(p.get("test").asText() + "\ncheck(" + p.get("entry_point").asText() + ")\n",
                p.get("prompt").asText(), List.of(p.get("entry_point").asText()));
    }

    /** The repository's root: the first directory up from here holding agent-domain. */
    protected static Path repository() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("agent-domain"))) {
            p = p.getParent();
        }
        assertThat(p).as("the repository root above " + Path.of("").toAbsolutePath()).isNotNull();
        return p;
    }

    protected static Map<String, JsonNode> humanEval() throws IOException {
        String dir = System.getenv("CODEAGENT_DATA");
        Path file = (dir != null ? Path.of(dir) : repository().getParent().resolve("shared/data")).resolve("HumanEval.jsonl");
        assumeTrue(Files.isRegularFile(file), file + " not found (set CODEAGENT_DATA)");
        Map<String, JsonNode> problems = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                JsonNode p = JSON.readTree(line);
                problems.put(p.get("task_id").asText(), p);
            }
        }
        return problems;
    }

    private static Map<String, String> attacks() throws IOException {
        Path dir = repository().resolve("kit-sandbox/src/test/resources/judge-attacks");
        Map<String, String> attacks = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".py")).sorted().toList()) {
                attacks.put(f.getFileName().toString(), Files.readString(f));
            }
        }
        return attacks;
    }
}
