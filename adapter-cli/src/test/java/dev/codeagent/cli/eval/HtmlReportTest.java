package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.eval.EvaluationDetails;
import dev.codeagent.application.eval.EvaluationException;
import dev.codeagent.application.eval.EvaluationReport;
import dev.codeagent.application.eval.Problem;
import dev.codeagent.application.eval.ProblemFormat;
import dev.codeagent.application.eval.ProblemSet;
import dev.codeagent.application.eval.RunBenchmark;
import dev.codeagent.application.eval.Sample;
import dev.codeagent.application.eval.SampleResult;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's JSON, and the page it is inlined into, from a hand-made evaluation. */
class HtmlReportTest {

    private static final String HOSTILE = "    return '</script><script>window.pwned=1</script><!-- <img src=x onerror=alert(1)> &amp;'\n";

    @TempDir
    Path dir;

    private static Problem problem(String id) {
        return new Problem(id, ProblemFormat.HUMANEVAL, "def f(a):\n    \"\"\"Return a.\"\"\"\n", "    return a\n",
                "def check(c):\n    assert c(1) == 1\n", List.of(), "f");
    }

    /** Two problems, the second listed first in the results; three samples, one hostile; pass@10 not estimable. */
    private static EvaluationDetails details() {
        ProblemSet problems = new ProblemSet(ProblemFormat.HUMANEVAL, List.of(problem("T/0"), problem("T/1"), problem("T/2")), List.of());
        ErrorReport zero = new ErrorReport("ZeroDivisionError", "division by zero", 3, "    return a / 0", List.of());
        List<SampleResult> results = List.of(
                new SampleResult("T/1", 0, Verdict.Kind.ACCEPTED, "", null, Outcome.OK, 40),
                new SampleResult("T/0", 1, Verdict.Kind.RUNTIME_ERROR, "ZeroDivisionError: division by zero", zero,
                        Outcome.OK, 55),
                new SampleResult("T/0", 0, Verdict.Kind.WRONG_ANSWER, "failed assertion", null, Outcome.OK, 30));
        TreeMap<Integer, Double> passAtK = new TreeMap<>(Map.of(1, 0.5, 10, Double.NaN));
        EvaluationReport report = new EvaluationReport(2, 3, 1, new TreeMap<>(Map.of(1, 0.5)),
                Map.of(Verdict.Kind.ACCEPTED, 1, Verdict.Kind.WRONG_ANSWER, 1, Verdict.Kind.RUNTIME_ERROR, 1), results, 125, 4);
        List<Sample> checked = List.of(new Sample("T/0", 0, HOSTILE), new Sample("T/0", 1, "    return a / 0\n"),
                new Sample("T/1", 0, "    return a\n"));
        RunBenchmark.Result result = new RunBenchmark.Result(report, null, null, "process", checked);
        return EvaluationDetails.of(problems, result, passAtK, "t.jsonl, samples from s.jsonl");
    }

    @Test
    void theJsonHasEveryProblemWithSamplesInFileOrderEachSampleWithItsCodeAndVerdict() {
        ObjectNode json = HtmlReport.json(details(), Instant.parse("2026-12-05T08:00:00.5Z"));

        assertThat(json.get("schema").asInt()).isEqualTo(1);
        assertThat(json.get("subject").asText()).isEqualTo("t.jsonl, samples from s.jsonl");
        assertThat(json.get("sandbox").asText()).isEqualTo("process");
        assertThat(json.get("createdAt").asText()).isEqualTo("2026-12-05T08:00:00Z");
        assertThat(json.get("total").asInt()).isEqualTo(3);
        assertThat(json.get("passed").asInt()).isEqualTo(1);
        assertThat(json.get("workers").asInt()).isEqualTo(4);
        assertThat(json.get("wallTimeMs").asLong()).isEqualTo(125);
        // the pass@k the CLI printed, the one it could not estimate as null (JSON has no NaN)
        assertThat(json.get("passAtK").get("1").asDouble()).isEqualTo(0.5);
        assertThat(json.get("passAtK").get("10").isNull()).isTrue();
        assertThat(json.get("passAtKBeforeRepair").size()).isZero();
        assertThat(json.get("verdicts").get("RUNTIME_ERROR").asInt()).isEqualTo(1);

        JsonNode problems = json.get("problems");
        // T/2 had no samples; T/0 comes first as in the problem file, its samples by index
        assertThat(problems).hasSize(2);
        JsonNode t0 = problems.get(0);
        assertThat(t0.get("id").asText()).isEqualTo("T/0");
        assertThat(t0.get("codePrefix").asText()).isEqualTo(problem("T/0").prompt());
        assertThat(t0.get("error").isNull()).isTrue();
        assertThat(t0.get("samples").get(0).get("index").asInt()).isZero();
        assertThat(t0.get("samples").get(0).get("code").asText()).isEqualTo(HOSTILE);
        assertThat(t0.get("samples").get(0).get("verdict").asText()).isEqualTo("WRONG_ANSWER");
        JsonNode failed = t0.get("samples").get(1);
        assertThat(failed.get("verdict").asText()).isEqualTo("RUNTIME_ERROR");
        assertThat(failed.get("message").asText()).isEqualTo("ZeroDivisionError: division by zero");
        assertThat(failed.get("error").get("line").asInt()).isEqualTo(3);
        assertThat(failed.get("error").get("summary").asText()).isEqualTo("ZeroDivisionError: division by zero (line 3: return a / 0)");
        assertThat(failed.get("outcome").asText()).isEqualTo("OK");
        assertThat(failed.get("wallMs").asLong()).isEqualTo(55);
        assertThat(problems.get(1).get("samples").get(0).get("code").asText()).isEqualTo("    return a\n");
    }

