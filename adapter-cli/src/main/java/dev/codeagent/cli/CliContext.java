package dev.codeagent.cli;

import java.io.InputStream;
import java.util.Map;
import java.util.Objects;

/**
 * What the command line sees of the world besides its arguments and output streams: standard input,
 * the environment (for {@code CODEAGENT_*} variables) and whether a person is watching a terminal.
 * Passed in so that tests can run commands in-process, in parallel, without touching {@code System}.
 *
 * @param stdin the process's standard input ({@code exec -}, {@code --stdin -})
 * @param env the environment variables the config loader reads
 * @param interactive whether a terminal is attached (live progress instead of one line per attempt)
 */
public record CliContext(InputStream stdin, Map<String, String> env, boolean interactive) {

    public CliContext {
        Objects.requireNonNull(stdin, "stdin");
        env = Map.copyOf(Objects.requireNonNull(env, "env"));
    }

    /** The real process: {@code System.in}, {@code System.getenv()}, a terminal when {@code System.console()} says so. */
    public static CliContext system() {
        return new CliContext(System.in, System.getenv(), System.console() != null);
    }
}
