package dev.codeagent.application.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.MimeBundle;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What every tier owes a session (see {@link SessionSandbox}): a real kernel whose state lives across cells inside
 * the tier's sandbox (no host files, no network, not root); the session's memory and CPU budget hold over every
 * process it starts, and the host survives them; rich output comes back as MIME bundles (a chart as PNG where the
 * tier has matplotlib); nothing of a session is left once it is closed. A tier's integration test extends this class
 * and supplies the sandbox; the checks on the host aim at markers the test plants (a temp file, a loopback
 * listener, a process named by a marker).
 */
public abstract class SessionSandboxContractTest {

    /** The tier under test, shared by the tests of a class. */
    protected abstract SessionSandbox sessions();

    /** Whether the tier's kernel is expected to plot (the docker image carries matplotlib). */
    protected boolean plots() {
        return true;
    }

    protected static SessionLimits limits(long memory, Duration cpu) {
        return new SessionLimits(Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofMinutes(10), memory, cpu, 64,
                64 * SessionLimits.MIB, SessionLimits.MIB, 512 * SessionLimits.KIB, 100);
    }

    protected static String text(CellResult r) {
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
                Session s = sessions().open(limits(512 * SessionLimits.MIB, Duration.ofSeconds(60)))) {
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

    /**
     * A session outlives the thread that opened it (an HTTP request's pooled thread ends long before its session):
     * on the process tier, bubblewrap's die-with-parent fired when the opening thread ended and killed the session.
     */
    @Test
    void aSessionOutlivesTheThreadThatOpenedIt() throws Exception {
        java.util.concurrent.atomic.AtomicReference<Session> opened = new java.util.concurrent.atomic.AtomicReference<>();
        Thread opener = new Thread(() -> {
            Session s = sessions().open(limits(512 * SessionLimits.MIB, Duration.ofSeconds(60)));
            opened.set(s);
            s.execute(new Cell("x = 41"));
        });
        opener.start();
        opener.join();
        assertThat(opened.get()).as("the session opened").isNotNull();
        try (Session s = opened.get()) {
            Thread.sleep(300);
            CellResult r = s.execute(new Cell("print(x + 1)"));
            assertThat(r.status()).as(r.toString()).isEqualTo(CellStatus.OK);
            assertThat(r.outputs()).contains(new CellOutput.Stream("stdout", "42\n"));
        }
    }

    @Test
    void outputsArriveWhileTheCellStillRuns() {
        try (Session s = sessions().open(limits(512 * SessionLimits.MIB, Duration.ofSeconds(60)))) {
            java.util.List<CellOutput> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.List<Long> at = new java.util.concurrent.CopyOnWriteArrayList<>();
            long start = System.nanoTime();
            CellResult r = s.execute(new Cell("import time\nprint('first', flush=True)\ntime.sleep(1.5)\n"
                    + "display({'text/html': '<b>later</b>'}, raw=True)\nprint('second')\n1/0"), o -> {
                        seen.add(o);
                        at.add(System.nanoTime());
                    });
            long end = System.nanoTime();
            assertThat(r.status()).as(r.toString()).isEqualTo(CellStatus.ERROR);
            assertThat(seen).as("every output streamed").hasSizeGreaterThanOrEqualTo(4);
            assertThat(seen.get(0)).isEqualTo(new CellOutput.Stream("stdout", "first\n"));
            assertThat(Duration.ofNanos(end - at.get(0))).as("the first output came while the cell slept")
                    .isGreaterThan(Duration.ofMillis(1000));
            assertThat(seen).anySatisfy(o -> assertThat(o).isInstanceOfSatisfying(CellOutput.DisplayData.class,
                    d -> assertThat(d.data().data()).containsEntry("text/html", "<b>later</b>")));
            assertThat(seen.get(seen.size() - 1)).isInstanceOfSatisfying(CellOutput.Error.class,
                    e -> assertThat(e.name()).isEqualTo("ZeroDivisionError"));
            StringBuilder streamed = new StringBuilder();
            seen.stream().filter(o -> o instanceof CellOutput.Stream).forEach(o -> streamed.append(((CellOutput.Stream) o).text()));
            assertThat(streamed.toString()).as("the pieces add up to the result's text").isEqualTo(text(r))
                    .isEqualTo("first\nsecond\n");
            assertThat(Duration.ofNanos(end - start)).isGreaterThan(Duration.ofMillis(1500));
        }
    }

    @Test
    void aChartComesBackAsAPngAndAnErrorWithItsNameValueAndTraceback() {
        try (Session s = sessions().open(limits(512 * SessionLimits.MIB, Duration.ofSeconds(60)))) {
            CellResult error = s.execute(new Cell("def f():\n    return 1 / 0\nf()"));
            assertThat(error.status()).isEqualTo(CellStatus.ERROR);
            assertThat(error.outputs()).last().isInstanceOfSatisfying(CellOutput.Error.class, e -> {
                assertThat(e.name()).isEqualTo("ZeroDivisionError");
                assertThat(e.value()).isEqualTo("division by zero");
                assertThat(String.join("\n", e.traceback())).contains("return 1 / 0");
            });
            if (!plots()) {
                return;
            }
            CellResult chart = s.execute(new Cell("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"));
            assertThat(chart.status()).as(chart.toString()).isEqualTo(CellStatus.OK);
            // matplotlib finds its fonts' configuration: no "Fontconfig error: Cannot load default config file" in every plot
            assertThat(text(chart)).as(chart.toString()).doesNotContain("Fontconfig");
            MimeBundle png = chart.outputs().stream().filter(o -> o instanceof CellOutput.DisplayData)
                    .map(o -> ((CellOutput.DisplayData) o).data()).filter(d -> d.data().containsKey(MimeBundle.IMAGE_PNG))
                    .findFirst().orElseThrow(() -> new AssertionError("no image/png in " + chart));
            byte[] bytes = Base64.getMimeDecoder().decode(png.data().get(MimeBundle.IMAGE_PNG));
            assertThat(bytes).startsWith(0x89, 'P', 'N', 'G');
            assertThat(png.standIn()).doesNotContain(png.data().get(MimeBundle.IMAGE_PNG).substring(0, 40));
        }
    }

    @Test
    void theSessionsMemoryHoldsOverEveryProcessAndTheHostSurvivesIt() {
        try (Session s = sessions().open(limits(128 * SessionLimits.MIB, Duration.ofSeconds(60)))) {
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
        Session s = sessions().open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(2)));
        try (s) {
            CellResult spin = s.execute(new Cell("while True:\n    pass"));
            assertThat(spin.status()).as(spin.toString()).isIn(CellStatus.KERNEL_DIED, CellStatus.TIMEOUT);
            assertThat(spin.message()).contains("CPU budget");
        }
    }

