package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.kit.sandbox.ArrivalOrder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StreamCaptureTest {

    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r);
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void drainsBothStreamsAndFeedsStdin() {
        OutputBuffer out = new OutputBuffer(100);
        OutputBuffer err = new OutputBuffer(100);
        ByteArrayOutputStream stdin = new ByteArrayOutputStream();
        StreamCapture c = new StreamCapture(out, err, new ArrivalOrder(), threads, () -> { });
        c.setProcessOutputStream(new ByteArrayInputStream("out".getBytes(StandardCharsets.UTF_8)));
        c.setProcessErrorStream(new ByteArrayInputStream("err".getBytes(StandardCharsets.UTF_8)));
        c.setProcessInputStream(stdin);
        c.start();
        c.feed("input".getBytes(StandardCharsets.UTF_8));
        assertThat(c.awaitDrained(Duration.ofSeconds(5))).isTrue();
        assertThat(out.capture().text()).isEqualTo("out");
        assertThat(err.capture().text()).isEqualTo("err");
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (stdin.size() < 5 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(stdin.toString(StandardCharsets.UTF_8)).isEqualTo("input");
    }

    @Test
    void tellsOnceWhenAStreamGoesPastItsCapAndKeepsDraining() {
        AtomicInteger told = new AtomicInteger();
        OutputBuffer out = new OutputBuffer(10);
        StreamCapture c = new StreamCapture(out, new OutputBuffer(10), new ArrivalOrder(), threads, told::incrementAndGet);
        c.setProcessOutputStream(new ByteArrayInputStream(new byte[100_000]));
        c.setProcessErrorStream(new ByteArrayInputStream(new byte[0]));
        c.setProcessInputStream(new ByteArrayOutputStream());
        c.start();
        assertThat(c.awaitDrained(Duration.ofSeconds(5))).isTrue();
        assertThat(told.get()).isEqualTo(1);
        assertThat(out.size()).isEqualTo(10);
    }

    @Test
    void waitsOnlyBoundedForAPipeThatNeverCloses() {
        CountDownLatch never = new CountDownLatch(1);
        InputStream held = new InputStream() {
            @Override
            public int read() {
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return -1;
            }
        };
        StreamCapture c = new StreamCapture(new OutputBuffer(10), new OutputBuffer(10), new ArrivalOrder(), threads, () -> { });
        c.setProcessOutputStream(held);
        c.setProcessErrorStream(new ByteArrayInputStream(new byte[0]));
        c.setProcessInputStream(new ByteArrayOutputStream());
        c.start();
        long t0 = System.nanoTime();
        c.stop();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
        assertThat(c.awaitDrained(Duration.ofMillis(50))).isFalse();
        c.abandon();
        never.countDown();
    }
}
