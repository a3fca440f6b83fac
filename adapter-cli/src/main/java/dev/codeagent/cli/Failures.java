package dev.codeagent.cli;

import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.solving.GeneratorException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.UnmatchedArgumentException;
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
        err.println("codeagent: " + oneLine(plain(ex)) + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')");
        err.flush();
        return ExitStatus.USAGE;
    }

    /**
     * picocli's refusal in the words of what the user typed ("unknown option '--problem'; did you mean
     * --problems?") rather than its own ("Unmatched argument at index 0", "Missing required option: '--problems=FILE'").
     */
    static String plain(ParameterException ex) {
        CommandLine cmd = ex.getCommandLine();
        CommandSpec spec = cmd.getCommandSpec();
        // a misspelt required option is reported by picocli as the missing one: name the misspelling first
        List<String> unmatched = ex instanceof UnmatchedArgumentException
                ? ((UnmatchedArgumentException) ex).getUnmatched()
                : cmd.getParseResult() == null ? List.of() : cmd.getParseResult().unmatched();
        if (!unmatched.isEmpty()) {
            String typed = unmatched.get(0);
            boolean option = typed.startsWith("-");
            boolean commandExpected = !spec.subcommands().isEmpty();
            String what = option ? "unknown option '" + typed + "'"
                    : commandExpected ? "unknown command '" + typed + "'"
                    : "unexpected argument '" + typed + "'";
            if (!option && spec.parent() == null && (typed.equals("serve") || typed.equals("jupyter") || typed.equals("mcp"))) {
                // this JVM was started without the launcher, which is what hands these to their own entry points
                return "'" + typed + "' is started by the ./codeagent launcher ("
                        + (typed.equals("serve") ? "or: java -jar codeagent-serve.jar serve" : "or: java -cp codeagent.jar"
                        + (typed.equals("mcp") ? " dev.codeagent.mcp.McpMain" : " dev.codeagent.jupyter.JupyterMain")) + ")";
            }
            String near = nearest(typed, option ? optionNames(spec) : commandExpected ? visible(spec) : List.of());
            if (near != null) {
                return what + "; did you mean " + near + "?";
            }
            if (option || !commandExpected) {
                return what;
            }
            return what + "; commands: " + String.join(", ", visible(spec));
        }
        if (ex instanceof MissingParameterException) {
            List<String> missing = new ArrayList<>();
            for (ArgSpec a : ((MissingParameterException) ex).getMissing()) {
                missing.add(a.isOption() ? ((OptionSpec) a).longestName() + " " + a.paramLabel() : a.paramLabel());
            }
            return String.join(" and ", missing) + (missing.size() == 1 ? " is" : " are") + " required";
        }
        String m = ex.getMessage() == null ? "" : ex.getMessage();
        // "Unknown option: '--x'" and "Invalid value for option '--workers': 'many' is not an int" are clear
        // enough in substance; only the capital and the picocli type names go
        m = m.replaceFirst("^Unknown option: '([^']*)'", "unknown option '$1'")
                .replaceFirst("^Invalid value for option '([^']*)' \\(\\w+\\): ", "$1: ")
                .replaceFirst("^Invalid value for option '([^']*)': ", "$1: ")
                .replaceFirst("^Missing required parameter for option '([^']*)' \\(([^)]*)\\)", "$1 needs a value ($2)")
                .replaceFirst("^Expected parameter for option '([^']*)' but found '([^']*)'", "$1 needs a value, not '$2'");
        return m;
    }

    private static List<String> visible(CommandSpec spec) {
        List<String> names = new ArrayList<>();
        spec.subcommands().forEach((name, sub) -> {
            if (!sub.getCommandSpec().usageMessage().hidden() && !names.contains(sub.getCommandName())) {
                names.add(sub.getCommandName());
            }
        });
        if (spec.parent() == null) {
            // started by the launcher from their own entry points, but commands all the same to the user
            names.addAll(List.of("serve", "jupyter", "mcp"));
        }
        return names;
    }

    private static List<String> optionNames(CommandSpec spec) {
        List<String> names = new ArrayList<>();
        for (OptionSpec o : spec.options()) {
            if (!o.hidden()) {
                names.addAll(Arrays.asList(o.names()));
            }
        }
        return names;
    }

    /** The closest known name within a small edit distance (or a prefix of it), for "did you mean". */
    static String nearest(String typed, java.util.Collection<String> known) {
        String t = typed.contains("=") ? typed.substring(0, typed.indexOf('=')) : typed;
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(t.toLowerCase(java.util.Locale.ROOT), k.toLowerCase(java.util.Locale.ROOT));
            if (k.startsWith(t) && t.length() >= 4) {
                d = Math.min(d, 1);
            }
            if (d < bestDistance) {
                bestDistance = d;
                best = k;
            }
        }
        int allowed = Math.max(1, Math.min(3, t.replaceFirst("^-+", "").length() / 3));
        return bestDistance <= allowed ? best : null;
    }

    private static int distance(String a, String b) {
        int[] prevPrev = new int[b.length() + 1];
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                // two letters swapped ("exce") is one slip of the fingers, not two
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    cur[j] = Math.min(cur[j], prevPrev[j - 2] + 1);
                }
            }
            int[] swap = prevPrev;
            prevPrev = prev;
            prev = cur;
            cur = swap;
        }
        return prev[b.length()];
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
