package dev.codeagent.kit.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Frame;
import dev.codeagent.domain.solving.OutputDifference;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The stored form of the domain records is fixed by the files under {@code stored-json/}. They were
 * written by the reflection-based mapping this store used first, so they are also rows an earlier
 * version left in users' files. A change that fails here changes what is stored: rename a domain
 * component and keep the stored key, or add a schema step that rewrites old rows.
 */
class RunJsonTest {

    private final RunJson json = new RunJson();
    private final ObjectMapper mapper = new ObjectMapper();

    private static final Map<String, Object> GOLDEN = Map.of(
            "task-full.json", Samples.fullTask(),
            "task-bare.json", Samples.bareTask(),
            "attempt-full.json", StoredJsonSamples.fullAttempt(),
            "attempt-no-code.json", Samples.noCode(1));

    @Test
    void writesEveryRecordExactlyAsTheStoredFormSays() throws Exception {
        for (var e : GOLDEN.entrySet()) {
            String written = e.getValue() instanceof Task ? json.write((Task) e.getValue()) : json.write((Attempt) e.getValue());
            assertThat(mapper.readTree(written)).as(e.getKey()).isEqualTo(golden(e.getKey()));
        }
    }

    @Test
    void readsTheStoredFormBackToEqualRecords() throws Exception {
        for (var e : GOLDEN.entrySet()) {
            String stored = mapper.writeValueAsString(golden(e.getKey()));
            Object read = e.getValue() instanceof Task ? json.task(stored) : json.attempt(stored);
            assertThat(read).as(e.getKey()).isEqualTo(e.getValue());
        }
    }

    @Test
    void readsARowStoredBeforeArrivalOrderWasRecorded() throws Exception {
        ObjectNode row = (ObjectNode) golden("attempt-full.json");
        ((ObjectNode) row.get("execution")).remove("output");
        assertThat(json.attempt(mapper.writeValueAsString(row)).execution().output()).isNull();
    }

    @Test
    void storesACompiledProgramsCompileStageAndReadsRowsFromBeforeItExisted() throws Exception {
        Attempt full = StoredJsonSamples.fullAttempt();
        Execution stage = new Execution(Outcome.RUNTIME_ERROR, 1, null, CapturedOutput.EMPTY,
                new CapturedOutput("main.c:1:20: error: 'x' undeclared\n", false), java.time.Duration.ofMillis(120),
                java.time.Duration.ofMillis(90), 40L << 20, null, full.execution().isolation());
        Attempt compiled = new Attempt(full.number(), full.reply(), full.code(),
                Execution.compilationFailed(stage, "compilation failed: main.c:1:20: 'x' undeclared"), full.verdict(),
                full.feedback(), full.generationTime(), full.executionTime());
        assertThat(json.attempt(json.write(compiled))).isEqualTo(compiled);

        ObjectNode row = (ObjectNode) golden("attempt-full.json");
        ((ObjectNode) row.get("execution")).remove("compile");
        assertThat(json.attempt(mapper.writeValueAsString(row)).execution().compile()).isNull();
    }

    @Test
    void readsFeaturesInWhateverOrderAnOlderRowHasThem() throws Exception {
        ObjectNode row = (ObjectNode) golden("attempt-full.json");
        ObjectNode isolation = (ObjectNode) row.get("execution").get("isolation");
        isolation.putArray("features").add("rlimits").add("mount-ns").add("pid-ns");
        isolation.putArray("missing").add("cgroup-pids").add("cgroup-memory");
        assertThat(json.attempt(mapper.writeValueAsString(row))).isEqualTo(StoredJsonSamples.fullAttempt());
    }

