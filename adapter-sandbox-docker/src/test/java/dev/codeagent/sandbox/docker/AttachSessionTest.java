package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AttachSessionTest {

    private static final String NONCE = "00112233445566778899aabbccddeeff";
    private static final String MARK = new String(Bootstrap.reportMarker(NONCE), StandardCharsets.ISO_8859_1);
    private static final String ACK = new String(Bootstrap.ACK, StandardCharsets.ISO_8859_1);

    private static Frame out(String s) {
        return new Frame(StreamType.STDOUT, s.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static Frame err(String s) {
        return new Frame(StreamType.STDERR, s.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void endsWithTheReportOnlyOnceBothStreamsCarriedTheMarker() throws Exception {
        AttachSession s = new AttachSession(1000, NONCE);
        s.onNext(out(ACK.substring(0, 4)));
        s.onNext(out(ACK.substring(4) + "result\n"));
        s.onNext(out(MARK + "{\"exit\":3,\"signal\":null,\"cpu\":0.25,\"maxrss\":1048576,\"oom\":0}\n"));
        assertThat(s.await(1_000_000)).as("stderr has not ended yet").isNull();
        s.onNext(err("Traceback ...\n"));
        s.onNext(err(MARK + "\n"));
        assertThat(s.await(1_000_000)).isEqualTo(AttachSession.End.REPORTED);
        assertThat(s.started()).isTrue();
        Bootstrap.Report r = s.report();
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.signal()).isNull();
        assertThat(r.cpuSeconds()).isEqualTo(0.25);
        assertThat(r.maxRssBytes()).isEqualTo(1_048_576L);
        AttachSession.Captured c = s.snapshot();
        assertThat(c.stdout().text()).isEqualTo("result\n");
        assertThat(c.stderr().text()).isEqualTo("Traceback ...\n");
    }

    @Test
    void aStreamThatDoesNotBeginWithTheAckIsNotOurBootstrap() throws Exception {
        AttachSession s = new AttachSession(1000, NONCE);
        s.onNext(out("hello from some other entrypoint\n"));
        assertThat(s.await(1_000_000)).isEqualTo(AttachSession.End.COMPLETED);
        assertThat(s.started()).isFalse();
        assertThat(s.ackBroken()).isTrue();
    }

    @Test
    void stopsAtTheFirstStreamPastItsCap() throws Exception {
        AttachSession s = new AttachSession(8, NONCE);
        s.onNext(out(ACK + "ok"));
        s.onNext(err("123456789"));
        assertThat(s.await(1_000_000)).isEqualTo(AttachSession.End.OVERFLOW);
        AttachSession.Captured c = s.snapshot();
        assertThat(c.stderrOverflowed()).isTrue();
        assertThat(c.stderr().text()).isEqualTo("12345678");
        assertThat(c.stdout().text()).isEqualTo("ok");
    }

    @Test
    void aStreamEndingWithoutTheReportIsCompletedNotReported() throws Exception {
        AttachSession s = new AttachSession(100, NONCE);
        s.onNext(out(ACK + "partial"));
        s.onComplete();
        assertThat(s.await(1_000_000)).isEqualTo(AttachSession.End.COMPLETED);
        assertThat(s.report()).isNull();
        assertThat(s.snapshot().stdout().text()).isEqualTo("partial");
    }
}
