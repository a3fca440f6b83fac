package dev.codeagent.application.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Judge;
import dev.codeagent.domain.solving.Submission;
import dev.codeagent.domain.solving.Task;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProblemAndSampleFilesTest {

    private static final String HE_0 = "{\"task_id\": \"HumanEval/0\", \"prompt\": \"def inc(x):\\n    \\\"\\\"\\\"x+1\\\"\\\"\\\"\\n\", "
            + "\"canonical_solution\": \"    return x + 1\\n\", \"test\": \"def check(candidate):\\n    assert candidate(1) == 2\\n\", "
            + "\"entry_point\": \"inc\"}";
    private static final String HE_1 = HE_0.replace("HumanEval/0", "HumanEval/1");
    private static final String MBPP_11 = "{\"task_id\": 11, \"text\": \"Add one.\", \"code\": \"def inc(x):\\n  return x + 1\", "
            + "\"test_setup_code\": \"\", \"test_list\": [\"assert inc(1) == 2\", \"assert inc(2) == 3\"], \"challenge_test_list\": []}";

    @TempDir
    Path dir;

    @Test
    void tellsHumanEvalFromItsFieldsAndBuildsItsProgramConvention() throws IOException {
        ProblemSet set = ProblemSet.read(write("he.jsonl", HE_0 + "\n" + HE_1 + "\n"), null);
        assertThat(set.format()).isEqualTo(ProblemFormat.HUMANEVAL);
        assertThat(set.problems()).extracting(Problem::taskId).containsExactly("HumanEval/0", "HumanEval/1");
        assertThat(set.badLines()).isEmpty();

        Problem p = set.problems().get(0);
        Task task = p.judgingTask(ResourceLimits.defaults());
        Submission s = new Judge().prepare(task, p.code(p.reference()), p.judgeJob());
        // prompt + completion runs; the test and check(entry_point) are the judge's, with the prompt as its prelude
        assertThat(s.program().source()).isEqualTo("def inc(x):\n    \"\"\"x+1\"\"\"\n    return x + 1\n");
        assertThat(s.judging()).isEqualTo(new JudgeJob("def check(candidate):\n    assert candidate(1) == 2\n\ncheck(inc)\n",
                "def inc(x):\n    \"\"\"x+1\"\"\"\n", List.of("inc")));
        // error lines are counted in prompt + completion, as the model's code begins at the prompt
        assertThat(s.codeFirstLine()).isEqualTo(1);
        assertThat(s.codeLineCount()).isEqualTo(3);
    }

    @Test
    void tellsIoFromItsFieldsAndTakesItsLanguageAndTests() throws IOException {
        String c = "{\"task_id\": \"sum\", \"prompt\": \"Add.\", \"language\": \"c++\", "
                + "\"tests\": [{\"input\": \"1 2\\n\", \"output\": \"3\\n\"}, {\"output\": \"0\\n\"}]}";
        String noOutput = "{\"task_id\": \"x\", \"prompt\": \"p\", \"tests\": [{\"input\": \"1\"}]}";
        String cobol = "{\"task_id\": \"y\", \"prompt\": \"p\", \"language\": \"cobol\", \"tests\": [{\"output\": \"\"}]}";
        String none = "{\"task_id\": \"z\", \"prompt\": \"p\", \"tests\": []}";
        ProblemSet set = ProblemSet.read(write("io.jsonl", String.join("\n", c, noOutput, cobol, none) + "\n"), null);
        assertThat(set.format()).isEqualTo(ProblemFormat.IO);
        Problem p = set.problems().get(0);
        assertThat(p.language()).isEqualTo(Language.CPP);
        assertThat(p.cases()).containsExactly(new Problem.IoCase("1 2\n", "3\n"), new Problem.IoCase("", "0\n"));
        assertThat(p.judgeJob()).as("the host compares outputs: no judge process").isNull();
        Task second = p.caseTask("Add.", 1, ResourceLimits.defaults(), 1);
        assertThat(second.stdin()).isEmpty();
        assertThat(second.expectedOutput()).isEqualTo("0\n");
        assertThat(p.generationTask(ResourceLimits.defaults(), 2).prompt()).contains("Example input:\n1 2\n")
                .contains("Expected output:\n3\n");
        assertThat(set.badLines()).extracting(BadLine::reason).containsExactly("tests[0]: missing 'output'",
                "unknown language 'cobol'; known: " + Language.knownIds(),
                "'tests' must be a non-empty list of {\"input\": ..., \"output\": ...}");
        assertThat(set.referenceSamples()).as("no solution, no reference sample").isEmpty();
    }

    @Test
    void tellsMbppFromItsFieldsAndAppendsSetupAndEachAssert() throws IOException {
        ProblemSet set = ProblemSet.read(write("mbpp.jsonl", MBPP_11 + "\n"), null);
        assertThat(set.format()).isEqualTo(ProblemFormat.MBPP);
        Problem p = set.problems().get(0);
        assertThat(p.taskId()).isEqualTo("11");
        Submission s = new Judge().prepare(p.judgingTask(ResourceLimits.defaults()), p.code(p.reference()), p.judgeJob());
        assertThat(s.program().source()).isEqualTo("def inc(x):\n  return x + 1");
        assertThat(s.judging()).isEqualTo(new JudgeJob("\nassert inc(1) == 2\nassert inc(2) == 3\n", null, List.of("inc")));
        assertThat(p.generationTask(ResourceLimits.defaults(), 3).prompt()).contains("Add one.").contains("assert inc(2) == 3");
    }

    @Test
    void aWholeGeneratedFunctionCompletesAHumanEvalPromptOnLinesOfItsOwn() {
        String stub = "def f():\n    \"\"\"Two.\"\"\"";
        Problem ended = new Problem("T/0", ProblemFormat.HUMANEVAL, stub + "\n", "    return 2\n", "", java.util.List.of(), "f");
        Problem unended = new Problem("T/1", ProblemFormat.HUMANEVAL, stub, "\n    return 2\n", "", java.util.List.of(), "f");
        assertThat(ended.code(ended.completionOf("def f():\n    return 2"))).isEqualTo(stub + "\ndef f():\n    return 2\n");
        assertThat(unended.code(unended.completionOf("def f():\n    return 2\n"))).isEqualTo(stub + "\ndef f():\n    return 2\n");
    }

    @Test
    void reportsEachBadLineWithItsNumberAndKeepsTheRest() throws IOException {
        Path file = write("he.jsonl", String.join("\n",
                HE_0,
                "{not json",
                "",
                "[1, 2]",
                HE_0.replace("\"entry_point\": \"inc\"", "\"entry_point\": 7"),
                HE_0.replace(", \"test\": \"def check(candidate):\\n    assert candidate(1) == 2\\n\"", ""),
                HE_0,
                HE_1) + "\n");
        ProblemSet set = ProblemSet.read(file, ProblemFormat.HUMANEVAL);
        assertThat(set.problems()).extracting(Problem::taskId).containsExactly("HumanEval/0", "HumanEval/1");
        assertThat(set.badLines()).extracting(BadLine::toString).containsExactly(
                file + ":2: not JSON: Unexpected character ('n' (code 110)): was expecting double-quote to start field name",
                file + ":4: not a JSON object",
                file + ":5: 'entry_point' must be a string",
                file + ":6: missing 'test'",
                file + ":7: duplicate task_id 'HumanEval/0' (first on line 1)");
    }

    @Test
    void failsInOneLineWhenTheFileIsUnusable() throws IOException {
        assertThatThrownBy(() -> ProblemSet.read(dir.resolve("absent.jsonl"), null))
                .isInstanceOf(EvaluationException.class).hasMessageEndingWith("absent.jsonl: no such file");
        Path unknown = write("x.jsonl", "{\"task_id\": 1, \"question\": \"?\"}\n");
        assertThatThrownBy(() -> ProblemSet.read(unknown, null))
                .isInstanceOf(EvaluationException.class).hasMessageContaining("cannot tell the problem format")
                .hasMessageContaining("--format humaneval|mbpp");
        Path allBad = write("bad.jsonl", "{\"task_id\": 1, \"text\": \"t\", \"code\": \"c\", \"test_list\": \"assert x\"}\n");
        assertThatThrownBy(() -> ProblemSet.read(allBad, ProblemFormat.MBPP))
                .isInstanceOf(EvaluationException.class)
                .hasMessage(allBad + ": no usable mbpp problem; first bad line: " + allBad + ":1: 'test_list' must be a list of strings");
    }

    @Test
    void numbersSamplesPerTaskAndSkipsBadOnes() throws IOException {
        ProblemSet problems = ProblemSet.read(write("he.jsonl", HE_0 + "\n" + HE_1 + "\n"), null);
        Path file = write("samples.jsonl", String.join("\n",
                "{\"task_id\": \"HumanEval/0\", \"completion\": \"    return x + 1\\n\"}",
                "{\"task_id\": \"HumanEval/1\", \"completion\": \"    return x\\n\"}",
                "{\"task_id\": \"HumanEval/0\", \"completion\": \"    return 2\\n\"}",
                "{\"task_id\": \"HumanEval/9\", \"completion\": \"\"}",
                "{\"task_id\": \"HumanEval/0\"}",
                "{\"completion\": \"x\"}",
                "{\"task_id\": \"HumanEval/0\", \"completion\": \"    return -1\\n\", \"extra\": true}"));
        SampleSet set = SampleSet.read(file, problems);
        assertThat(set.samples()).extracting(s -> s.taskId() + "#" + s.index())
                .containsExactly("HumanEval/0#0", "HumanEval/1#0", "HumanEval/0#1", "HumanEval/0#2");
        assertThat(set.badLines()).extracting(BadLine::toString).containsExactly(
                file + ":4: unknown task_id 'HumanEval/9'",
                file + ":5: missing 'completion'",
                file + ":6: missing 'task_id'");
    }

    @Test
    void readsGzipCompressedJsonLinesAsPublishedUpstream() throws IOException {
        Path problems = gzip("HumanEval.jsonl.gz", HE_0 + "\n" + HE_1 + "\n");
        ProblemSet set = ProblemSet.read(problems, null);
        assertThat(set.format()).isEqualTo(ProblemFormat.HUMANEVAL);
        assertThat(set.problems()).extracting(Problem::taskId).containsExactly("HumanEval/0", "HumanEval/1");

        Path samples = gzip("samples.jsonl.gz", "{\"task_id\": \"HumanEval/1\", \"completion\": \"    return x\\n\"}\n{\"task_id\": 3}\n");
        SampleSet read = SampleSet.read(samples, set);
        assertThat(read.samples()).extracting(s -> s.taskId() + "#" + s.index()).containsExactly("HumanEval/1#0");
        assertThat(read.badLines()).extracting(BadLine::toString).containsExactly(samples + ":2: missing 'completion'");
    }

    @Test
    void aTruncatedGzipFileIsOneLineErrorNotAStackTrace() throws IOException {
        byte[] whole = Files.readAllBytes(gzip("whole.jsonl.gz", HE_0 + "\n"));
        Path cut = Files.write(dir.resolve("cut.jsonl.gz"), java.util.Arrays.copyOf(whole, 12));
        assertThatThrownBy(() -> ProblemSet.read(cut, null))
                .isInstanceOf(EvaluationException.class)
                .hasMessageStartingWith(cut + ": cannot read:");
    }

    private Path gzip(String name, String content) throws IOException {
        Path file = dir.resolve(name);
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(content.getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    }

}
