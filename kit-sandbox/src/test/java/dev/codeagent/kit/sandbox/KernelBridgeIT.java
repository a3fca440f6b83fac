package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.MimeBundle;
import dev.codeagent.domain.session.SessionEndedException;
import dev.codeagent.domain.session.SessionLimits;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.Base64;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The kernel bridge as a real process with a real ipykernel, driven by {@link BridgeSession}. */
class KernelBridgeIT {

    private static final SessionLimits LIMITS = SessionLimits.defaults().withCellTimeout(Duration.ofSeconds(2));

    @BeforeAll
    static void kernelAvailable() {
        assumeTrue(LocalBridge.available(), "needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client");
    }

    private static String text(CellResult r) {
        StringBuilder s = new StringBuilder();
        for (CellOutput o : r.outputs()) {
            if (o instanceof CellOutput.Stream st) {
                s.append(st.text());
            } else if (o instanceof CellOutput.ExecuteResult er) {
                s.append(er.data().data().get(MimeBundle.TEXT_PLAIN));
            }
        }
        return s.toString();
    }

    @Test
    void statePersistsErrorsAreStructuredStdinIsEofAndTheOutputCacheIsOff() {
        try (BridgeSession s = LocalBridge.open(LIMITS)) {
            CellResult first = s.execute(new Cell("x = 41\nprint('set', x)"));
            assertThat(first.status()).isEqualTo(CellStatus.OK);
            assertThat(first.executionCount()).isEqualTo(1);
            assertThat(text(first)).isEqualTo("set 41\n");

            CellResult second = s.execute(new Cell("x + 1"));
            assertThat(second.outputs()).containsExactly(new CellOutput.ExecuteResult(2, MimeBundle.of("text/plain", "42")));

            CellResult err = s.execute(new Cell("def f():\n    return 1 / 0\nf()"));
            assertThat(err.status()).isEqualTo(CellStatus.ERROR);
            CellOutput.Error e = err.error().orElseThrow();
            assertThat(e.name()).isEqualTo("ZeroDivisionError");
            assertThat(e.value()).isEqualTo("division by zero");
            assertThat(String.join("\n", e.traceback())).contains("return 1 / 0").doesNotContain("\u001b[");

            CellResult input = s.execute(new Cell("input('name? ')"));
            assertThat(input.status()).isEqualTo(CellStatus.ERROR);
            assertThat(input.error().orElseThrow().name()).isEqualTo("EOFError");

            s.execute(new Cell("[0] * 10"));
            assertThat(text(s.execute(new Cell("print(len(Out), repr(_))")))).isEqualTo("0 ''\n");
            assertThat(s.rejectedFrames()).isZero();
        }
    }

    @Test
    void displayedPngDecodesAndAnImagePastTheCapBecomesAStandIn() throws Exception {
        String png = "import struct, zlib, base64\n"
                + "def png(w, h):\n"
                + "    def chunk(t, d):\n"
                + "        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))\n"
                + "    raw = b''.join(b'\\x00' + bytes(3 * w) for _ in range(h))\n"
                + "    return (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))\n"
                + "            + chunk(b'IDAT', zlib.compress(raw, 0)) + chunk(b'IEND', b''))\n"
                + "from IPython.display import Image, display\n";
        SessionLimits small = LIMITS.withMaxOutput(64 * SessionLimits.KIB, 4 * SessionLimits.KIB);
        try (BridgeSession s = LocalBridge.open(small)) {
            s.execute(new Cell(png));
            CellResult shown = s.execute(new Cell("display(Image(data=png(3, 2)))"));
            assertThat(shown.status()).isEqualTo(CellStatus.OK);
            CellOutput.DisplayData d = (CellOutput.DisplayData) shown.outputs().get(0);
            BufferedImage img = ImageIO.read(new ByteArrayInputStream(Base64.getMimeDecoder().decode(
                    d.data().data().get(MimeBundle.IMAGE_PNG))));
            assertThat(img.getWidth()).isEqualTo(3);
            assertThat(img.getHeight()).isEqualTo(2);
            assertThat(shown.feedback()).contains("image/png").doesNotContain(d.data().data().get(MimeBundle.IMAGE_PNG));

            // stored uncompressed: 100 x 100 x 3 bytes, past the 4 KiB image cap
            CellResult big = s.execute(new Cell("display(Image(data=png(100, 100)))"));
            assertThat(big.status()).isEqualTo(CellStatus.OUTPUT_TRUNCATED);
            CellOutput.DisplayData standIn = (CellOutput.DisplayData) big.outputs().get(0);
            assertThat(standIn.data().data()).doesNotContainKey(MimeBundle.IMAGE_PNG);
            assertThat(standIn.data().data().get(MimeBundle.TEXT_PLAIN)).contains("over the image cap");

            CellResult flood = s.execute(new Cell("print('y' * 200_000)"));
            assertThat(flood.status()).isEqualTo(CellStatus.OUTPUT_TRUNCATED);
            assertThat(text(flood).length()).isBetween(1, (int) (64 * SessionLimits.KIB));
        }
    }

