package dev.codeagent.cli;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What the command line sees of the world besides its arguments and output streams: standard input,
 * the environment (for {@code CODEAGENT_*} variables), whether a person is watching a terminal, the
 * directory relative paths mean, and where composed agents come from. Passed in so that tests, and the
 * background process that serves many calls, can run commands in-process, in parallel, without
 * touching {@code System}.
 *
 * @param stdin the caller's standard input ({@code exec -}, {@code --stdin -})
 * @param env the caller's environment variables, which the config loader reads
 * @param interactive whether a terminal is attached (live progress instead of one line per attempt)
 * @param cwd the caller's working directory, against which relative file names are resolved
 * @param agents composes an agent from a config: a fresh one per command in a one-shot process, one over
 *     warm sandboxes in the background process
 * @param oneShot whether this process runs one command and exits, so that nothing warms up ahead
 *     (the docker pool) for calls that will never come
 * @param stdinTerminal whether standard input is a terminal (someone types, and its end is a Ctrl-D that may never
 *     come), so that it is not read whole up front unless asked for
 */
public record CliContext(InputStream stdin, Map<String, String> env, boolean interactive, Path cwd,
                         Function<CodeAgentConfig, CodeAgent> agents, boolean oneShot, boolean stdinTerminal) {

    public CliContext {
        Objects.requireNonNull(stdin, "stdin");
        env = Map.copyOf(Objects.requireNonNull(env, "env"));
        cwd = Objects.requireNonNull(cwd, "cwd").toAbsolutePath();
        Objects.requireNonNull(agents, "agents");
    }

    /** A context whose stdin is a terminal exactly when a person is watching one. */
    public CliContext(InputStream stdin, Map<String, String> env, boolean interactive, Path cwd,
                      Function<CodeAgentConfig, CodeAgent> agents, boolean oneShot) {
        this(stdin, env, interactive, cwd, agents, oneShot, interactive);
    }

    /** A context in this process's directory that composes a fresh agent per command. */
    public CliContext(InputStream stdin, Map<String, String> env, boolean interactive) {
        this(stdin, env, interactive, Path.of(""), CliContext::compose, false);
    }

    /** The real one-shot process: {@code System.in}, {@code System.getenv()}, a terminal when {@code System.console()} says so. */
    public static CliContext system() {
        return new CliContext(System.in, System.getenv(), System.console() != null, Path.of(""), CliContext::compose, true,
                isTerminal(0));
    }

    /** Whether this process's file descriptor {@code fd} is a terminal (Java 17 has no isatty of one stream). */
    static boolean isTerminal(int fd) {
        try {
            String target = java.nio.file.Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (java.io.IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /** A file name as the caller meant it: relative names are relative to the caller's directory. */
    public Path resolve(String file) {
        return cwd.resolve(file);
    }

    private static CodeAgent compose(CodeAgentConfig config) {
        return CodeAgent.builder(config).build();
    }
}
