package dev.codeagent.sandbox.process;

import dev.codeagent.application.sandbox.SupervisorJob;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-sandbox supervisor of a bubblewrap run: the sandbox's pid 1, which writes the program's files into
 * the tmpfs, starts the program and reports its real wait status behind a nonce. Two builds of the same
 * behaviour: {@code supervisor.c}, compiled on this host once per source version (it starts in about a
 * millisecond; the Python supervisor cost as much CPU as the program's own interpreter start, and an evaluation
 * on 2 cores is CPU-bound), and {@code warm-bootstrap.py}, run by the host's Python,
 * for hosts without a C compiler. Both read the {@link SupervisorJob} wire format and are held to one contract
 * ({@code SupervisorContractIT}).
 *
 * <p>The compiled one is a root-owned, execute-only (0111) file bound read-only into the sandbox at
 * {@value #SANDBOX_PATH}: the program, which has the supervisor's uid, can neither read the binary nor (it is
 * non-dumpable, see {@link ExecuteOnlyCopy}) its memory.
 */
final class Supervisor {

    private static final Logger log = LoggerFactory.getLogger(Supervisor.class);

    /** Where the compiled supervisor appears inside the sandbox. */
    static final String SANDBOX_PATH = "/.supervisor";
    private static final String SOURCE = "supervisor.c";

    private final List<String> argv;
    private final List<RunSpec.Bind> binds;
    private final long memoryBytes;
    private final String kind;

    private Supervisor(List<String> argv, List<RunSpec.Bind> binds, long memoryBytes, String kind) {
        this.argv = argv;
        this.binds = binds;
        this.memoryBytes = memoryBytes;
        this.kind = kind;
    }

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
            Optional<Path> binary = compiled(cc, root);
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
        // a C program's own pages and the job while it is read; the files are freed once written
        return new Supervisor(List.of(SANDBOX_PATH), List.of(new RunSpec.Bind(binary, SANDBOX_PATH)), 4 * ResourceLimits.MIB, "c");
    }

    /** The Python build of the supervisor, run by {@code python}. */
    static Supervisor python(Path python) {
        // measured at 9-10 MiB resident with ctypes loaded
        return new Supervisor(List.of(python.toString(), "-S", "-c", WarmPool.BOOTSTRAP), List.of(),
                16 * ResourceLimits.MIB, "python");
    }

    /** The supervisor's command inside the sandbox. */
    List<String> argv() {
        return argv;
    }

    /** What the sandbox needs bound in for {@link #argv()} to start. */
    List<RunSpec.Bind> binds() {
        return binds;
    }

    /** Memory the run's group holds beyond the request's limit for the supervisor: the program gets its limit. */
    long memoryBytes() {
        return memoryBytes;
    }

    /** {@code c} or {@code python}. */
    String kind() {
        return kind;
    }

    /**
     * The compiled supervisor under {@code root/codeagent-bin}, named for a hash of its source and compiler,
     * shared by every sandbox and JVM on that root; empty (with a warning) when it cannot be made or trusted.
     */
    static Optional<Path> compiled(Path cc, Path root) {
        byte[] source;
        try (InputStream in = Supervisor.class.getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new IllegalStateException(SOURCE + " is missing beside " + Supervisor.class.getName());
            }
            source = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + SOURCE, e);
        }
        Path work = null;
        try {
            Path dir = ExecuteOnlyCopy.trustedDir(root);
            if (dir == null) {
                log.warn("process sandbox: {} is not root's alone; not compiling the supervisor there", root.resolve(ExecuteOnlyCopy.DIR));
                return Optional.empty();
            }
            Path target = dir.resolve("supervisor-" + digest(source, cc.toRealPath().toString()));
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                work = Files.createTempDirectory(dir, ".cc-", PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------")));
                Path src = work.resolve(SOURCE);
                Path out = work.resolve("supervisor");
                Files.write(src, source);
                Process p = new ProcessBuilder(cc.toString(), "-O2", "-o", out.toString(), src.toString())
                        .redirectErrorStream(true).start();
                p.getOutputStream().close();
                byte[] said = p.getInputStream().readAllBytes();
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    log.warn("process sandbox: compiling the supervisor with {} took over a minute", cc);
                    return Optional.empty();
                }
                if (p.exitValue() != 0) {
                    log.warn("process sandbox: {} could not compile the supervisor (exit {}): {}", cc, p.exitValue(),
                            new String(said, StandardCharsets.UTF_8).strip());
                    return Optional.empty();
                }
                ExecuteOnlyCopy.install(out, target);
            }
            return ExecuteOnlyCopy.trusted(target) ? Optional.of(target) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            log.warn("process sandbox: cannot compile the supervisor: {}", e.toString());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            Reaper.remove(work, null);
        }
    }

    private static String digest(byte[] source, String compiler) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(source);
            sha.update(compiler.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
