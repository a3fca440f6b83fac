package dev.codeagent.application.command;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.config.Units;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Task;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rules for a task and its limits, as one table: what a user writes (a task file, an HTTP body),
 * on which door, and the task it becomes or the field error it gets. Both doors read the same JSON
 * tree; only their {@link InputPolicy} differs.
 */
class TaskRequestRulesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<Language> ALL = EnumSet.allOf(Language.class);

    /** The command line: the sandbox's own ranges, network grantable. */
    static final InputPolicy CLI = InputPolicy.local();

    /** Like the HTTP door's: caps named by their config keys, never the network, short prompts. */
    static final InputPolicy HTTP = InputPolicy.local()
            .cap(LimitField.TIMEOUT, 60_000, "http.maxTimeout")
            .cap(LimitField.CPU_TIME, 60_000, "http.maxTimeout")
            .cap(LimitField.MEMORY, 512 * ResourceLimits.MIB, "http.maxMemory")
            .cap(LimitField.MAX_PROCESSES, 1024, null)
            .cap(LimitField.MAX_OUTPUT_BYTES, 8 * ResourceLimits.MIB, null)
            .cap(LimitField.MAX_FILE_BYTES, 64 * ResourceLimits.MIB, null)
            .withoutNetwork()
            .withMaxPromptChars(100);

    /** 10s wall and CPU, 256 MiB, 64 processes, 1 MiB output, 16 MiB files, no network; 3 attempts. */
    private static final TaskRequest.Defaults DEFAULTS = new TaskRequest.Defaults(ResourceLimits.defaults(), 3);

    static Stream<Arguments> rules() {
        return Stream.of(
                // durations: whole milliseconds or a string with a unit; the CPU limit follows the wall down
                row("milliseconds as a number", CLI, "{'prompt':'x','limits':{'timeoutMs':5000}}", "wall=5s cpu=5s"),
                row("a duration with a unit", HTTP, "{'prompt':'x','limits':{'timeoutMs':'2s'}}", "wall=2s cpu=2s"),
                row("a fractional duration", CLI, "{'prompt':'x','limits':{'timeoutMs':'1.5s'}}", "wall=1500ms"),
                row("the CPU limit set on its own stays, in any order", HTTP,
                        "{'prompt':'x','limits':{'cpuTimeMs':8000,'timeoutMs':5000}}", "wall=5s cpu=8s"),
                // of two limits on CPU time, the default's and the one a timeout implies, the tighter wins (issue 33)
                row("a longer timeout leaves the default CPU limit", HTTP, "{'prompt':'x','limits':{'timeoutMs':20000}}",
                        "wall=20s cpu=10s"),
                row("a CPU limit set below the timeout stays, in any order", CLI,
                        "{'prompt':'x','limits':{'timeoutMs':'8s','cpuTimeMs':'1s'}}", "wall=8s cpu=1s"),
                row("a number in a string has no unit", HTTP, "{'prompt':'x','limits':{'timeoutMs':'5'}}",
                        "error limits.timeoutMs: '5' has no unit"),
                row("not a duration", CLI, "{'prompt':'x','limits':{'timeoutMs':'soon'}}",
                        "error limits.timeoutMs: 'soon' is not a duration"),
                row("a fraction of a millisecond as a number", HTTP, "{'prompt':'x','limits':{'timeoutMs':1.5}}",
                        "error limits.timeoutMs: expected a whole number of milliseconds"),
                row("a number past a long", HTTP, "{'prompt':'x','limits':{'timeoutMs':9223372036854775808}}",
                        "error limits.timeoutMs: is out of range"),
                row("true for a duration", CLI, "{'prompt':'x','limits':{'timeoutMs':true}}",
                        "error limits.timeoutMs: expected a whole number of milliseconds or a duration like \"5s\", got true"),
                row("no time at all over HTTP", HTTP, "{'prompt':'x','limits':{'timeoutMs':0}}",
                        "error limits.timeoutMs: must be between 1ms and 1m (http.maxTimeout), was 0ms"),
                row("past the HTTP cap", HTTP, "{'prompt':'x','limits':{'timeoutMs':3600000}}",
                        "error limits.timeoutMs: must be between 1ms and 1m (http.maxTimeout), was 1h"),
                row("past the sandbox's maximum on the command line", CLI, "{'prompt':'x','limits':{'timeoutMs':'2h'}}",
                        "error limits.timeoutMs: must be between 1ms and 1h, was 2h"),
                row("a negative CPU time", HTTP, "{'prompt':'x','limits':{'cpuTimeMs':-1}}",
                        "error limits.cpuTimeMs: must be between 1ms and 1m (http.maxTimeout), was -1ms"),
                // sizes: whole bytes or a string with a unit
                row("bytes as a number", HTTP, "{'prompt':'x','limits':{'memoryBytes':268435456}}", "mem=256m"),
                row("a size with a unit (the example task)", HTTP, "{'prompt':'x','limits':{'timeoutMs':5000,'memoryBytes':'256m'}}",
                        "wall=5s cpu=5s mem=256m"),
                row("a binary unit with a fraction", CLI, "{'prompt':'x','limits':{'memoryBytes':'1.5GiB'}}", "mem=1536m"),
                row("the same size past the HTTP cap", HTTP, "{'prompt':'x','limits':{'memoryBytes':'1.5GiB'}}",
                        "error limits.memoryBytes: must be between 16 MiB and 512 MiB (http.maxMemory), was 1536 MiB"),
                row("below the sandbox's minimum", CLI, "{'prompt':'x','limits':{'memoryBytes':'1m'}}",
                        "error limits.memoryBytes: must be at least 16 MiB, was 1 MiB"),
                row("not a size", CLI, "{'prompt':'x','limits':{'memoryBytes':'lots'}}",
                        "error limits.memoryBytes: 'lots' is not a size"),
                row("output and file caps with units", CLI, "{'prompt':'x','limits':{'maxOutputBytes':'64k','maxFileBytes':0}}",
                        "out=64k file=0"),
                row("output past the HTTP cap", HTTP, "{'prompt':'x','limits':{'maxOutputBytes':'16m'}}",
                        "error limits.maxOutputBytes: must be between 1 byte and 8 MiB, was 16 MiB"),
                // counts: whole numbers only
                row("processes as a number", CLI, "{'prompt':'x','limits':{'maxProcesses':2000}}", "procs=2000"),
                row("processes past the HTTP cap", HTTP, "{'prompt':'x','limits':{'maxProcesses':2000}}",
                        "error limits.maxProcesses: must be between 1 and 1024, was 2000"),
                row("processes as a string", CLI, "{'prompt':'x','limits':{'maxProcesses':'64'}}",
                        "error limits.maxProcesses: expected a whole number, got string \"64\""),
                // the network: the command line may grant it, HTTP never
                row("network on the command line", CLI, "{'prompt':'x','limits':{'network':true}}", "net=true"),
                row("network over HTTP", HTTP, "{'prompt':'x','limits':{'network':true}}",
                        "error limits.network: network access is never granted here"),
                row("no network over HTTP, said out loud", HTTP, "{'prompt':'x','limits':{'network':false}}", "net=false"),
                row("network as a string", CLI, "{'prompt':'x','limits':{'network':'yes'}}",
                        "error limits.network: expected true or false"),
                // shape
                row("null limits are the defaults", HTTP, "{'prompt':'x','limits':null,'maxAttempts':null}",
                        "wall=10s cpu=10s mem=256m procs=64 out=1m file=16m net=false attempts=3 lang=python"),
                row("a null limit is its default", HTTP, "{'prompt':'x','limits':{'timeoutMs':null}}", "wall=10s"),
                row("limits that are not an object", HTTP, "{'prompt':'x','limits':'big'}", "error limits: expected an object"),
                row("an unknown limit", CLI, "{'prompt':'x','limits':{'wallTime':5000}}",
                        "error unknown field 'limits.wallTime'; known: timeoutMs, cpuTimeMs, memoryBytes"),
                row("an unknown field", CLI, "{'prompt':'x','limts':{}}", "error unknown field 'limts'; known: prompt, language"),
                row("a number for a string", CLI, "{'prompt':'x','tests':3}", "error tests: expected a string, got number"),
                row("not an object", CLI, "[1, 2]", "error task: expected one JSON object"),
                // the task itself
                row("no prompt", HTTP, "{'language':'python'}", "error prompt: required"),
                row("a blank prompt", CLI, "{'prompt':'   '}", "error prompt: required"),
                row("a prompt past the door's cap", HTTP, "{'prompt':'" + "x".repeat(101) + "'}", "error prompt: at most 100 characters"),
                row("the same prompt on the command line", CLI, "{'prompt':'" + "x".repeat(101) + "'}", "lang=python"),
                row("a NUL in the tests", CLI, "{'prompt':'x','tests':'assert 1\\u0000'}",
                        "error tests: contains a NUL character at offset 8"),
                row("too many attempts", CLI, "{'prompt':'x','maxAttempts':50}", "error maxAttempts: must be between 1 and 20, was 50"),
                row("a fraction of an attempt", HTTP, "{'prompt':'x','maxAttempts':2.5}", "error maxAttempts: expected a whole number"),
                row("attempts given", HTTP, "{'prompt':'x','maxAttempts':5}", "attempts=5"),
                row("a language by alias", HTTP, "{'prompt':'x','language':'js'}", "lang=javascript"),
                row("an unknown language", CLI, "{'prompt':'x','language':'cobol'}",
                        "error language: 'cobol' is not supported; supported: bash, c, cpp, go, java, javascript, python, rust"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void appliesTheRule(String name, InputPolicy policy, String json, String expected) throws Exception {
        FieldErrors errors = new FieldErrors();
        Object tree = JSON.readValue(json.replace('\'', '"'), Object.class);
        TaskRequest request = TaskRequest.fromTree(tree, errors);
        Task task = request == null ? null : request.toTask(DEFAULTS, ALL, policy, errors);
        if (expected.startsWith("error ")) {
            assertThat(task).as("refused").isNull();
            assertThat(errors.isEmpty()).isFalse();
            assertThat(errors.list().get(0).describe()).startsWith(expected.substring("error ".length()));
        } else {
            assertThat(errors.list()).isEmpty();
            assertThat(describe(task)).contains(expected);
        }
    }

    @Test
    void namesEveryWrongFieldAtOnce() throws Exception {
        FieldErrors errors = new FieldErrors();
        TaskRequest request = TaskRequest.fromTree(JSON.readValue(
                "{\"prompt\":\" \",\"maxAttempts\":99,\"limits\":{\"timeoutMs\":0,\"memoryBytes\":1024}}", Object.class), errors);
        request.toTask(DEFAULTS, ALL, HTTP, errors);
        assertThat(errors.list()).extracting(FieldError::field)
                .containsExactly("prompt", "maxAttempts", "limits.timeoutMs", "limits.memoryBytes");
        assertThat(errors.firstLine()).isEqualTo("prompt: required: what the code should do (and 3 more)");
    }

    @Test
    void aDoorHandsOutItsDefaultsOnlyWithinItsCaps() {
        ResourceLimits generous = ResourceLimits.defaults().withWallTime(Duration.ofMinutes(10)).withCpuTime(Duration.ofMinutes(10))
                .withMemoryBytes(2048 * ResourceLimits.MIB).withNetwork(true);
        ResourceLimits http = LimitOverrides.within(generous, HTTP);
        assertThat(http.wallTime()).isEqualTo(Duration.ofMinutes(1));
        assertThat(http.cpuTime()).isEqualTo(Duration.ofMinutes(1));
        assertThat(http.memoryBytes()).isEqualTo(512 * ResourceLimits.MIB);
        assertThat(http.network()).as("HTTP never grants the network, whatever the default").isFalse();
        assertThat(LimitOverrides.within(generous, CLI)).isEqualTo(generous);
    }

    @Test
    void flagsWinOverTheTaskFileFieldByField() throws Exception {
        FieldErrors errors = new FieldErrors();
        TaskRequest file = TaskRequest.fromTree(JSON.readValue(
                "{\"prompt\":\"from the file\",\"language\":\"bash\",\"limits\":{\"timeoutMs\":5000,\"memoryBytes\":\"256m\"},"
                        + "\"maxAttempts\":4}", Object.class), errors);
        TaskRequest flags = new TaskRequest(null, null, null, null, null,
                LimitOverrides.NONE.withMemoryBytes(64 * ResourceLimits.MIB), 2);
        Task task = file.overriddenBy(flags).toTask(DEFAULTS, ALL, CLI, errors);
        assertThat(errors.list()).isEmpty();
        assertThat(describe(task)).isEqualTo("wall=5s cpu=5s mem=64m procs=64 out=1m file=16m net=false attempts=2 lang=bash");
        assertThat(task.prompt()).isEqualTo("from the file");
    }

    /** {@code solve --timeout 8s} over a task file asking for 1 s of CPU: the flag is the wall limit, the file's CPU limit stays. */
    @Test
    void aTimeoutFlagNeverRaisesTheTaskFilesCpuLimit() throws Exception {
        FieldErrors errors = new FieldErrors();
        TaskRequest file = TaskRequest.fromTree(JSON.readValue(
                "{\"prompt\":\"p\",\"limits\":{\"cpuTimeMs\":\"1s\",\"timeoutMs\":\"2s\"}}", Object.class), errors);
        TaskRequest flags = new TaskRequest(null, null, null, null, null,
                LimitOverrides.NONE.withTimeout(Duration.ofSeconds(8)), null);
        Task task = file.overriddenBy(flags).toTask(DEFAULTS, ALL, CLI, errors);
        assertThat(errors.list()).isEmpty();
        assertThat(describe(task)).startsWith("wall=8s cpu=1s ");
    }

    private static Arguments row(String name, InputPolicy policy, String json, String expected) {
        return Arguments.of(name, policy, json, expected);
    }

    private static String describe(Task t) {
        ResourceLimits l = t.limits();
        return "wall=" + Units.formatDuration(l.wallTime()) + " cpu=" + Units.formatDuration(l.cpuTime())
                + " mem=" + Units.formatBytes(l.memoryBytes()) + " procs=" + l.maxProcesses()
                + " out=" + Units.formatBytes(l.maxOutputBytes()) + " file=" + Units.formatBytes(l.maxFileBytes())
                + " net=" + l.network() + " attempts=" + t.maxAttempts() + " lang=" + t.language().id();
    }
}
