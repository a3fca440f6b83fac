package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CappedStreamTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void keepsEverythingUpToTheCapExactly() {
        CappedStream s = new CappedStream(5);
        assertThat(s.append(b("abc"), 0, 3)).isTrue();
        assertThat(s.append(b("de"), 0, 2)).isTrue();
        assertThat(s.toCaptured().text()).isEqualTo("abcde");
        assertThat(s.toCaptured().truncated()).isFalse();
    }

    @Test
    void keepsTheHeadAndReportsOverflowPastTheCap() {
        CappedStream s = new CappedStream(4);
        assertThat(s.append(b("abcdef"), 0, 6)).isFalse();
        assertThat(s.overflowed()).isTrue();
        assertThat(s.toCaptured().text()).isEqualTo("abcd");
        assertThat(s.toCaptured().truncated()).isTrue();
    }

    @Test
    void growsBeyondItsFirstBuffer() {
        CappedStream s = new CappedStream(100_000);
        byte[] chunk = b("x".repeat(1000));
        for (int i = 0; i < 100; i++) {
            assertThat(s.append(chunk, 0, chunk.length)).isTrue();
        }
        assertThat(s.size()).isEqualTo(100_000);
        assertThat(s.append(chunk, 0, 1)).isFalse();
    }

    @Test
    void replacesMalformedAndCutOffUtf8() {
        CappedStream s = new CappedStream(6);
        byte[] bytes = {'o', 'k', (byte) 0xff, (byte) 0xe2, (byte) 0x9c, (byte) 0x93, (byte) 0xc3, (byte) 0xa9};
        s.append(bytes, 0, bytes.length);
        // ok, an invalid byte, a whole check mark; the é was cut by the cap
        assertThat(s.toCaptured().text()).isEqualTo("ok\uFFFD\u2713");
    }
}
