package dev.codeagent.sandbox.process;

import dev.codeagent.kit.sandbox.SupervisorJob;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-sandbox supervisor of a bubblewrap run: the sandbox's pid 1, which writes the program's files into
 * the tmpfs, starts the program and reports its real wait status behind a nonce. Two builds of the same
 * behaviour: {@code supervisor.c}, compiled on this host once per source version (it starts in about a
 * millisecond; the Python supervisor cost as much CPU as the program's own interpreter start, and an evaluation
 * on 2 cores is CPU-bound), and {@code supervisor.py}, run by the host's Python,
 * for hosts without a C compiler. Both read the {@link SupervisorJob} wire format and are held to one contract
 * ({@code SupervisorTest}).
 *
 * <p>The compiled one is a root-owned, execute-only (0111) file bound read-only into the sandbox at
 * {@value #SANDBOX_PATH}: the program, which has the supervisor's uid, can neither read the binary nor (it is
 * non-dumpable, see {@link ExecuteOnlyCopy}) its memory.
 *
 * @param argv the supervisor's command inside the sandbox
 * @param binds what the sandbox needs bound in for {@code argv} to start
 */
record Supervisor(List<String> argv, List<LaunchSpec.Bind> binds) {

    private static final Logger log = LoggerFactory.getLogger(Supervisor.class);

    /** Where the compiled supervisor appears inside the sandbox. */
    static final String SANDBOX_PATH = "/.supervisor";
    private static final String SOURCE = "supervisor.c";

    /**
     * The compiled supervisor when a C compiler is at hand (compiled into {@code root/codeagent-bin} if not
     * there yet), else the Python one; null when neither can be had.
     *
     * @param cc the host's C compiler, or null
     * @param python the host's Python, or null
     * @param root the sandbox's work root, where {@link ExecuteOnlyCopy} keeps its copies
     */
    static Supervisor choose(Path cc, Path python, Path root) {
        if (cc != null) {
            Optional<Path> binary = ExecuteOnlyCopy.compiled(cc, root, SOURCE);
            if (binary.isPresent()) {
                return compiledAt(binary.get());
            }
        }
        if (python == null) {
            return null;
        }
        if (cc == null) {
            log.info("process sandbox: no C compiler (cc); the in-sandbox supervisor is Python, which costs a second "
                    + "interpreter start per run: install gcc to halve the CPU of each execution");
        }
        return python(python);
    }

    /** The compiled supervisor at {@code binary} on the host. */
    static Supervisor compiledAt(Path binary) {
        return new Supervisor(List.of(SANDBOX_PATH), List.of(new LaunchSpec.Bind(binary, SANDBOX_PATH)));
    }

    /** The Python build of the supervisor, run by {@code python}. */
    static Supervisor python(Path python) {
        return new Supervisor(List.of(python.toString(), "-S", "-c", WarmPool.BOOTSTRAP), List.of());
    }
}