    @Test
    void nothingOfASessionIsLeftOnceItIsClosed() throws Exception {
        String marker = "codeagent-session-left-" + System.nanoTime();
        try (Session s = sessions().open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(60)))) {
            CellResult started = s.execute(new Cell("import subprocess, sys, time\n"
                    + "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', '" + marker + "'],"
                    + " start_new_session=True)\ntime.sleep(0.3)\nprint('started')"));
            assertThat(text(started)).as(started.toString()).contains("started");
            assertThat(survivors(marker)).as("the background process runs while the session lives").isPositive();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (survivors(marker) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(survivors(marker)).isZero();
    }

    @Test
    void theRegistrysIdleClockClosesAnAbandonedSessionWithNothingLeft() throws Exception {
        String marker = "codeagent-session-abandoned-" + System.nanoTime();
        Ticker clock = new Ticker();
        SessionLimits limits = limits(256 * SessionLimits.MIB, Duration.ofSeconds(60));
        try (OpenSessions registry = new OpenSessions(java.util.Optional.of(sessions()), "tier", new SessionPlaces(1, 1, 0),
                clock)) {
            OpenSession s = registry.open("abandoner", limits);
            CellResult started = s.use(x -> x.execute(new Cell("import subprocess, sys, time\n"
                    + "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', '" + marker + "'],"
                    + " start_new_session=True)\ntime.sleep(0.3)\nprint('started')")));
            assertThat(text(started)).as(started.toString()).contains("started");

            clock.advance(limits.idleTimeout());
            registry.sweep();

            assertThat(s.endReason()).hasValueSatisfying(why -> assertThat(why).contains("idle"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (survivors(marker) > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(survivors(marker)).as("the abandoned session's processes").isZero();
            assertThat(registry.open("abandoner", limits).owner()).as("its place is free again").isEqualTo("abandoner");
        }
    }

    /** Host processes whose command line holds {@code marker} (a tier whose processes the host sees: not gVisor). */
    protected static long survivors(String marker) throws IOException {
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

    /** Whether this host's {@code /usr/bin/python3} can run a kernel (Debian's ipykernel and jupyter_client). */
    public static boolean kernelAvailable(String modules) {
        try {
            Process p = new ProcessBuilder("/usr/bin/python3", "-I", "-c", "import " + modules).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
