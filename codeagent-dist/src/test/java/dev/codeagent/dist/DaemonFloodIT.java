package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flood from the background process's own user — a thousand idle connections and a stream of oversized
 * requests — pins no threads and does not keep an ordinary {@code ./codeagent exec} from being served by it
 * within a few seconds.
 */
@Tag("slow")
class DaemonFloodIT {

    @TempDir
    Path dir;

    @Test
    void aThousandIdleConnectionsAndOversizedRequestsLeaveItResponsiveWithBoundedThreads() throws Exception {
        try (BackgroundProcesses bg = new BackgroundProcesses(dir)) {
            BackgroundProcesses.Result first = bg.exec("print(1)\n", List.of());
            assertThat(first.status()).as(first.toString()).isZero();
            BackgroundProcesses.Result warm = bg.exec("print(2)\n", List.of());
            assertThat(warm.err()).as("served by the background process").isEmpty();
            List<Long> pids = bg.pids();
            assertThat(pids).hasSize(1);
            long pid = pids.get(0);
            int threadsBefore = BackgroundProcesses.threads(pid);
            Path socket = bg.socket();

            List<SocketChannel> idle = new ArrayList<>();
            ExecutorService senders = Executors.newFixedThreadPool(20);
            AtomicInteger refusedBig = new AtomicInteger();
            int peakThreads = threadsBefore;
            try {
                for (int i = 0; i < 1000; i++) {
                    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
                    ch.connect(UnixDomainSocketAddress.of(socket));
                    idle.add(ch);
                    if (i % 100 == 0) {
                        peakThreads = Math.max(peakThreads, BackgroundProcesses.threads(pid));
                    }
                }
                // oversized requests, 300 of them: 1 MiB frames until the process refuses
                List<Future<?>> big = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    big.add(senders.submit(() -> {
                        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                            ch.connect(UnixDomainSocketAddress.of(socket));
                            ByteBuffer frame = ByteBuffer.allocate(5 + (1 << 20));
                            frame.put((byte) 'H').putInt(1 << 20);
                            for (int n = 0; n < 4; n++) {
                                frame.clear();
                                ch.write(frame);
                            }
                        } catch (IOException refused) {
                            refusedBig.incrementAndGet();
                        }
                        return null;
                    }));
                }
                // an ordinary call in the middle of it all
                BackgroundProcesses.Result during = bg.exec("print(6 * 7)\n", List.of());
                peakThreads = Math.max(peakThreads, BackgroundProcesses.threads(pid));
                System.out.printf("background process threads: %d before the flood, at most %d during it; exec took %d ms%n",
                        threadsBefore, peakThreads, during.millis());
                assertThat(during.status()).as(during.toString()).isZero();
                assertThat(during.out()).isEqualTo("42\n");
                assertThat(during.err()).as("served by the background process, not in a JVM of its own").isEmpty();
                assertThat(during.millis()).as("answered within a few seconds").isLessThan(5000);
                for (Future<?> f : big) {
                    f.get(60, TimeUnit.SECONDS);
                }
                assertThat(refusedBig.get()).as("every oversized request was cut off").isEqualTo(300);
                // idle connections hold no thread: the count stays within a few of what it was
                assertThat(peakThreads - threadsBefore).as("threads added by the flood").isLessThanOrEqualTo(8);

                // and every idle connection is closed within the handshake time
                Thread.sleep(6000);
                int open = 0;
                for (SocketChannel ch : idle) {
                    ByteBuffer b = ByteBuffer.allocate(512);
                    ch.configureBlocking(false);
                    int n;
                    do {
                        n = ch.read(b);
                        b.clear();
                    } while (n > 0);
                    if (n == 0) {
                        open++;
                    }
                }
                assertThat(open).as("idle connections still open after the handshake time").isZero();
            } finally {
                senders.shutdownNow();
                for (SocketChannel ch : idle) {
                    ch.close();
                }
            }
            assertThat(bg.pids()).containsExactly(pid);
        }
    }
}
