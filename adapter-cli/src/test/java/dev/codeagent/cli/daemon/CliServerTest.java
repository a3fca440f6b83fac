package dev.codeagent.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The background process over a real Unix socket, driven by a client speaking the wire format: the
 * caller's directory, environment and stdin reach the command, its output and status come back, a
 * client of another build or another uid gets nothing run.
 */
class CliServerTest {

    @TempDir
    Path tmp;

    Path run;
    Path socket;
    CliServer server;
    Thread serving;
    WarmSandboxes sandboxes;

    @BeforeEach
    void start() throws IOException {
        run = Files.createDirectory(tmp.resolve("run"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        socket = run.resolve("cli.sock");
        sandboxes = new WarmSandboxes();
        server = new CliServer(socket, "b1", sandboxes);
        serving = new Thread(server::serve);
        serving.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        server.close();
        serving.join(5000);
        sandboxes.close();
    }

    record Reply(boolean accepted, String refusal, int status, String out, String err) {
    }

    private Reply call(String build, Path cwd, Map<String, String> env, String stdin, String... args) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            OutputStream out = CliServer.output(ch);
            DataInputStream in = new DataInputStream(CliServer.input(ch));
            CliProtocol.write(out, CliProtocol.HELLO, CliProtocol.VERSION + " " + build);
            CliProtocol.write(out, CliProtocol.ENVIRONMENT, CallerEnvironment.current());
            CliProtocol.write(out, CliProtocol.CWD, cwd.toString());
            for (Map.Entry<String, String> e : env.entrySet()) {
                CliProtocol.write(out, CliProtocol.ENV, e.getKey() + "=" + e.getValue());
            }
            for (String a : args) {
                CliProtocol.write(out, CliProtocol.ARG, a);
            }
            CliProtocol.write(out, CliProtocol.FLAGS, new byte[] {0});
            CliProtocol.Frame answer = CliProtocol.read(in);
            if (answer.type() == CliProtocol.REFUSED) {
                return new Reply(false, answer.text(), -1, "", "");
            }
            assertThat((char) answer.type()).isEqualTo((char) CliProtocol.ACCEPTED);
            CliProtocol.write(out, CliProtocol.GO, new byte[0]);
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            ByteArrayOutputStream stderr = new ByteArrayOutputStream();
            byte[] input = stdin.getBytes(StandardCharsets.UTF_8);
            int sent = 0;
            while (true) {
                CliProtocol.Frame f = CliProtocol.read(in);
                switch (f.type()) {
                    case CliProtocol.STDOUT -> stdout.write(f.payload());
                    case CliProtocol.STDERR -> stderr.write(f.payload());
                    case CliProtocol.NEED_INPUT -> {
                        int n = Math.min(f.number(), input.length - sent);
                        CliProtocol.write(out, CliProtocol.INPUT, input, sent, n);
                        sent += n;
                    }
                    case CliProtocol.EXIT -> {
                        return new Reply(true, null, f.number(), stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
                    }
                    default -> throw new AssertionError("unexpected frame " + (char) f.type());
                }
            }
        }
    }

    private Map<String, String> env() throws IOException {
        Path config = Files.writeString(tmp.resolve("empty.yaml"), "{}\n");
        return Map.of("CODEAGENT_CONFIG", config.toString(), "CODEAGENT_STORE", "memory");
    }

    @Test
    void runsTheCommandAndReturnsItsOutputAndStatus() throws IOException {
        Reply r = call("b1", tmp, env(), "", "version");
        assertThat(r.status()).isZero();
        assertThat(r.out()).startsWith("codeagent ");

        Reply bad = call("b1", tmp, env(), "", "exec", "--no-such-option");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("--no-such-option");
    }

    @Test
    void relativeFilesAreTheCallersAndConfigIsPerCall() throws IOException {
        Path callerDir = Files.createDirectory(tmp.resolve("caller"));
        Files.writeString(callerDir.resolve("prog.py"), "print('a marker program')\n");
        // found in the caller's directory (else "no such file"), and refused by the caller's own limit
        Reply r = call("b1", callerDir, env(), "", "--set", "sandbox.maxSourceBytes=5", "exec", "prog.py");
        assertThat(r.status()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("prog.py").contains("more than 5 bytes");

        // the same call from another directory: the file is not there
        Reply elsewhere = call("b1", tmp, env(), "", "--set", "sandbox.maxSourceBytes=5", "exec", "prog.py");
        assertThat(elsewhere.err()).contains("prog.py: no such file");

        // the caller's environment is the config: a bad CODEAGENT_ variable is this call's error only
        Map<String, String> broken = new java.util.HashMap<>(env());
        broken.put("CODEAGENT_SANDBOX_KIND", "no-such-tier");
        Reply wrong = call("b1", callerDir, broken, "", "exec", "prog.py");
        assertThat(wrong.status()).isEqualTo(2);
        assertThat(wrong.err()).contains("no-such-tier");
        assertThat(call("b1", tmp, env(), "", "version").status()).isZero();
    }

    @Test
    void standardInputIsFetchedFromTheCaller() throws IOException {
        Reply r = call("b1", tmp, env(), "print('from the caller stdin')\n", "--set", "sandbox.maxSourceBytes=7", "exec", "-");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("from standard input is more than 7 bytes");
    }

    @Test
    void aClientOfAnotherBuildIsRefusedBeforeAnythingRuns() throws IOException {
        Reply r = call("b0", tmp, env(), "", "version");
        assertThat(r.accepted()).isFalse();
        assertThat(r.refusal()).contains("another build");
    }

    @Test
    void refusesToStartInADirectoryOthersCanOpen() throws IOException {
        Path open = Files.createDirectory(tmp.resolve("open"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        assertThatThrownBy(() -> new CliServer(open.resolve("cli.sock"), "b1", sandboxes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("it must be rwx------");
        assertThat(open.resolve("cli.sock")).doesNotExist();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
    }

    /** Connects as uid 65534 and sends a request; prints what happened. */
    private String asAnotherUser() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")) && Files.isExecutable(Path.of("/usr/bin/python3")),
                "needs setpriv and /usr/bin/python3 to act as another user");
        String script = String.join("\n",
                "import socket, struct, sys",
                "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
                "try:",
                "    s.connect(sys.argv[1])",
                "except OSError as e:",
                "    print('connect-refused', e.errno); sys.exit(0)",
                "def frame(t, b): return t + struct.pack('>I', len(b)) + b",
                "s.settimeout(10)",
                "try:",
                "    s.sendall(frame(b'H', b'codeagent-cli/1 b1') + frame(b'D', b'/') + frame(b'A', b'version') + frame(b'T', b'\\0'))",
                "    d = s.recv(1)",
                "except OSError as e:",
                "    print('closed', e.errno); sys.exit(0)",
                "print('answer', d)",
                "");
        Path py = Files.writeString(tmp.resolve("other.py"), script);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(py, PosixFilePermissions.fromString("rwxr-xr-x"));
        Process p = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/python3", py.toString(), socket.toString()).redirectErrorStream(true).start();
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    }

    @Test
    void anotherUserCannotReachTheSocketThroughItsDirectory() throws Exception {
        assumeTrue(Files.getOwner(Path.of("/proc/self")).getName().equals("root"), "only root can act as another user here");
        String result = asAnotherUser();
        // EACCES on the 0700 directory
        assertThat(result).isEqualTo("connect-refused 13");
    }

    @Test
    void anotherUserIsRefusedByPeerCredentialsEvenWhenPermissionsAreWrong() throws Exception {
        assumeTrue(Files.getOwner(Path.of("/proc/self")).getName().equals("root"), "only root can act as another user here");
        // someone loosened everything: the directory and the socket are open to all
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rwxrwxrwx"));
        String result = asAnotherUser();
        // connected, but closed unanswered (EOF, EPIPE or ECONNRESET): no handshake byte, nothing ran
        assertThat(result).isIn("answer b''", "closed 32", "closed 104");
        // and the owner is still served
        assertThat(call("b1", tmp, env(), "", "version").status()).isZero();
    }

    @Test
    void aClientThatLeavesBeforeGoHasNothingRun() throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            OutputStream out = CliServer.output(ch);
            CliProtocol.write(out, CliProtocol.HELLO, CliProtocol.VERSION + " b1");
            CliProtocol.write(out, CliProtocol.ENVIRONMENT, CallerEnvironment.current());
            CliProtocol.write(out, CliProtocol.CWD, tmp.toString());
            CliProtocol.write(out, CliProtocol.ARG, "version");
            CliProtocol.write(out, CliProtocol.FLAGS, new byte[] {0});
            DataInputStream in = new DataInputStream(CliServer.input(ch));
            assertThat((char) CliProtocol.read(in).type()).isEqualTo('h');
            ch.shutdownOutput();
            assertThatThrownBy(() -> CliProtocol.read(in)).isInstanceOf(EOFException.class);
        }
        assertThat(List.of(server.active())).containsExactly(0);
    }

    /** The C client the launcher builds, compiled here when a compiler is present. */
    private Path client() throws Exception {
        Path cc = Path.of("/usr/bin/cc");
        assumeTrue(Files.isExecutable(cc), "needs a C compiler for the client");
        Path bin = tmp.resolve("codeagent-client");
        Process p = new ProcessBuilder(cc.toString(), "-O2", "-o", bin.toString(), "src/main/c/codeagent-client.c")
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        return bin;
    }

    private Reply runClient(Path client, Path socketPath, String build, String... args) throws Exception {
        return runClientWithLauncher(client, socketPath, build, "-", args);
    }

    private Reply runClientWithLauncher(Path client, Path socketPath, String build, String launcher, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(client.toString(), socketPath.toString(), build, "0", launcher, String.valueOf(args.length)));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("/bin/echo", "fallback ran"));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
        pb.environment().clear();
        pb.environment().putAll(env());
        Process p = pb.start();
        p.getOutputStream().close();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Reply(true, null, p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void theCClientPassesOutputAndStatusAndFallsBackOnlyBeforeAnythingRan() throws Exception {
        Path client = client();
        Reply version = runClient(client, socket, "b1", "version");
        assertThat(version.status()).as(version.toString()).isZero();
        assertThat(version.out()).startsWith("codeagent ").doesNotContain("fallback ran");

        Reply usage = runClient(client, socket, "b1", "exec", "--no-such-option");
        assertThat(usage.status()).isEqualTo(2);
        assertThat(usage.err()).contains("--no-such-option");

        // another build: refused, so the client runs the command itself, with a one-line notice
        Reply other = runClient(client, socket, "b0", "version");
        assertThat(other.out()).isEqualTo("fallback ran\n");
        assertThat(other.err()).isEqualTo("codeagent: background process unusable (it runs another build of codeagent); running in this process\n");

        // a socket nobody listens on (a crashed process's): fall back; the client removes nothing (only the process
        // holding the socket's lock replaces it), and with a launcher to run, runs it again asking for a new process
        server.close();
        serving.join(5000);
        Path stale = run.resolve("stale.sock");
        try (var ch = java.nio.channels.ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.bind(UnixDomainSocketAddress.of(stale));
        }
        assertThat(stale).exists();
        Reply crashed = runClient(client, stale, "b1", "version");
        assertThat(crashed.out()).isEqualTo("fallback ran\n");
        assertThat(crashed.err()).contains("background process unusable");
        assertThat(stale).exists();
        Path launcher = Files.writeString(tmp.resolve("launcher.sh"), "#!/bin/sh\necho \"start=$CODEAGENT_DAEMON_START $*\"\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwx------"));
        Reply restarted = runClientWithLauncher(client, stale, "b1", launcher.toString(), "exec", "-");
        assertThat(restarted.out()).isEqualTo("start=1 exec -\n");
        assertThat(stale).exists();
    }
}
