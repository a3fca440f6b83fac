package dev.codeagent.cli;

import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.solving.GeneratorException;
import java.io.PrintWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns every failure into one line on stderr ({@code codeagent: …}) and an exit status; a user never
 * sees a stack trace ({@code --verbose} logs it at debug).
 */
final class Failures implements IExecutionExceptionHandler, IParameterExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(Failures.class);

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("codeagent: " + oneLine(ex.getMessage()) + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')");
        err.flush();
        return ExitStatus.USAGE;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
        PrintWriter err = cmd.getErr();
        int status = report(ex, err);
        err.flush();
        cmd.getOut().flush();
        return status;
    }

    /** Prints the one line for a failure and returns the exit status. */
    static int report(Throwable ex, PrintWriter err) {
        // a failure may come wrapped (an executor, a retry): look down the causes for what we know
        for (Throwable t = ex; t != null; t = t.getCause() == t ? null : t.getCause()) {
            Integer status = known(t);
            if (status != null) {
                log.debug("failed", ex);
                err.println("codeagent: " + oneLine(t.getMessage()));
                return status;
            }
            if (t instanceof ExecutionCancelledException || t instanceof InterruptedException) {
                err.println("codeagent: interrupted");
                return ExitStatus.INTERRUPTED;
            }
        }
        if (Thread.currentThread().isInterrupted()) {
            // interrupted somewhere that reports it in its own words (e.g. waiting for an execution place)
            log.debug("interrupted", ex);
            err.println("codeagent: interrupted");
            return ExitStatus.INTERRUPTED;
        }
        log.debug("unexpected failure", ex);
        err.println("codeagent: unexpected error: " + ex.getClass().getSimpleName()
                + (ex.getMessage() == null ? "" : ": " + oneLine(ex.getMessage())) + " (run with --verbose for details)");
        return ExitStatus.FAILURE;
    }

    private static Integer known(Throwable t) {
        if (t instanceof UsageException) {
            return ((UsageException) t).status();
        }
        if (t instanceof ConfigException || t instanceof InvalidRequestException) {
            return ExitStatus.USAGE;
        }
        if (t instanceof SandboxUnavailableException || t instanceof OverloadedException) {
            return ExitStatus.SANDBOX_FAILED;
        }
        if (t instanceof GeneratorException) {
            return ExitStatus.FAILURE;
        }
        return null;
    }

    static String oneLine(String message) {
        if (message == null || message.isBlank()) {
            return "(no message)";
        }
        return message.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
