package dev.codeagent.domain.solving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RunTest {

    private final Instant t0 = Instant.parse("2026-12-02T10:00:00Z");

    @Test
    void growsByAttemptsWithoutChangingTheOriginal() {
        Run run = Run.started("r1", Task.of("add two numbers"), t0);
        Attempt a = new Attempt(1, "reply", "code", null, Verdict.of(Verdict.Kind.WRONG_ANSWER, "x"), "fb",
                Duration.ZERO, Duration.ZERO);
        Run more = run.withAttempt(a);
        assertThat(run.attempts()).isEmpty();
        assertThat(more.attempts()).containsExactly(a);
        assertThat(more.lastAttempt()).isSameAs(a);
    }

    @Test
    void aFinalStatusNeedsAnEndTime() {
        assertThatThrownBy(() -> new Run("r", Task.of("p"), RunStatus.SOLVED, java.util.List.of(), t0, null, null))
                .hasMessageContaining("end time");
        assertThatThrownBy(() -> Run.started("r", Task.of("p"), t0).ended(RunStatus.RUNNING, t0, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keepsItsOwnerThroughAttemptsAndItsEnd() {
        Attempt a = new Attempt(1, "reply", "code", null, Verdict.of(Verdict.Kind.WRONG_ANSWER, "x"), "fb",
                Duration.ZERO, Duration.ZERO);
        Run run = Run.started("r1", Task.of("p"), t0, "key:alice").withAttempt(a).ended(RunStatus.FAILED, t0, null);
        assertThat(run.owner()).isEqualTo("key:alice");
        assertThat(Run.started("r2", Task.of("p"), t0).owner()).isNull();
    }

    @Test
    void refusesAnOwnerThatCouldNotBeShownOrStoredAsOneLine() {
        assertThatThrownBy(() -> Run.started("r", Task.of("p"), t0, " ")).hasMessageContaining("owner");
        assertThatThrownBy(() -> Run.started("r", Task.of("p"), t0, "key:a\nkey:b")).hasMessageContaining("owner");
        assertThatThrownBy(() -> Run.started("r", Task.of("p"), t0, "k".repeat(Run.MAX_OWNER_LENGTH + 1)))
                .hasMessageContaining("owner");
    }

    @Test
    void taskValidatesPromptAndBudget() {
        assertThatThrownBy(() -> Task.of(" ")).hasMessageContaining("prompt");
        assertThatThrownBy(() -> Task.of("p").withMaxAttempts(0)).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> Task.of("p").withMaxAttempts(21)).hasMessageContaining("maxAttempts");
        assertThat(new Task("p", Language.PYTHON, "  ", null, null, Task.of("p").limits(), 2).hasTests()).isFalse();
    }

    @Test
    void submissionMapsProgramLinesBackToTheCode() {
        Submission s = new Submission("a\nb\nc", new Program(Language.PYTHON, "a\nb\nc\n\nassert f()"), 1, 3);
        assertThat(s.codeLine(1)).isEqualTo(1);
        assertThat(s.codeLine(3)).isEqualTo(3);
        assertThat(s.codeLine(5)).isNull();
        assertThat(s.codeLine(0)).isNull();
    }

    @Test
    void errorReportSummaryNamesTypeMessageAndLine() {
        ErrorReport r = new ErrorReport("ZeroDivisionError", "division by zero", 3, "    return a / b", java.util.List.of());
        assertThat(r.summary()).isEqualTo("ZeroDivisionError: division by zero (line 3: return a / b)");
        assertThat(new ErrorReport("KeyError", null, null, null, java.util.List.of()).summary()).isEqualTo("KeyError");
    }
}
