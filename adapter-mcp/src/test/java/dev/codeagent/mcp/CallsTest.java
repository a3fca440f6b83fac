package dev.codeagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallsTest {

    @Test
    void aSessionsCallsBeyondItsPlacesWaitTheirTurnWhileAnotherSessionRuns() throws Exception {
        Calls calls = new Calls(1);
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<String> order = new CopyOnWriteArrayList<>();
        Thread first = new Thread(() -> run(calls, "s", "1", () -> {
            order.add("first starts");
            firstRunning.countDown();
            await(releaseFirst);
            order.add("first ends");
        }));
        first.start();
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        Thread second = new Thread(() -> run(calls, "s", "2", () -> order.add("second starts")));
        second.start();
        Thread other = new Thread(() -> run(calls, "t", "3", () -> order.add("other session runs")));
        other.start();
        other.join(10_000);
        second.join(500);
        assertThat(second.isAlive()).as("the session's second call waits for its place").isTrue();

        releaseFirst.countDown();
        first.join(10_000);
        second.join(10_000);
        assertThat(order).containsExactly("first starts", "other session runs", "first ends", "second starts");
    }

    @Test
    void aCallCancelledWhileItWaitsNeverRuns() throws Exception {
        Calls calls = new Calls(1);
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        Thread first = new Thread(() -> run(calls, "s", "1", () -> {
            firstRunning.countDown();
            await(releaseFirst);
        }));
        first.start();
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        Thread waiting = new Thread(() -> {
            try {
                calls.run("s", "2", c -> seen.add("ran"));
            } catch (InterruptedException e) {
                seen.add("cancelled while waiting");
            }
        });
        waiting.start();
        Thread.sleep(200);
        calls.cancel("2", null);
        waiting.join(10_000);
        releaseFirst.countDown();
        first.join(10_000);
        assertThat(seen).containsExactly("cancelled while waiting");
        assertThat(calls.running()).isZero();
    }

    private static void run(Calls calls, String session, String id, Runnable body) {
        try {
            calls.run(session, id, c -> {
                body.run();
                return null;
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