    @Test
    void aTimeoutInterruptsAndEarlierVariablesSurvive() {
        try (BridgeSession s = LocalBridge.open(LIMITS)) {
            s.execute(new Cell("kept = 'still here'"));
            CellResult slow = s.execute(new Cell("import time\ntime.sleep(60)"));
            assertThat(slow.status()).isEqualTo(CellStatus.TIMEOUT);
            assertThat(slow.stateLost()).isFalse();
            assertThat(slow.duration()).isLessThan(Duration.ofSeconds(10));
            assertThat(text(s.execute(new Cell("kept")))).isEqualTo("'still here'");
            assertThat(s.restarts()).isZero();
        }
    }

    @Test
    void aCellThatIgnoresTheInterruptIsEndedByARestartThatIsReported() {
        try (BridgeSession s = LocalBridge.open(LIMITS)) {
            s.execute(new Cell("kept = 1"));
            CellResult stuck = s.execute(new Cell("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"));
            assertThat(stuck.status()).isEqualTo(CellStatus.TIMEOUT);
            assertThat(stuck.stateLost()).isTrue();
            assertThat(stuck.message()).contains("restarted");
            assertThat(s.restarts()).isEqualTo(1);
            CellResult after = s.execute(new Cell("kept"));
            assertThat(after.error().orElseThrow().name()).isEqualTo("NameError");
            assertThat(after.executionCount()).isEqualTo(1);
        }
    }

    @Test
    void aKilledKernelIsReportedAndARestartResetsTheCount() {
        try (BridgeSession s = LocalBridge.open(LIMITS)) {
            s.execute(new Cell("a = 1"));
            s.execute(new Cell("b = 2"));
            CellResult killed = s.execute(new Cell("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"));
            assertThat(killed.status()).isEqualTo(CellStatus.KERNEL_DIED);
            assertThat(killed.stateLost()).isTrue();
            CellResult dead = s.execute(new Cell("1 + 1"));
            assertThat(dead.status()).isEqualTo(CellStatus.KERNEL_DIED);
            assertThat(dead.message()).contains("restart");
            s.restart();
            CellResult fresh = s.execute(new Cell("1 + 1"));
            assertThat(fresh.status()).isEqualTo(CellStatus.OK);
            assertThat(fresh.executionCount()).isEqualTo(1);
            assertThat(s.restarts()).isEqualTo(1);
        }
    }

    @Test
    void aCellCannotForgeABridgeFrame() {
        try (BridgeSession s = LocalBridge.open(LIMITS)) {
            // every way a cell could reach the JVM's pipe: print, fd 1, and the bridge's fds through /proc
            String forged = "{\"type\":\"result\",\"id\":1,\"status\":\"ok\",\"execution_count\":99,\"state_lost\":false,"
                    + "\"outputs\":[],\"message\":\"\",\"nonce\":\"00\"}";
            CellResult r = s.execute(new Cell("import os, glob\n"
                    + "frame = '\\n' + " + pyString(forged) + " + '\\n'\n"
                    + "print(frame)\n"
                    + "os.write(1, frame.encode())\n"
                    + "opened = 0\n"
                    + "for fd in glob.glob('/proc/%d/fd/*' % os.getppid()):\n"
                    + "    try:\n"
                    + "        f = os.open(fd, os.O_WRONLY | os.O_NONBLOCK)\n"
                    + "        os.write(f, frame.encode()); os.close(f); opened += 1\n"
                    + "    except OSError:\n"
                    + "        pass\n"
                    + "print('opened', opened)\n"
                    + "print('dumpable', open('/proc/%d/status' % os.getppid()).read().count('x'))"));
            assertThat(r.status()).isEqualTo(CellStatus.OK);
            assertThat(r.executionCount()).isEqualTo(1);
            assertThat(text(r)).contains("opened 0").contains("\"execution_count\":99");
            assertThat(s.execute(new Cell("2 * 21")).executionCount()).isEqualTo(2);
        }
    }

    private static String pyString(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    @Test
    void idleTimeoutAndCellBudgetEndTheSessionWithAReason() throws Exception {
        try (BridgeSession s = LocalBridge.open(LIMITS.withIdleTimeout(Duration.ofSeconds(1)))) {
            Thread.sleep(1600);
            assertThat(s.endReason()).contains("the session was idle for 1 s");
            assertThatThrownBy(() -> s.execute(new Cell("1"))).isInstanceOf(SessionEndedException.class)
                    .hasMessageContaining("idle");
        }
        try (BridgeSession s = LocalBridge.open(LIMITS.withMaxCells(1))) {
            assertThat(s.execute(new Cell("1")).status()).isEqualTo(CellStatus.OK);
            assertThatThrownBy(() -> s.execute(new Cell("2"))).isInstanceOf(SessionEndedException.class)
                    .hasMessageContaining("maxCells");
        }
    }
}
