package dev.codeagent.application.submit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.view.EvaluationReportView;
import dev.codeagent.application.view.VerdictView;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What every {@link EvaluationLog} does, whichever keeps it: a store's test extends this and supplies a fresh, empty log
 * for each test (memory here; SQLite and PostgreSQL in their modules). A done evaluation's report comes back whole.
 */
public abstract class EvaluationLogContractTest {

    protected static final Instant T0 = Instant.parse("2026-12-06T01:02:03.123456789Z");

    protected abstract EvaluationLog newLog();

    protected static Evaluation queued(String id, String owner, Instant created) {
        return new Evaluation(id, owner, "two problems", Evaluation.Status.QUEUED, created, null, 2, 4, 0, 0, null, null);
    }

    /** A report with what a stored form could lose: a null pass@k, a parsed error with frames, code with markup. */
    protected static EvaluationReportView report() {
        Map<String, Double> passAtK = new LinkedHashMap<>();
        passAtK.put("1", 0.5);
        passAtK.put("10", null);
        VerdictView.ErrorView error = new VerdictView.ErrorView("ZeroDivisionError", "division by zero", 3,
                "return 1 // (x - x)", "ZeroDivisionError: division by zero (line 3)",
                List.of(new VerdictView.FrameView("<string>", 3, "half", "return 1 // (x - x)", 3)));
        EvaluationReportView.ProblemView p0 = new EvaluationReportView.ProblemView("T/0", "def inc(x):\n", "def inc(x):\n", null,
                List.of(new EvaluationReportView.SampleView(0, "ACCEPTED", "", null, "OK", 12, "    return x + 1\n"),
                        new EvaluationReportView.SampleView(1, "RUNTIME_ERROR", "ZeroDivisionError", error, "OK", 15,
                                "    return 1 // (x - x)  # </script><img src=x onerror=alert(1)>\n")));
        EvaluationReportView.ProblemView p1 = new EvaluationReportView.ProblemView("T/1", "", "", "tests do not compile",
                List.of(new EvaluationReportView.SampleView(0, "INTERNAL_ERROR", "not judged: tests do not compile", null, null, 0,
                        "")));
        return new EvaluationReportView(EvaluationReportView.SCHEMA, "two problems", "process", 2, 3, 1, 40, passAtK, Map.of(),
                Map.of("ACCEPTED", 1, "RUNTIME_ERROR", 1), List.of(p0, p1));
    }

    @Test
    void keepsAnEvaluationThroughItsStatusesWithItsReportWhole() {
        EvaluationLog log = newLog();
        Evaluation queued = queued("ev-1", "key:ann", T0);
        log.add(queued);
        assertThat(log.find("ev-1")).contains(queued);
        Evaluation progressed = new Evaluation("ev-1", "key:ann", "two problems", Evaluation.Status.RUNNING, T0, null, 2, 4, 3,
                1, null, null);
        assertThat(log.update(progressed)).isTrue();
        assertThat(log.find("ev-1")).contains(progressed);
        Evaluation done = new Evaluation("ev-1", "key:ann", "two problems", Evaluation.Status.DONE, T0, T0.plusSeconds(2), 2, 4,
                3, 1, null, report());
        assertThat(log.update(done)).isTrue();
        assertThat(log.find("ev-1")).contains(done);
        assertThat(log.find("ev-1").orElseThrow().passAt1()).hasValue(0.5);
        assertThat(log.find("ev-2")).isEmpty();
    }

    @Test
    void aFailedEvaluationKeepsWhy() {
        EvaluationLog log = newLog();
        log.add(queued("ev-f", null, T0));
        Evaluation failed = new Evaluation("ev-f", null, "two problems", Evaluation.Status.FAILED, T0, T0.plusSeconds(1), 2, 4,
                0, 0, "the sandbox cannot run python", null);
        assertThat(log.update(failed)).isTrue();
        assertThat(log.find("ev-f")).contains(failed);
    }

    @Test
    void aForgottenEvaluationStaysForgotten() {
        EvaluationLog log = newLog();
        log.add(queued("ev-1", "key:ann", T0));
        assertThat(log.delete("ev-1")).isTrue();
        assertThat(log.delete("ev-1")).isFalse();
        assertThat(log.update(queued("ev-1", "key:ann", T0))).as("an update does not bring it back").isFalse();
        assertThat(log.find("ev-1")).isEmpty();
    }

    @Test
    void refusesASecondEvaluationOfTheSameId() {
        EvaluationLog log = newLog();
        log.add(queued("ev-1", "key:ann", T0));
        assertThatThrownBy(() -> log.add(queued("ev-1", "key:bob", T0))).isInstanceOf(RuntimeException.class);
        assertThat(log.find("ev-1").orElseThrow().owner()).isEqualTo("key:ann");
    }

    @Test
    void listsAnOwnersNewestFirstAndEveryonesForNull() {
        EvaluationLog log = newLog();
        log.add(queued("ev-a", "key:ann", T0));
        log.add(queued("ev-b", "key:bob", T0.plusSeconds(1)));
        log.add(queued("ev-c", "key:ann", T0.plusSeconds(2)));
        log.add(queued("ev-d", "key:ann", T0.plusSeconds(3)));
        assertThat(log.list("key:ann", 10)).extracting(Evaluation::id).containsExactly("ev-d", "ev-c", "ev-a");
        assertThat(log.list("key:ann", 2)).extracting(Evaluation::id).containsExactly("ev-d", "ev-c");
        assertThat(log.list("key:bob", 10)).extracting(Evaluation::id).containsExactly("ev-b");
        assertThat(log.list("key:nobody", 10)).isEmpty();
        assertThat(log.list(null, 10)).extracting(Evaluation::id).containsExactly("ev-d", "ev-c", "ev-b", "ev-a");
    }
}
