package dev.codeagent.application.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.domain.execution.ExecutionCancelledException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FairPlacesTest {

    private static FairPlaces places(int n, int waiting, Duration wait) {
        return new FairPlaces(n, waiting, wait, "http.maxQueuedExecutions", "http.executionQueueWait");
    }

    @Test
    void servesOwnersInTurnSoThatOneBurstDoesNotStarveAnother() throws Exception {
        FairPlaces places = places(1, 100, Duration.ofSeconds(10));
        FairPlaces.Place running = places.acquire("a");
        List<String> served = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        // a's burst of six queues first, then b's one
        for (int i = 0; i < 6; i++) {
            threads.add(waiter(places, "a", "a" + i, served));
            awaitWaiting(places, i + 1);
        }
        threads.add(waiter(places, "b", "b0", served));
        awaitWaiting(places, 7);
        running.close();
        for (Thread t : threads) {
            t.join(10_000);
        }
        // round-robin: a's oldest, then b's, then the rest of a's in their order
        assertThat(served).containsExactly("a0", "b0", "a1", "a2", "a3", "a4", "a5");
        assertThat(places.inUse()).isZero();
    }

    @Test
    void refusesAtOnceWhenTheQueueIsFullNamingTheSetting() throws Exception {
        FairPlaces places = places(1, 1, Duration.ofSeconds(10));
        FairPlaces.Place running = places.acquire("a");
        List<String> served = new CopyOnWriteArrayList<>();
        Thread queued = waiter(places, "a", "a1", served);
        awaitWaiting(places, 1);
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> places.acquire("b")).isInstanceOf(OverloadedException.class)
                .hasMessage("the execution queue is full (1 waiting, http.maxQueuedExecutions); try again shortly");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(500));
        running.close();
        queued.join(5000);
        assertThat(served).containsExactly("a1");
    }

    @Test
    void withoutAQueueAFullHouseIsRefusedAtOnce() {
        FairPlaces places = places(1, 0, Duration.ofSeconds(10));
        places.acquire("a");
        assertThatThrownBy(() -> places.acquire("b")).isInstanceOf(OverloadedException.class)
                .hasMessageContaining("every execution place is busy");
    }

    @Test
    void givesUpWhenTheWaitRunsOutAndLeavesNoTraceInTheQueue() {
        FairPlaces places = places(1, 4, Duration.ofMillis(200));
        FairPlaces.Place running = places.acquire("a");
        assertThatThrownBy(() -> places.acquire("b")).isInstanceOf(OverloadedException.class)
                .hasMessage("no execution place came free within 200ms (http.executionQueueWait); try again shortly");
        assertThat(places.waiting()).isZero();
        running.close();
        // the place freed goes back to the free ones, not to the waiter that left
        try (FairPlaces.Place again = places.acquire("c")) {
            assertThat(places.inUse()).isEqualTo(1);
        }
        assertThat(places.inUse()).isZero();
    }

    @Test
    void anInterruptedWaiterIsCancelledAndTakesNoPlace() throws Exception {
        FairPlaces places = places(1, 4, Duration.ofSeconds(30));
        FairPlaces.Place running = places.acquire("a");
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                places.acquire("b");
                failure.complete(null);
            } catch (RuntimeException e) {
                failure.complete(e);
            }
        });
        t.start();
        awaitWaiting(places, 1);
        t.interrupt();
        assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionCancelledException.class);
        running.close();
        assertThat(places.inUse()).isZero();
    }

    @Test
    void backgroundWorkTakesItsTurnWithTheOthers() throws Exception {
        FairPlaces places = places(1, 10, Duration.ofSeconds(10));
        FairPlaces.Place running = places.acquire("batch");
        List<CompletableFuture<FairPlaces.Place>> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(places.later("batch"));
        }
        assertThat(places.waitingInBackground()).isEqualTo(5);
        List<String> served = new CopyOnWriteArrayList<>();
        Thread other = waiter(places, "other", "other", served);
        awaitWaiting(places, 1);
        running.close();
        // the batch's first place, then the other key's request, though the batch queued four more before it
        FairPlaces.Place first = batch.get(0).get(5, TimeUnit.SECONDS);
        assertThat(batch.get(1)).isNotDone();
        // a cancelled background waiter is skipped
        batch.get(1).cancel(false);
        first.close();
        other.join(5000);
        assertThat(served).containsExactly("other");
        FairPlaces.Place third = batch.get(2).get(5, TimeUnit.SECONDS);
        third.close();
        batch.get(3).get(5, TimeUnit.SECONDS).close();
        batch.get(4).get(5, TimeUnit.SECONDS).close();
        assertThat(places.inUse()).isZero();
        assertThat(places.waitingInBackground()).isZero();
    }

    @Test
    void closingAPlaceTwiceFreesItOnce() {
        FairPlaces places = places(2, 0, Duration.ofSeconds(1));
        FairPlaces.Place p = places.acquire("a");
        places.acquire("a");
        p.close();
        p.close();
        assertThat(places.inUse()).isEqualTo(1);
    }

    /** A thread that takes a place for {@code owner}, records {@code name}, and holds the place a moment. */
    private static Thread waiter(FairPlaces places, String owner, String name, List<String> served) {
        CountDownLatch started = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            started.countDown();
            try (FairPlaces.Place p = places.acquire(owner)) {
                served.add(name);
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        try {
            started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return t;
    }

    private static void awaitWaiting(FairPlaces places, int n) throws InterruptedException {
        for (int i = 0; i < 400 && places.waiting() < n; i++) {
            Thread.sleep(5);
        }
        assertThat(places.waiting()).isEqualTo(n);
    }
}
