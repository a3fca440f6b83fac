package dev.codeagent.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a client of the same user cannot make the background process do: hold it with idle connections, fill its
 * memory with a request, run a second process for the same socket, or be served from another environment.
 */
class CliServerBoundsTest {

    @TempDir
    Path tmp;

    Path socket;
    final List<CliServer> servers = new ArrayList<>();

    static final CliServer.Limits SMALL = new CliServer.Limits(Duration.ofMillis(400), 4096, 4, 2, 64 * 1024, Duration.ofMillis(200));

    @BeforeEach
    void dir() throws IOException {
        Path run = Files.createDirectory(tmp.resolve("run"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        socket = run.resolve("cli.sock");
    }

    @AfterEach
    void stop() {
        servers.forEach(CliServer::close);
    }

    private CliServer start(CliServer.Limits limits, String environment) throws IOException {
        CliServer s = new CliServer(socket, "b1", config -> {
            throw new AssertionError("these calls compose no agent");
        }, limits, environment);
        servers.add(s);
        Thread t = new Thread(s::serve);
        t.setDaemon(true);
        t.start();
        return s;
    }

    private SocketChannel connect() throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(socket));
        return ch;
    }

    /** The next frame, or null when the server closed the connection. */
    private static CliProtocol.Frame next(SocketChannel ch) throws IOException {
        try {
            return CliProtocol.read(new DataInputStream(CliServer.input(ch)));
        } catch (EOFException e) {
            return null;
        }
    }

    private static void request(OutputStream out, String build, String environment, String... args) throws IOException {
        CliProtocol.write(out, CliProtocol.HELLO, CliProtocol.VERSION + " " + build);
        CliProtocol.write(out, CliProtocol.ENVIRONMENT, environment);
        CliProtocol.write(out, CliProtocol.CWD, "/");
        for (String a : args) {
            CliProtocol.write(out, CliProtocol.ARG, a);
        }
        CliProtocol.write(out, CliProtocol.FLAGS, new byte[] {0});
    }

    @Test
    void anIdleConnectionIsClosedWithAOneLineReasonAfterTheHandshakeTime() throws Exception {
        start(SMALL, CallerEnvironment.current());
        try (SocketChannel idle = connect()) {
            long t0 = System.nanoTime();
            CliProtocol.Frame f = next(idle);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat((char) f.type()).isEqualTo((char) CliProtocol.REFUSED);
            assertThat(f.text()).isEqualTo("no whole request within 400 ms");
            assertThat(ms).isBetween(300L, 3000L);
            assertThat(next(idle)).as("closed after the reason").isNull();
        }
        // so is one that sent its request but never said go: nothing runs
        try (SocketChannel slow = connect()) {
            request(CliServer.output(slow), "b1", CallerEnvironment.current(), "version");
            assertThat((char) next(slow).type()).isEqualTo((char) CliProtocol.ACCEPTED);
            assertThat(next(slow).text()).startsWith("no whole request within");
        }
    }

    @Test
    void aRequestOverTheCapIsRefusedInOneLineAndAFrameHeaderOverItBeforeItsBytesAreRead() throws Exception {
        start(SMALL, CallerEnvironment.current());
        try (SocketChannel big = connect()) {
            OutputStream out = CliServer.output(big);
            CliProtocol.write(out, CliProtocol.HELLO, CliProtocol.VERSION + " b1");
            // many small frames adding up past 4096 bytes
            for (int i = 0; i < 40; i++) {
                try {
                    CliProtocol.write(out, CliProtocol.ENV, "K" + i + "=" + "v".repeat(200));
                } catch (IOException closed) {
                    break;
                }
            }
            CliProtocol.Frame f = next(big);
            assertThat((char) f.type()).isEqualTo((char) CliProtocol.REFUSED);
            assertThat(f.text()).isEqualTo("request of more than 4096 bytes (arguments and environment) refused;"
                    + " unset large environment variables or raise CODEAGENT_DAEMON_MAX_REQUEST");
        }
        try (SocketChannel huge = connect()) {
            // a header announcing 1 GiB, and nothing after it
            huge.write(ByteBuffer.allocate(5).put(CliProtocol.HELLO).putInt(1 << 30).flip());
            CliProtocol.Frame f = next(huge);
            assertThat(f.text()).startsWith("request of more than 4096 bytes");
        }
    }

