package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.fail;

import dev.codeagent.kit.sandbox.SupervisorJob;
import dev.codeagent.kit.sandbox.SupervisorWireContractTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervisor wire contract, held by both builds of the process tier's supervisor ({@link Supervisor}: the one
 * compiled on this host and the Python one run by the host's Python), each run as pid 1 of a pid namespace of its own
 * ({@code unshare}, root only) in a fresh work directory, outside bubblewrap. Without root, unshare, a C compiler or
 * the host's Python the build's suite is skipped; under {@code CI=true} it fails ({@link HostSupport#require}).
 */
class SupervisorWireTest {

    @TempDir
    static Path binRoot;

    /** The compiled supervisor, built by the tier's own rules into an execute-only copy. */
    @Nested
    class Compiled extends OnThisHost {

        @Override
        List<String> command() {
            Path cc = HostTools.find("cc");
            HostSupport.require(cc != null, "a C compiler (cc) for the compiled supervisor");
            Supervisor compiled = Supervisor.choose(cc, null, binRoot);
            if (compiled == null || compiled.binds().isEmpty()) {
                throw new AssertionError("the supervisor did not compile with " + cc);
            }
            return List.of(compiled.binds().get(0).host().toString());
        }
    }

    /** The Python build, for hosts without a C compiler. */
    @Nested
    class Python extends OnThisHost {

        @Override
        List<String> command() {
            return Supervisor.python(Path.of(python())).argv();
        }
    }

    /** Runs a build of the supervisor on this host; its report comes on stderr behind the nonce's marker. */
    abstract static class OnThisHost extends SupervisorWireContractTest {

        private static final String NONCE = "0123456789abcdef";
        private static final String MARKER = "\u0000codeagent:" + NONCE + ":";
        /** The status and prefix of the supervisor's own failure, before the program starts. */
        private static final int REFUSED = 125;
        private static final String PREFIX = "codeagent-boot: ";

        @TempDir
        Path work;

        /** The supervisor's command on the host. */
        abstract List<String> command();

        @Override
        protected String python() {
            HostSupport.require(Files.isExecutable(HostSupport.PYTHON), HostSupport.PYTHON.toString());
            return Interpreters.nativeBinary(HostSupport.PYTHON).map(Path::toString).orElse(HostSupport.PYTHON.toString());
        }

        /** The job with this tier's nonce; the program's stdin follows it on the same pipe. */
        @Override
        protected byte[] wire(SupervisorJob job, String stdin) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(job.with("nonce", NONCE).encode());
            out.writeBytes(stdin.getBytes(StandardCharsets.UTF_8));
            return out.toByteArray();
        }

        @Override
        protected Supervised supervise(byte[] wire) throws Exception {
            HostSupport.require(HostTools.runningAsRoot(), "root (for a pid namespace of the supervisor's own)");
            HostSupport.require(Files.isExecutable(Path.of("/usr/bin/unshare")), "/usr/bin/unshare");
            List<String> cmd = new ArrayList<>(List.of("/usr/bin/unshare", "--pid", "--fork", "--kill-child", "--"));
            cmd.addAll(command());
            return run(cmd, wire);
        }

        @Override
        protected Supervised superviseNotAsInit(byte[] wire) throws Exception {
            return run(command(), wire);
        }

        private Supervised run(List<String> cmd, byte[] wire) throws Exception {
            Path dir = Files.createTempDirectory(work, "run");
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).start();
            CompletableFuture<byte[]> out = drain(p.getInputStream());
            CompletableFuture<byte[]> err = drain(p.getErrorStream());
            try (OutputStream in = p.getOutputStream()) {
                in.write(wire);
            } catch (IOException refusedEarly) {
                // a supervisor that refused the header may be gone before the rest is written
            }
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("the supervisor did not end in 60 s: " + cmd.get(cmd.size() - 1));
            }
            String stdout = new String(out.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
            String stderr = new String(err.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
            Report report = reportAfter(MARKER, stderr);
            stderr = before(MARKER, stderr);
            String refusal = p.exitValue() == REFUSED && stderr.startsWith(PREFIX) ? stderr.strip() : null;
            return new Supervised(stdout, stderr, report, refusal);
        }

        /** On a thread of its own: the common pool may have a single thread on a small host, and both pipes must flow. */
        private static CompletableFuture<byte[]> drain(InputStream in) {
            return CompletableFuture.supplyAsync(() -> {
                try (in) {
                    return in.readAllBytes();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, r -> {
                Thread t = new Thread(r, "supervisor-pipe");
                t.setDaemon(true);
                t.start();
            });
        }
    }
}
