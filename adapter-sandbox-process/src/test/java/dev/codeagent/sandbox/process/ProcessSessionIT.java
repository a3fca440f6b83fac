package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sessions on the process tier: a real ipykernel behind the kernel bridge, in a bubblewrap sandbox, pool uid and
 * control group of its own. State persists across cells; the session's limits hold for the whole session; the
 * sandbox is the tier's (no host files, no network) and nothing of it is left once the session is closed.
 */
@Tag("slow")
class ProcessSessionIT {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        HostSupport.requireRootBwrapAndCgroups();
        assumeTrue(kernelAvailable(), "needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client");
        scratch = ScratchSandbox.start("codeagent-session-", false);
    }

    @AfterAll
    static void stop() throws Exception {
        if (scratch != null) {
            scratch.stop();
        }
    }

    private static SessionLimits limits(long memory, Duration cpu) {
        return new SessionLimits(Duration.ofSeconds(20), Duration.ofMinutes(5), Duration.ofMinutes(10), memory, cpu, 64,
                64 * SessionLimits.MIB, SessionLimits.MIB, 512 * SessionLimits.KIB, 100);
    }

    private static String text(CellResult r) {
        StringBuilder s = new StringBuilder();
        for (CellOutput o : r.outputs()) {
            if (o instanceof CellOutput.Stream st) {
                s.append(st.text());
            }
        }
        return s.toString();
    }

    @Test
    void stateLivesAcrossCellsInsideTheTiersSandbox() throws IOException {
        Path marker = Files.createTempFile("codeagent-session-marker-", ".txt");
        Files.writeString(marker, "host secret");
        try (ServerSocket listener = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                Session s = scratch.sandbox.open(limits(512 * SessionLimits.MIB, Duration.ofSeconds(60)))) {
            assertThat(s.execute(new Cell("x = 41")).status()).isEqualTo(CellStatus.OK);
            CellResult read = s.execute(new Cell("import os, socket\n"
                    + "try:\n    print('read', open(" + pyString(marker.toString()) + ").read())\n"
                    + "except OSError as e:\n    print('unreadable', type(e).__name__)\n"
                    + "c = socket.socket()\nc.settimeout(2)\n"
                    + "try:\n    c.connect(('127.0.0.1', " + listener.getLocalPort() + "))\n    print('connected')\n"
                    + "except OSError as e:\n    print('no network', type(e).__name__)\n"
                    + "print('uid', os.getuid(), 'x', x + 1)"));
            assertThat(read.status()).as(read.toString()).isEqualTo(CellStatus.OK);
            assertThat(text(read)).contains("unreadable FileNotFoundError", "no network", "x 42").doesNotContain("host secret")
                    .doesNotContain("connected").doesNotContain("uid 0 ");
        } finally {
            Files.deleteIfExists(marker);
        }
    }

    @Test
    void theSessionsMemoryHoldsOverEveryProcessAndTheHostSurvivesIt() {
        try (Session s = scratch.sandbox.open(limits(128 * SessionLimits.MIB, Duration.ofSeconds(60)))) {
            s.execute(new Cell("keep = 'still here'"));
            // a child process outside the kernel's own memory: the session's group counts it all the same
            CellResult hog = s.execute(new Cell("import subprocess, sys\n"
                    + "r = subprocess.run([sys.executable, '-c', 'b = bytearray(400 * 1024 * 1024)\\nprint(\"held\")'],"
                    + " capture_output=True, text=True)\nprint(r.returncode, r.stdout.strip())"));
            assertThat(text(hog)).as(hog.toString()).doesNotContain("held").doesNotStartWith("0 ");
            // the OOM killer takes the kernel's side (the hog, or the kernel with its state, reported), never the
            // bridge: the session lives on
            assertThat(s.endReason()).isEmpty();
            CellResult after = s.execute(new Cell("print(keep)"));
            assertThat(after.status() == CellStatus.OK ? text(after) : "state lost, reported: " + after.stateLost())
                    .isIn("still here\n", "state lost, reported: true");
        }
    }

    @Test
    void aSessionThatSpendsItsCpuBudgetEndsSayingSo() {
        Session s = scratch.sandbox.open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(2)));
        try (s) {
            CellResult spin = s.execute(new Cell("while True:\n    pass"));
            assertThat(spin.status()).as(spin.toString()).isIn(CellStatus.KERNEL_DIED, CellStatus.TIMEOUT);
            assertThat(spin.message()).contains("CPU budget");
        }
    }

    @Test
    void nothingOfASessionIsLeftOnceItIsClosed() throws Exception {
        String marker = "codeagent-session-left-" + System.nanoTime();
        try (Session s = scratch.sandbox.open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(60)))) {
            CellResult started = s.execute(new Cell("import subprocess, sys, time\n"
                    + "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', '" + marker + "'],"
                    + " start_new_session=True)\ntime.sleep(0.3)\nprint('started')"));
            assertThat(text(started)).as(started.toString()).contains("started");
            assertThat(survivors(marker)).as("the background process runs while the session lives").isPositive();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (survivors(marker) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(survivors(marker)).isZero();
    }

    private static long survivors(String marker) throws IOException {
        try (var procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().matches("\\d+")).filter(p -> {
                try {
                    return new String(Files.readAllBytes(p.resolve("cmdline"))).contains(marker);
                } catch (IOException e) {
                    return false;
                }
            }).count();
        }
    }

    private static String pyString(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    private static boolean kernelAvailable() {
        try {
            Process p = new ProcessBuilder("/usr/bin/python3", "-I", "-c", "import ipykernel, jupyter_client").start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