    @Test
    void aSamplesScriptEndOrCommentCannotLeaveTheDataElementAndReadsBackUnchanged() {
        ObjectNode json = HtmlReport.json(details(), Instant.EPOCH);
        String page = HtmlReport.html(json);

        Matcher data = Pattern.compile("(?s)<script type=\"application/json\" id=\"codeagent-report-data\">(.*?)</script>")
                .matcher(page);
        assertThat(data.find()).isTrue();
        assertThat(data.group(1)).doesNotContain("<", ">", "&");
        // compared as text: a tree read back holds ints where the written one held longs
        assertThat(EvalJson.read(data.group(1)).toString()).isEqualTo(json.toString());
        assertThat(page).doesNotContain("window.pwned=1</script>").doesNotContain("<img src=x");
    }

    @Test
    void thePolicyAllowsExactlyTheInlinedScriptsAndStyleAndNothingRemote() {
        String page = HtmlReport.html(HtmlReport.json(details(), Instant.EPOCH));

        Matcher csp = Pattern.compile("http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\"").matcher(page);
        assertThat(csp.find()).isTrue();
        String policy = csp.group(1);
        assertThat(policy).startsWith("default-src 'none'; ").doesNotContain("unsafe-", "http", "*");
        Matcher scripts = Pattern.compile("(?s)<script>(.*?)</script>").matcher(page);
        int inline = 0;
        while (scripts.find()) {
            assertThat(policy).contains("script-src").contains(HtmlReport.hash(scripts.group(1)));
            inline++;
        }
        assertThat(inline).as("echarts and report.js").isEqualTo(2);
        Matcher style = Pattern.compile("(?s)<style>(.*?)</style>").matcher(page);
        assertThat(style.find()).isTrue();
        assertThat(policy).contains("style-src " + HtmlReport.hash(style.group(1)));
        assertThat(page).doesNotContain("src=\"http", "href=\"http");
    }

    @Test
    void aReportInAMissingDirectoryIsRefusedBeforeTheEvaluationNamingThePath() {
        Path target = dir.resolve("no/such/report.html");
        assertThatThrownBy(() -> HtmlReport.checkWritable(target)).isInstanceOf(EvaluationException.class)
                .hasMessage("--report " + target + ": no such directory " + target.getParent() + " (make it first)");
        assertThatThrownBy(() -> HtmlReport.checkWritable(dir)).isInstanceOf(EvaluationException.class)
                .hasMessageContaining("is a directory");
    }

    @Test
    void theCommandRefusesAReportInAMissingDirectoryInOneLineBeforeEvaluating() throws IOException {
        Path problems = Files.writeString(dir.resolve("problems.jsonl"), "{\"task_id\": \"T/0\", \"prompt\": \"\","
                + " \"canonical_solution\": \"\", \"test\": \"\", \"entry_point\": \"f\"}\n");
        Path target = dir.resolve("missing/report.html");

        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--report", target.toString());

        assertThat(r.status()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("codeagent: --report " + target + ": no such directory " + target.getParent()
                + " (make it first)\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aReportThatCannotBeWrittenNamesThePathAndLeavesNoFileBehind() throws IOException {
        // a regular file where the directory should be: refused whoever runs the test (root writes anywhere else)
        Path notADir = Files.writeString(dir.resolve("file"), "x");
        Path target = notADir.resolve("report.html");

        assertThatThrownBy(() -> HtmlReport.write(target, details())).isInstanceOf(EvaluationException.class)
                .hasMessageStartingWith(target + ": cannot write the report (--report): ");
        try (var left = Files.list(dir)) {
            assertThat(left).containsExactly(notADir);
        }
    }

    @Test
    void aWrittenReportReplacesAnOldOneWhole() throws IOException {
        Path target = Files.writeString(dir.resolve("report.html"), "old");

        HtmlReport.write(target, details());

        assertThat(Files.readString(target)).startsWith("<!DOCTYPE html>").contains("codeagent-report-data").endsWith("</html>\n");
        try (var left = Files.list(dir)) {
            assertThat(left).containsExactly(target);
        }
    }
}
