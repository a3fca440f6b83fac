package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutputBufferTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void keepsEverythingUnderTheCap() {
        OutputBuffer b = new OutputBuffer(10);
        assertThat(b.append(bytes("hello"), 0, 5)).isFalse();
        assertThat(b.append(bytes("world"), 0, 5)).isFalse();
        assertThat(b.capture().text()).isEqualTo("helloworld");
        assertThat(b.capture().truncated()).isFalse();
    }

    @Test
    void reportsTheOverflowOnceAndKeepsThePrefix() {
        OutputBuffer b = new OutputBuffer(4);
        assertThat(b.append(bytes("abc"), 0, 3)).isFalse();
        assertThat(b.append(bytes("def"), 0, 3)).isTrue();
        assertThat(b.append(bytes("ghi"), 0, 3)).isFalse();
        assertThat(b.overflowed()).isTrue();
        assertThat(b.capture().text()).isEqualTo("abcd");
        assertThat(b.capture().truncated()).isTrue();
    }

    @Test
    void aCapLearnedAfterMoreArrivedCutsItOffAsAnOverflow() {
        // a zygote's program writes before its run sets the caps: 100 kB under a 4 kB cap once ended OK, untruncated
        OutputBuffer b = new OutputBuffer(1 << 20);
        byte[] e = bytes("e".repeat(100_000));
        assertThat(b.append(e, 0, e.length)).isFalse();
        assertThat(b.cap(4096)).isTrue();
        assertThat(b.overflowed()).isTrue();
        assertThat(b.capture().text()).isEqualTo("e".repeat(4096));
        assertThat(b.capture().truncated()).isTrue();
        assertThat(b.append(e, 0, 10)).isFalse();
        assertThat(b.cap(4096)).as("reported once").isFalse();
        assertThat(b.size()).isEqualTo(4096);
    }

    @Test
    void aCapLearnedBeforeTheStreamReachedItChangesNothing() {
        OutputBuffer b = new OutputBuffer(1 << 20);
        assertThat(b.append(bytes("hello"), 0, 5)).isFalse();
        assertThat(b.cap(5)).isFalse();
        assertThat(b.overflowed()).isFalse();
        assertThat(b.append(bytes("!"), 0, 1)).isTrue();
        assertThat(b.capture().text()).isEqualTo("hello");
    }

    @Test
    void growsPastItsInitialSizeUpToTheCap() {
        OutputBuffer b = new OutputBuffer(100_000);
        byte[] chunk = bytes("x".repeat(1000));
        for (int i = 0; i < 100; i++) {
            assertThat(b.append(chunk, 0, chunk.length)).isFalse();
        }
        assertThat(b.size()).isEqualTo(100_000);
        assertThat(b.append(chunk, 0, 1)).isTrue();
    }

    @Test
    void replacesMalformedBytes() {
        OutputBuffer b = new OutputBuffer(100);
        byte[] bad = {'o', 'k', (byte) 0xff, (byte) 0xc3, '!'};
        b.append(bad, 0, bad.length);
        assertThat(b.capture().text()).isEqualTo("ok\uFFFD\uFFFD!");
    }

    @Test
    void dropsACharacterThatTheCapCutInHalf() {
        OutputBuffer b = new OutputBuffer(4);
        byte[] s = bytes("ab€€");
        b.append(s, 0, s.length);
        assertThat(b.capture().text()).isEqualTo("ab");
        OutputBuffer whole = new OutputBuffer(5);
        whole.append(s, 0, s.length);
        assertThat(whole.capture().text()).isEqualTo("ab€");
    }

    @Test
    void keepsAnInvalidTailThatIsNotACutCharacter() {
        assertThat(OutputBuffer.completeUtf8Prefix(new byte[] {'a', (byte) 0x80}, 2)).isEqualTo(2);
        assertThat(OutputBuffer.completeUtf8Prefix(new byte[] {'a', (byte) 0xf0, (byte) 0x9f}, 3)).isEqualTo(1);
        assertThat(OutputBuffer.completeUtf8Prefix(new byte[] {'a', (byte) 0xf0, (byte) 0x9f, (byte) 0x98, (byte) 0x80}, 5))
                .isEqualTo(5);
    }

    @Test
    void refusesANonPositiveCap() {
        assertThatThrownBy(() -> new OutputBuffer(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void takesTheSupervisorsReportOffTheEndOnlyBehindTheRealMarkerThenAppliesTheCap() {
        byte[] marker = "\u0000codeagent:abc:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        OutputBuffer b = new OutputBuffer(5 + 128);
        byte[] s = ("hello!\u0000codeagent:fake:{\"exit\": 0}\n\u0000codeagent:abc:{\"exit\": 3, \"signal\": null}\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        b.append(s, 0, s.length);
        assertThat(b.overflowed()).isFalse();
        assertThat(b.takeReport(marker)).isEqualTo("{\"exit\": 3, \"signal\": null}");
        b.enforceCap(5);
        assertThat(b.overflowed()).isTrue();
        assertThat(b.capture().text()).isEqualTo("hello");

        OutputBuffer forged = new OutputBuffer(100);
        byte[] f = "\u0000codeagent:abc:{\"exit\": 0, \"signal\": null}\nmore".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        forged.append(f, 0, f.length);
        assertThat(forged.takeReport(marker)).as("a report must be the stream's last line").isNull();
        assertThat(forged.size()).isEqualTo(f.length);
    }
}
