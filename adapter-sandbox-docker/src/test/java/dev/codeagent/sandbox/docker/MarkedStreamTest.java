package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MarkedStreamTest {

    private static final String NONCE = "0123456789abcdef0123456789abcdef";
    private static final byte[] MARKER = Bootstrap.reportMarker(NONCE);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String m() {
        return new String(MARKER, StandardCharsets.ISO_8859_1);
    }

    private static boolean feed(MarkedStream s, String data) {
        byte[] bytes = b(data);
        return s.accept(bytes, 0, bytes.length);
    }

    @Test
    void stripsTheMarkerAndReadsTheReportAfterIt() {
        MarkedStream s = new MarkedStream(100, MARKER);
        feed(s, "hello\n" + m() + "{\"exit\":0}\n");
        assertThat(s.ended()).isTrue();
        assertThat(new String(s.reportLine(), StandardCharsets.UTF_8)).isEqualTo("{\"exit\":0}");
        assertThat(s.flush().toCaptured().text()).isEqualTo("hello\n");
    }

    @Test
    void findsAMarkerSplitAcrossFramesAtEveryPosition() {
        String all = "out" + m() + "{}\n";
        for (int cut = 1; cut < all.length(); cut++) {
            MarkedStream s = new MarkedStream(100, MARKER);
            feed(s, all.substring(0, cut));
            feed(s, all.substring(cut));
            assertThat(s.ended()).as("cut at " + cut).isTrue();
            assertThat(s.flush().toCaptured().text()).as("cut at " + cut).isEqualTo("out");
        }
    }

    @Test
    void holdsBackOnlyWhatCouldStartAMarkerAndKeepsItWhenNoMarkerFollows() {
        MarkedStream s = new MarkedStream(100, MARKER);
        feed(s, "a\u0000codea");
        assertThat(s.ended()).isFalse();
        feed(s, "gent:not-the-nonce");
        assertThat(s.flush().toCaptured().text()).isEqualTo("a\u0000codeagent:not-the-nonce");
    }

    @Test
    void outputExactlyAtTheCapFollowedByTheMarkerIsNotAnOverflow() {
        MarkedStream s = new MarkedStream(10, MARKER);
        assertThat(feed(s, "0123456789" + m().substring(0, 5))).isTrue();
        assertThat(feed(s, m().substring(5) + "{}\n")).isTrue();
        assertThat(s.overflowed()).isFalse();
        assertThat(s.flush().toCaptured().text()).isEqualTo("0123456789");
    }

    @Test
    void overflowsOnTheFirstByteBeyondTheCap() {
        MarkedStream s = new MarkedStream(10, MARKER);
        assertThat(feed(s, "0123456789")).isTrue();
        assertThat(feed(s, "x")).isFalse();
        assertThat(s.flush().toCaptured().truncated()).isTrue();
    }

    @Test
    void aForgedMarkerWithAnotherNonceIsJustOutput() {
        MarkedStream s = new MarkedStream(1000, MARKER);
        String forged = "\u0000codeagent:ffffffffffffffffffffffffffffffff:{\"exit\":0}\n";
        feed(s, forged);
        assertThat(s.ended()).isFalse();
        assertThat(s.flush().toCaptured().text()).isEqualTo(forged);
    }
}
