package dev.codeagent.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.eval.JudgeCode;
import dev.codeagent.application.eval.JudgeRequest;
import dev.codeagent.application.eval.Judgement;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.application.view.JudgementView;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.solving.Verdict;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code codeagent judge FILE --tests T.py | --expected OUT | --io CASES.jsonl}: given code judged, no model. */
@Command(name = "judge",
        description = {"Judge a program, no model: by a task's tests (Python), an expected output, or IO cases.",
            "The verdict comes with what the agent loop feeds back: the error with its line and source line, the failing "
                + "call and what it returned, the first differing output line."},
        usageHelpAutoWidth = true,
        footerHeading = "%nExit status:%n",
        footer = {
            "  0    ACCEPTED",
            "  1    any other verdict on the code (WRONG_ANSWER, RUNTIME_ERROR, TIME_LIMIT_EXCEEDED, …)",
            "  2    bad usage or input",
            "  125  the sandbox failed (INTERNAL_ERROR)",
            "  130  interrupted (Ctrl-C)",
            "",
            "Examples:",
            "  codeagent judge solution.py --tests tests.py",
            "  codeagent judge --stdin in.txt --expected out.txt main.go",
            "  codeagent judge --json sum.c --io cases.jsonl      # one {\"input\": …, \"output\": …} per line"})
final class JudgeCommand implements Callable<Integer> {

    @ParentCommand
    CodeAgentCli cli;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The program's source file.")
    String file;

    @Option(names = {"-l", "--language"}, paramLabel = "LANG", converter = Converters.LanguageConverter.class,
            description = "python, javascript, bash, c, cpp, java, go or rust (default: from the file's extension).")
    Language language;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Decider decider;

    /** What decides the verdict: exactly one. */
    static final class Decider {
        @Option(names = "--tests", paramLabel = "FILE", required = true,
                description = "Python that asserts on the program's names, run by a judge the program cannot reach.")
        String tests;

        @Option(names = "--expected", paramLabel = "FILE", required = true,
                description = "What the program must print (for --stdin's input).")
        String expected;

        @Option(names = "--io", paramLabel = "CASES.jsonl", required = true,
                description = "IO cases, one JSON object a line: {\"input\": …, \"output\": …}; the first failing one decides.")
        String io;
    }

    @Option(names = "--stdin", paramLabel = "FILE", description = "The program's input with --tests or --expected.")
    String stdinFile;

    @Mixin
    LimitOptions limits;

    @Option(names = "--json", description = "Print one JSON object: verdict, calls, execution (as POST /v1/judgements answers).")
    boolean json;

    @Override
    public Integer call() {
        CodeAgentConfig config = cli.configForOneRun(new java.util.LinkedHashMap<>(limits.overrides()));
        JudgeRequest request = request(config);
        try (CodeAgent agent = cli.agent(config)) {
            JudgeCode judgeCode = agent.service(JudgeCode.class);
            Judgement judged;
            try {
                judgeCode.validate(request);
                judged = judgeCode.judge(request);
            } catch (InvalidRequestException e) {
                throw new UsageException(e.getMessage());
            } catch (ExecutionCancelledException e) {
                spec.commandLine().getErr().println("codeagent: interrupted");
                return ExitStatus.INTERRUPTED;
            }
            show(judged);
            Verdict.Kind kind = judged.verdict().kind();
            return kind == Verdict.Kind.ACCEPTED ? ExitStatus.OK
                    : kind == Verdict.Kind.INTERNAL_ERROR ? ExitStatus.SANDBOX_FAILED : ExitStatus.FAILURE;
        }
    }

    private void show(Judgement judged) {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(Json.MAPPER.valueToTree(JudgementView.of(judged.verdict(), judged.execution()))));
        } else {
            Verdict v = judged.verdict();
            out.println(v.headline());
            if (v.error() != null && v.error().line() != null && v.error().sourceLine() != null) {
                out.println("  line " + v.error().line() + ": " + v.error().sourceLine());
            }
            judged.calls().forEach(c -> out.println("  call: " + c));
        }
        out.flush();
    }

    private JudgeRequest request(CodeAgentConfig config) {
        Inputs.Text source = Inputs.read(file, cli.context(), "program", config.sandbox().maxSourceBytes().bytes(),
                "sandbox.maxSourceBytes");
        Language lang = language != null ? language : Language.fromFileName(file).orElse(Language.PYTHON);
        ExecutionRequest execution;
        try {
            String stdin = stdinFile == null ? "" : Inputs.read(stdinFile, cli.context(), "input", Inputs.MAX_INPUT_BYTES, null).text();
            execution = new ExecutionRequest(new Program(lang, source.text()), stdin, List.of(), LimitOptions.resolve(config));
        } catch (IllegalArgumentException e) {
            throw new UsageException(source.name() + ": " + e.getMessage());
        }
        String tests = decider.tests == null ? null : text(decider.tests, "tests");
        String expected = decider.expected == null ? null : text(decider.expected, "expected output");
        List<JudgeRequest.Case> cases = decider.io == null ? null : cases(decider.io);
        FieldErrors errors = new FieldErrors();
        JudgeRequest request = JudgeRequest.of(execution, tests, expected, cases, errors);
        if (request == null) {
            // the application names its fields as the HTTP API does; here they are options
            Map<String, String> options = Map.of("tests", "--tests", "expectedOutput", "--expected", "cases", "--io", "stdin", "--stdin");
            throw new UsageException(errors.firstLine(e -> options.getOrDefault(e.field().replaceAll("\\[.*", ""), e.field()) + ": "
                    + e.message()));
        }
        return request;
    }

    private String text(String path, String what) {
        return Inputs.read(path, cli.context(), what, Inputs.MAX_INPUT_BYTES, null).text();
    }

    /** One case a line ({@code {"input": …, "output": …}}); blank lines skipped; a bad line names its number. */
    private List<JudgeRequest.Case> cases(String path) {
        Inputs.Text text = Inputs.read(path, cli.context(), "IO cases", Inputs.MAX_INPUT_BYTES, null);
        List<JudgeRequest.Case> cases = new ArrayList<>();
        List<String> lines = text.text().lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            String where = text.name() + " line " + (i + 1) + ": ";
            try {
                JsonNode n = Json.MAPPER.readTree(lines.get(i));
                if (!n.isObject() || !n.path("output").isTextual() || !n.path("input").isMissingNode() && !n.path("input").isTextual()) {
                    throw new UsageException(where + "not a case: write {\"input\": \"…\", \"output\": \"…\"} (text, output required)");
                }
                cases.add(new JudgeRequest.Case(n.path("input").isTextual() ? n.get("input").asText() : null, n.get("output").asText()));
            } catch (JsonProcessingException e) {
                throw new UsageException(where + "not JSON: " + e.getOriginalMessage());
            }
        }
        return cases;
    }
}