    @Test
    void readsARowStoredBeforeJudgingExistedAsUnjudged() throws Exception {
        ObjectNode row = (ObjectNode) golden("attempt-full.json");
        ((ObjectNode) row.get("execution")).remove("judgement");
        assertThat(json.attempt(mapper.writeValueAsString(row)).execution().judgement()).isNull();

        ((ObjectNode) row.get("execution")).putObject("judgement").put("outcome", "bribed");
        assertThatThrownBy(() -> json.attempt(mapper.writeValueAsString(row)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("attempt.execution.judgement is not a judge report");
    }

    /** Attempts stored before placements were recorded have no key: they read with none. */
    @Test
    void readsAnAttemptStoredBeforePlacementsWithNone() throws Exception {
        ObjectNode row = (ObjectNode) golden("attempt-full.json");
        row.remove("placement");
        assertThat(json.attempt(mapper.writeValueAsString(row)).placement()).isNull();
        assertThat(json.attempt(mapper.writeValueAsString(golden("attempt-full.json"))).placement())
                .isEqualTo(new dev.codeagent.domain.solving.Placement("worker-2", 4711, "process"));
    }

    @Test
    void ignoresKeysANewerVersionAdded() throws Exception {
        ObjectNode row = (ObjectNode) golden("task-full.json");
        row.put("priority", "high");
        ((ObjectNode) row.get("limits")).put("gpus", 2);
        assertThat(json.task(mapper.writeValueAsString(row))).isEqualTo(Samples.fullTask());
    }

    /** A component added to a domain record must be stored too, not silently dropped: the counts must agree. */
    @Test
    void storesEveryComponentOfEveryStoredRecord() throws Exception {
        JsonNode task = golden("task-full.json");
        JsonNode attempt = golden("attempt-full.json");
        JsonNode execution = attempt.get("execution");
        JsonNode verdict = attempt.get("verdict");
        Map<Class<? extends Record>, JsonNode> stored = Map.ofEntries(
                Map.entry(Task.class, task),
                Map.entry(ResourceLimits.class, task.get("limits")),
                Map.entry(Attempt.class, attempt),
                Map.entry(Execution.class, execution),
                Map.entry(CapturedOutput.class, execution.get("stdout")),
                Map.entry(Isolation.class, execution.get("isolation")),
                Map.entry(Verdict.class, verdict),
                Map.entry(ErrorReport.class, verdict.get("error")),
                Map.entry(Frame.class, verdict.get("error").get("frames").get(0)),
                Map.entry(OutputDifference.class, verdict.get("difference")),
                Map.entry(dev.codeagent.domain.solving.Placement.class, attempt.get("placement")),
                Map.entry(JudgeReport.class, execution.get("judgement")),
                Map.entry(JudgeReport.RaisedError.class, execution.get("judgement").get("error")),
                Map.entry(JudgeReport.ReportedFrame.class, execution.get("judgement").get("error").get("frames").get(0)));
        for (var e : stored.entrySet()) {
            assertThat(e.getValue().size()).as("stored keys of " + e.getKey().getSimpleName() + " (map the new component in RunJson)")
                    .isEqualTo(e.getKey().getRecordComponents().length);
        }
    }

    @Test
    void namesTheMissingOrWrongFieldByItsPath() throws Exception {
        ObjectNode attempt = (ObjectNode) golden("attempt-full.json");
        ((ObjectNode) attempt.get("verdict")).remove("kind");
        assertThatThrownBy(() -> json.attempt(mapper.writeValueAsString(attempt)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("attempt.verdict.kind is missing");

        ObjectNode frame = (ObjectNode) golden("attempt-full.json").get("verdict").get("error").get("frames").get(1);
        frame.put("line", "three");
        JsonNode withBadFrame = golden("attempt-full.json");
        ((com.fasterxml.jackson.databind.node.ArrayNode) withBadFrame.get("verdict").get("error").get("frames")).set(1, frame);
        assertThatThrownBy(() -> json.attempt(mapper.writeValueAsString(withBadFrame)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("attempt.verdict.error.frames[1].line is not an integer");

        ObjectNode task = (ObjectNode) golden("task-full.json");
        task.put("language", "COBOL");
        assertThatThrownBy(() -> json.task(mapper.writeValueAsString(task)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("task.language is not a known value (COBOL)");
    }

    private JsonNode golden(String name) throws IOException {
        try (InputStream in = RunJsonTest.class.getResourceAsStream("/stored-json/" + name)) {
            assertThat(in).as("resource stored-json/" + name).isNotNull();
            return mapper.readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
