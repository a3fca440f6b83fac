package dev.codeagent.cli;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunListener;
import dev.codeagent.domain.solving.Verdict;
import java.io.PrintWriter;

/**
 * Shows a run's progress on stderr. On a terminal one status line is rewritten in place
 * ({@code attempt 1/3: generating…}, {@code running…}) and each verdict stays as a line of its own;
 * elsewhere (a pipe, a log file) only the verdict lines are printed, one per attempt.
 */
final class ProgressPrinter implements RunListener {

    private static final String CLEAR_LINE = "\r\033[K";

    private final PrintWriter err;
    private final boolean live;
    private int maxAttempts;
    private boolean statusShown;

    ProgressPrinter(PrintWriter err, boolean live, int maxAttempts) {
        this.err = err;
        this.live = live;
        this.maxAttempts = maxAttempts;
    }

    @Override
    public void on(RunEvent event) {
        if (event instanceof RunEvent.AttemptStarted) {
            RunEvent.AttemptStarted started = (RunEvent.AttemptStarted) event;
            maxAttempts = started.maxAttempts();
            status(started.attempt(), "generating…");
        } else if (event instanceof RunEvent.CodeGenerated) {
            status(((RunEvent.CodeGenerated) event).attempt(), "running…");
        } else if (event instanceof RunEvent.Executed) {
            status(((RunEvent.Executed) event).attempt(), "judging…");
        } else if (event instanceof RunEvent.Judged) {
            Attempt a = ((RunEvent.Judged) event).attempt();
            line("attempt " + a.number() + "/" + maxAttempts + ": " + describe(a.verdict()));
        } else if (event instanceof RunEvent.RunFinished && statusShown) {
            err.print(CLEAR_LINE);
            statusShown = false;
            err.flush();
        }
    }

    /** {@code RUNTIME_ERROR ZeroDivisionError: division by zero (line 3: return a / b)} */
    static String describe(Verdict v) {
        return v.headline();
    }

    private void status(int attempt, String what) {
        if (!live) {
            return;
        }
        err.print(CLEAR_LINE + "attempt " + attempt + "/" + maxAttempts + ": " + what);
        statusShown = true;
        err.flush();
    }

    private void line(String text) {
        err.println((live ? CLEAR_LINE : "") + text);
        statusShown = false;
        err.flush();
    }
}