    @Test
    void beyondTheWaitingCapTheOldestIdleConnectionMakesRoomAndARealClientIsStillAnswered() throws Exception {
        start(SMALL, CallerEnvironment.current());
        List<SocketChannel> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                idle.add(connect());
            }
            // the first sixteen were closed to make room, each told why
            CliProtocol.Frame first = next(idle.get(0));
            assertThat(first.text()).isEqualTo("too many connections waiting (4); the oldest was closed");
            try (SocketChannel ping = connect()) {
                CliProtocol.write(CliServer.output(ping), CliProtocol.PING, new byte[0]);
                CliProtocol.Frame pong = next(ping);
                assertThat((char) pong.type()).isEqualTo((char) CliProtocol.PONG);
                assertThat(pong.text()).isEqualTo("b1");
            }
        } finally {
            for (SocketChannel ch : idle) {
                ch.close();
            }
        }
    }

    @Test
    void aCallerFromAnotherEnvironmentIsRefusedNamingWhatDiffersAndTheProcessSoonGivesWay() throws Exception {
        String own = CallerEnvironment.current();
        CliServer server = start(SMALL, own);
        String elsewhere = own.replaceFirst("(?m)^ns\\.pid .*$", "ns.pid pid:[1]").replaceFirst("(?m)^cgroup .*$", "cgroup 0::/tight");
        try (SocketChannel ch = connect()) {
            request(CliServer.output(ch), "b1", elsewhere, "version");
            CliProtocol.Frame f = next(ch);
            assertThat((char) f.type()).isEqualTo((char) CliProtocol.REFUSED);
            assertThat(f.text()).isEqualTo("it was started in another environment (another pid namespace, control group)"
                    + " and its sandbox may have less isolation than this one's");
        }
        try (SocketChannel ch = connect()) {
            CliProtocol.write(CliServer.output(ch), CliProtocol.HELLO, CliProtocol.VERSION + " b1");
            CliProtocol.write(CliServer.output(ch), CliProtocol.CWD, "/");
            CliProtocol.write(CliServer.output(ch), CliProtocol.FLAGS, new byte[] {0});
            assertThat(next(ch).text()).contains("did not say its environment");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!server.idleForAnother() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(server.idleForAnother()).as("stops soon once another environment wants a process").isTrue();
    }

    @Test
    void aSecondServerForTheSameSocketIsRefusedAndTheFirstServesOn() throws Exception {
        start(SMALL, CallerEnvironment.current());
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> start(SMALL, CallerEnvironment.current()))
                .isInstanceOf(CliServer.AlreadyServed.class)
                .hasMessage("another background process serves " + socket);
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).as("waits briefly for a stopping one").isLessThan(15);
        try (SocketChannel ping = connect()) {
            CliProtocol.write(CliServer.output(ping), CliProtocol.PING, new byte[0]);
            assertThat(next(ping).text()).isEqualTo("b1");
        }
    }

    @Test
    void aServerWhoseSocketWasReplacedKnowsItAndLeavesTheNewOneAlone() throws Exception {
        CliServer server = start(SMALL, CallerEnvironment.current());
        assertThat(server.stillOwnsItsPaths()).isTrue();
        Files.delete(socket);
        try (var other = java.nio.channels.ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            other.bind(UnixDomainSocketAddress.of(socket));
            assertThat(server.stillOwnsItsPaths()).isFalse();
            server.close();
            assertThat(socket).as("not ours: left in place").exists();
        }
    }

    @Test
    void aClosedServerGivesUpItsLockToTheNext() throws Exception {
        CliServer first = start(SMALL, CallerEnvironment.current());
        first.close();
        CliServer second = start(SMALL, CallerEnvironment.current());
        assertThat(second.stillOwnsItsPaths()).isTrue();
    }

    /** The C client, compiled here when a compiler is present. */
    private Path client() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/cc")), "needs a C compiler for the client");
        Path bin = tmp.resolve("codeagent-client");
        Process p = new ProcessBuilder("/usr/bin/cc", "-O2", "-o", bin.toString(), "src/main/c/codeagent-client.c")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return bin;
    }

    private static String[] run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String[] {Integer.toString(p.exitValue()), out, err};
    }

    @Test
    void theClientComputesTheSameEnvironmentAsTheServerAndAnotherOneInAnotherPidNamespace() throws Exception {
        Path client = client();
        assertThat(run(client.toString(), "--environment")[1]).isEqualTo(CallerEnvironment.current());
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/unshare")) && run("/usr/bin/unshare", "-p", "-f", "true")[0].equals("0"),
                "needs unshare and the right to make a pid namespace");
        String inside = run("/usr/bin/unshare", "-p", "-f", "--mount-proc", client.toString(), "--environment")[1];
        assertThat(CallerEnvironment.differences(CallerEnvironment.current(), inside)).containsExactly("mount namespace", "pid namespace");
    }

    @Test
    void theClientsPingTellsALiveProcessOfThisBuildFromAnotherBuildAndFromNone() throws Exception {
        Path client = client();
        assertThat(run(client.toString(), "--ping", socket.toString(), "b1", "2000")[0]).as("nobody there").isEqualTo("1");
        start(SMALL, CallerEnvironment.current());
        assertThat(run(client.toString(), "--ping", socket.toString(), "b1", "2000")[0]).isEqualTo("0");
        assertThat(run(client.toString(), "--ping", socket.toString(), "b0", "2000")[0]).isEqualTo("3");
    }

    @Test
    void theClientChecksThatItsRuntimeDirectoryIsPrivateAncestorsIncluded() throws Exception {
        Path client = client();
        assertThat(run(client.toString(), "--private-dir", socket.getParent().toString())[0]).isEqualTo("0");
        Path open = Files.createDirectories(tmp.resolve("open/inner"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(open.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
        String[] r = run(client.toString(), "--private-dir", open.toString());
        assertThat(r[0]).isEqualTo("1");
        assertThat(r[2]).isEqualTo("codeagent: " + open.getParent() + " (on the way to " + open + ") is writable by others and not sticky\n");
    }

    @Test
    void aWarmSandboxKeepsEveryInterfaceOfTheTierSessionsToo() {
        java.util.concurrent.atomic.AtomicInteger closed = new java.util.concurrent.atomic.AtomicInteger();
        class Both implements Sandbox, SessionSandbox {
            @Override
            public Execution execute(ExecutionRequest request) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String tier() {
                return "both";
            }

            @Override
            public java.util.Set<dev.codeagent.domain.execution.Language> languages() {
                return java.util.Set.of();
            }

            @Override
            public Isolation isolation() {
                return Isolation.of("both", List.of(), List.of());
            }

            @Override
            public Session open(SessionLimits limits) {
                throw new IllegalStateException("opened");
            }

            @Override
            public void close() {
                closed.incrementAndGet();
            }
        }
        // the per-call agent gets the warm tier itself (no wrapper that could drop an interface), and closing the
        // call's agent leaves it open for the next call
        try (WarmSandboxes sandboxes = new WarmSandboxes(c -> dev.codeagent.application.CodeAgent.builder(c).withoutDiscovery()
                .provider(dev.codeagent.application.testing.SandboxProviders.of("both", Both::new)))) {
            dev.codeagent.application.CodeAgent call = sandboxes.apply(
                    new dev.codeagent.application.config.ConfigLoader().parse("sandbox: {kind: both}\nstore: {kind: memory}"));
            Sandbox warm = call.sandbox();
            assertThat(warm).isInstanceOf(SessionSandbox.class);
            assertThat(call.sessions()).containsSame((SessionSandbox) warm);
            assertThatThrownBy(() -> ((SessionSandbox) warm).open(null)).hasMessage("opened");
            call.close();
            assertThat(closed).as("a warm sandbox is not closed by its call").hasValue(0);
        }
        assertThat(closed).as("closed with the background process's warm sandboxes").hasValue(1);
    }
}
