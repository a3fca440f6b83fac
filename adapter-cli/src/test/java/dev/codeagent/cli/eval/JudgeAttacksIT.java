package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The judge-integrity corpus (kit-sandbox's {@code judge-attacks}: completions that read their source, frames,
 * {@code gc}, {@code /proc} and descriptors, exit early every way, patch builtins and the harness, print
 * markers, return always-equal objects) through both front doors that judge, on both tiers: every attack is
 * refused in {@code eval} and in {@code solve}, while the same problems' canonical solutions pass in the same
 * run, so a judge that refuses everything would fail here too.
 */
@Tag("slow")
class JudgeAttacksIT {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} tier")
    @ValueSource(strings = {"process", "docker"})
    void evalRefusesEveryAttackAndAcceptsTheCanonicalSolutions(String tier) throws IOException {
        Map<String, JsonNode> problems = EvalJson.byTaskId(Datasets.humanEval());
        Map<String, String> attacks = attacks();
        List<String> lines = new ArrayList<>();
        // a result names its sample by task and index within the task
        Map<String, String> names = new LinkedHashMap<>();
        Map<String, Integer> perTask = new LinkedHashMap<>();
        for (Map.Entry<String, String> a : attacks.entrySet()) {
            String task = taskOf(a.getValue());
            lines.add(sample(task, a.getValue()));
            names.put(task + "#" + perTask.merge(task, 1, Integer::sum), a.getKey());
        }
        for (String task : new java.util.TreeSet<>(perTask.keySet())) {
            lines.add(sample(task, problems.get(task).get("canonical_solution").asText()));
            names.put(task + "#" + perTask.merge(task, 1, Integer::sum), "canonical " + task);
        }
        Path problemFile = Files.write(dir.resolve("problems.jsonl"), attacks.values().stream().map(JudgeAttacksIT::taskOf)
                .distinct().map(t -> EvalJson.line((ObjectNode) problems.get(t))).toList());
        Path samples = Files.write(dir.resolve("samples.jsonl"), lines);
        Path out = dir.resolve("results.jsonl");

        EvalCli.Result r = new EvalCli(dir).run("--problems", problemFile.toString(), "--samples", samples.toString(),
                "--sandbox", tier, "--timeout", "5s", "--workers", "2", "--json", "--out", out.toString());

        assertThat(r.status()).as(r.toString()).isZero();
        List<JsonNode> results = EvalJson.readLines(out);
        assertThat(results).hasSize(lines.size());
        Map<String, String> verdicts = new TreeMap<>();
        for (JsonNode n : results) {
            String name = names.get(n.get("task_id").asText() + "#" + (n.get("sample").asInt() + SAMPLE_BASE));
            verdicts.put(name, n.get("verdict").asText() + " " + n.path("message").asText());
        }
        assertThat(verdicts).hasSize(lines.size());
        List<String> passedAttacks = verdicts.entrySet().stream()
                .filter(e -> !e.getKey().startsWith("canonical") && e.getValue().startsWith("ACCEPTED")).map(Map.Entry::getKey)
                .toList();
        assertThat(passedAttacks).as("attacks ACCEPTED by eval on the " + tier + " tier: " + verdicts).isEmpty();
        assertThat(verdicts.entrySet().stream().filter(e -> e.getKey().startsWith("canonical")))
                .as("the canonical solutions in the same run").allSatisfy(e -> assertThat(e.getValue()).startsWith("ACCEPTED"));
        assertThat(Files.readString(out)).as("nothing of the judging machinery in what users see")
                .doesNotContain("codeagent-tests-done").doesNotContain("CODEAGENT_JUDGE").doesNotContain(".judge-lib");
    }

    /**
     * In {@code solve} the task's tests are the user's: a name they use that the code defines is the code's (they
     * are the task's interface), and a helper the tests trust must be defined by the tests themselves. So the
     * attack that redefines HumanEval's prompt helper is run against tests that define the helper, as a user
     * would write them; the same attack in {@code eval} meets the prompt as the judge's trusted prelude.
     */
    @ParameterizedTest(name = "{0} tier")
    @ValueSource(strings = {"process", "docker"})
    void solveRefusesEveryAttack(String tier) throws IOException {
        Map<String, JsonNode> problems = EvalJson.byTaskId(Datasets.humanEval());
        Map<String, List<String>> byTask = new LinkedHashMap<>();
        attacks().values().forEach(a -> byTask.computeIfAbsent(taskOf(a), t -> new ArrayList<>()).add(a));
        int runs = 0;
        for (Map.Entry<String, List<String>> e : byTask.entrySet()) {
            JsonNode p = problems.get(e.getKey());
            Path tests = Files.writeString(dir.resolve("tests.py"), helpers(p) + p.get("test").asText() + "\ncheck("
                    + p.get("entry_point").asText() + ")\n");
            List<String> all = e.getValue();
            for (int from = 0; from < all.size(); from += 20) {
                List<String> chunk = all.subList(from, Math.min(all.size(), from + 20));
                Path replay = Files.write(dir.resolve("replay-" + runs++ + ".jsonl"), chunk.stream()
                        .map(a -> EvalJson.line((ObjectNode) EvalJson.object().put("reply",
                                "```python\n" + p.get("prompt").asText() + a + "\n```")))
                        .toList());
                EvalCli.Result r = new EvalCli(dir).command("solve", p.get("prompt").asText(), "--tests", tests.toString(),
                        "--replay", replay.toString(), "--max-attempts", String.valueOf(chunk.size()), "--sandbox", tier);

                assertThat(r.status()).as(e.getKey() + " on the " + tier + " tier: " + r).isEqualTo(1);
                assertThat(r.err()).as(r.toString()).contains("not solved after " + chunk.size() + "/" + chunk.size())
                        .doesNotContain("ACCEPTED").doesNotContain("codeagent-tests-done");
            }
        }
        assertThat(runs).isGreaterThanOrEqualTo(3);
    }

    /** Results count samples within a task from 0; the names above from 1. */
    private static final int SAMPLE_BASE = 1;

    /** The prompt's functions other than the entry point, complete ones only (HumanEval/32's poly, 38's encode_cyclic). */
    private static String helpers(JsonNode p) {
        String prompt = p.get("prompt").asText();
        String entry = "def " + p.get("entry_point").asText() + "(";
        int at = prompt.indexOf(entry);
        return at < 0 ? "" : prompt.substring(0, at);
    }

    private static String sample(String task, String completion) {
        ObjectNode s = EvalJson.object();
        s.put("task_id", task);
        s.put("completion", completion);
        return EvalJson.line(s);
    }

    private static String taskOf(String attack) {
        return attack.lines().findFirst().orElseThrow().split("task:")[1].strip();
    }

    /** The corpus, by file name. */
    private static Map<String, String> attacks() throws IOException {
        Path root = Datasets.repositoryRoot();
        Map<String, String> attacks = new TreeMap<>();
        try (Stream<Path> files = Files.list(root.resolve("kit-sandbox/src/test/resources/judge-attacks"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".py")).toList()) {
                attacks.put(f.getFileName().toString(), Files.readString(f, StandardCharsets.UTF_8));
            }
        }
        assertThat(attacks).hasSizeGreaterThanOrEqualTo(31);
        return attacks;
    }
}
