package dev.codeagent.application.eval;

import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.solving.Judge;
import dev.codeagent.domain.solving.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Code to judge without a model (what an online judge or a grader asks): the program, and exactly one thing that
 * decides it — a task's tests (Python: run by the split judge, out of the code's reach), an expected output, or IO
 * cases (each an input on stdin and the output it must print; every language the sandbox runs).
 *
 * @param execution the program, its stdin and limits (a door has checked them under its own caps); never judged yet
 * @param tests Python that asserts on the code, or null
 * @param expectedOutput what the program must print, or null
 * @param cases the IO cases, or empty
 */
public record JudgeRequest(ExecutionRequest execution, String tests, String expectedOutput, List<Problem.IoCase> cases) {

    /** At most this many IO cases in one request: each is a run of the program. */
    public static final int MAX_CASES = 100;

    /** One IO case as a door read it: either part may be missing (an input defaults to none, an output is required). */
    public record Case(String input, String output) {
    }

    public JudgeRequest {
        Objects.requireNonNull(execution, "execution");
        cases = List.copyOf(Objects.requireNonNull(cases, "cases"));
        int given = (tests == null ? 0 : 1) + (expectedOutput == null ? 0 : 1) + (cases.isEmpty() ? 0 : 1);
        if (given != 1) {
            throw new IllegalArgumentException("exactly one of tests, expected output or cases decides a judgement");
        }
    }

    /**
     * The request, or null with the errors added, each naming its field: exactly one of {@code tests},
     * {@code expectedOutput}, {@code cases}; tests only for a language the judge reads tests of (Python); 1 to
     * {@value #MAX_CASES} cases, each with an {@code output}, and no {@code stdin} beside them (each case has its own).
     *
     * @param execution the checked execution, or null when the door found it wrong (its errors are already added)
     */
    public static JudgeRequest of(ExecutionRequest execution, String tests, String expectedOutput, List<Case> cases,
            FieldErrors errors) {
        List<String> given = new ArrayList<>();
        if (tests != null) {
            given.add("tests");
        }
        if (expectedOutput != null) {
            given.add("expectedOutput");
        }
        if (cases != null) {
            given.add("cases");
        }
        if (given.isEmpty()) {
            errors.add("tests", "required: what decides the verdict, one of tests (Python that asserts on the code),"
                    + " expectedOutput (what it must print) or cases (inputs and the outputs they must give)");
        } else if (given.size() > 1) {
            errors.add(given.get(1), "give only one of tests, expectedOutput or cases; this request has " + String.join(" and ", given));
        }
        if (tests != null && tests.isBlank()) {
            errors.add("tests", "must not be blank: Python that asserts on the code, as `assert f(2) == 4`");
        }
        if (tests != null && execution != null && !Judge.judgesTests(execution.program().language())) {
            errors.add("tests", "tests can be judged for Python only, not " + execution.program().language().id()
                    + ": give expectedOutput or cases instead");
        }
        List<Problem.IoCase> ioCases = new ArrayList<>();
        if (cases != null) {
            if (cases.isEmpty() || cases.size() > MAX_CASES) {
                errors.add("cases", "1 to " + MAX_CASES + " cases, each {\"input\": …, \"output\": …}; got " + cases.size());
            }
            for (int i = 0; i < cases.size(); i++) {
                Case c = cases.get(i);
                if (c == null) {
                    errors.add("cases[" + i + "]", "must be a case {\"input\": …, \"output\": …}, not null");
                } else if (c.output() == null) {
                    errors.add("cases[" + i + "].output", "required: what the program must print for this input");
                } else {
                    ioCases.add(new Problem.IoCase(c.input() == null ? "" : c.input(), c.output()));
                }
            }
            if (execution != null && !execution.stdin().isEmpty()) {
                errors.add("stdin", "each case has its own input: leave stdin out, or give expectedOutput instead of cases");
            }
        }
        if (!errors.isEmpty() || execution == null) {
            return null;
        }
        return new JudgeRequest(execution, tests, expectedOutput, ioCases);
    }

    /** The task the judge decides by for case {@code index} (the only one without cases). */
    Task task(int index) {
        String prompt = "judge the given code";
        if (cases.isEmpty()) {
            return new Task(prompt, execution.program().language(), tests, expectedOutput, execution.stdin(), execution.limits(), 1);
        }
        Problem.IoCase c = cases.get(index);
        return new Task(prompt, execution.program().language(), null, c.output(), c.input(), execution.limits(), 1);
    }
}
