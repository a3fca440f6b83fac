package dev.codeagent.application.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.command.FieldError;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class JudgeRequestTest {

    private static ExecutionRequest python(String stdin) {
        return new ExecutionRequest(new Program(Language.PYTHON, "print(1)"), stdin, ResourceLimits.defaults());
    }

    private static List<String> fields(ExecutionRequest execution, String tests, String expected, List<JudgeRequest.Case> cases) {
        FieldErrors errors = new FieldErrors();
        JudgeRequest r = JudgeRequest.of(execution, tests, expected, cases, errors);
        assertThat(r == null).as("refused exactly when there are errors: %s", errors).isEqualTo(!errors.isEmpty());
        return errors.list().stream().map(FieldError::field).toList();
    }

    @Test
    void exactlyOneThingDecidesTheVerdict() {
        assertThat(fields(python(""), null, null, null)).containsExactly("tests");
        assertThat(fields(python(""), "assert True", "1", null)).containsExactly("expectedOutput");
        assertThat(fields(python(""), null, "1", List.of(new JudgeRequest.Case("", "1")))).containsExactly("cases");
        assertThat(fields(python(""), "assert True", null, null)).isEmpty();
        assertThat(fields(python("x"), null, "1", null)).isEmpty();
    }

    @Test
    void testsAreForPythonOnlyAndCasesCarryTheirOwnInput() {
        ExecutionRequest c = new ExecutionRequest(new Program(Language.C, "int main(void){return 0;}"), "", ResourceLimits.defaults());
        assertThat(fields(c, "assert True", null, null)).containsExactly("tests");
        assertThat(fields(c, null, null, List.of(new JudgeRequest.Case(null, "")))).isEmpty();
        assertThat(fields(python("in"), null, null, List.of(new JudgeRequest.Case("1", "1")))).containsExactly("stdin");
        assertThat(fields(python(""), "  ", null, null)).containsExactly("tests");
    }

    @Test
    void everyBadCaseIsNamedByItsIndex() {
        List<JudgeRequest.Case> cases = new ArrayList<>(List.of(new JudgeRequest.Case("1", "1")));
        cases.add(null);
        cases.add(new JudgeRequest.Case("2", null));
        assertThat(fields(python(""), null, null, cases)).containsExactly("cases[1]", "cases[2].output");
        assertThat(fields(python(""), null, null, List.of())).containsExactly("cases");
        assertThat(fields(python(""), null, null, Collections.nCopies(JudgeRequest.MAX_CASES + 1, new JudgeRequest.Case("", ""))))
                .containsExactly("cases");
    }

    @Test
    void aMissingInputIsNoInput() {
        JudgeRequest r = JudgeRequest.of(python(""), null, null, List.of(new JudgeRequest.Case(null, "1\n")), new FieldErrors());
        assertThat(r.cases()).containsExactly(new Problem.IoCase("", "1\n"));
        assertThat(r.task(0).stdin()).isEmpty();
        assertThat(r.task(0).expectedOutput()).isEqualTo("1\n");
    }
}
