package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.OutputDifference;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Verdict;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressPrinterTest {

    private static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");
    private static final Verdict DIVISION = new Verdict(Verdict.Kind.RUNTIME_ERROR, "ZeroDivisionError: division by zero",
            new ErrorReport("ZeroDivisionError", "division by zero", 3, "    return a / b", List.of()), null);

    @Test
    void onATerminalRewritesOneStatusLineAndKeepsEachVerdict() {
        StringWriter err = new StringWriter();
        ProgressPrinter p = new ProgressPrinter(new PrintWriter(err), true, 3);
        attempt(p, 1, DIVISION);
        attempt(p, 2, Verdict.accepted());
        p.on(new RunEvent.RunFinished("r", NOW, RunStatus.SOLVED, null));
        assertThat(err.toString()).isEqualTo(
                "\r\033[Kattempt 1/3: generating…\r\033[Kattempt 1/3: running…\r\033[Kattempt 1/3: judging…"
                + "\r\033[Kattempt 1/3: RUNTIME_ERROR ZeroDivisionError: division by zero (line 3: return a / b)\n"
                + "\r\033[Kattempt 2/3: generating…\r\033[Kattempt 2/3: running…\r\033[Kattempt 2/3: judging…"
                + "\r\033[Kattempt 2/3: ACCEPTED\n");
    }

    @Test
    void elsewherePrintsOneLinePerAttempt() {
        StringWriter err = new StringWriter();
        ProgressPrinter p = new ProgressPrinter(new PrintWriter(err), false, 3);
        attempt(p, 1, DIVISION);
        attempt(p, 2, new Verdict(Verdict.Kind.WRONG_ANSWER, "output differs", null, new OutputDifference(2, "Fizz", "3")));
        attempt(p, 3, new Verdict(Verdict.Kind.WRONG_ANSWER, "assert fizz(3) == 'Fizz'",
                new ErrorReport("AssertionError", "", null, null, List.of()), null));
        assertThat(err.toString()).isEqualTo(
                "attempt 1/3: RUNTIME_ERROR ZeroDivisionError: division by zero (line 3: return a / b)\n"
                + "attempt 2/3: WRONG_ANSWER line 2: expected \"Fizz\", got \"3\"\n"
                + "attempt 3/3: WRONG_ANSWER assert fizz(3) == 'Fizz'\n");
    }

    private static void attempt(ProgressPrinter p, int n, Verdict verdict) {
        p.on(new RunEvent.AttemptStarted("r", NOW, n, 3));
        p.on(new RunEvent.CodeGenerated("r", NOW, n, "code"));
        p.on(new RunEvent.Executed("r", NOW, n, null));
        p.on(new RunEvent.Judged("r", NOW, new Attempt(n, "reply", "code", null, verdict, "", Duration.ZERO, Duration.ZERO)));
    }
}
