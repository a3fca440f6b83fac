package dev.codeagent.sandbox.process;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Tells a run whose wrappers (bwrap, setpriv, prlimit, GNU time, the bootstrap) failed before the program
 * started from a program that failed, by what the wrappers print. The program can print the same, so such a
 * verdict is only a suspicion until {@link ProcessSandbox} has confirmed that the sandbox really is broken.
 */
final class WrapperFailure {

    /** How the detail of a run whose wrappers seem to have failed begins. */
    static final String DETAIL = "the sandbox could not start the program: ";

    private static final Pattern WRAPPER_LINE = Pattern.compile(
            "^(\\S*/)?(bwrap|setpriv|prlimit|unshare|setsid|time|sh|codeagent-boot|codeagent-launch): .*");

    private WrapperFailure() {
    }

    /** The detail of a run that looks as if a wrapper failed, or empty when it looks like the program's own end. */
    static Optional<String> detail(Integer exitCode, String stdout, String stderr) {
        if (exitCode == null || exitCode == 0 || !stdout.isEmpty() || !(exitCode == 1 || exitCode >= 125)) {
            return Optional.empty();
        }
        String first = firstLine(stderr);
        return WRAPPER_LINE.matcher(first).matches() ? Optional.of(DETAIL + first) : Optional.empty();
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
