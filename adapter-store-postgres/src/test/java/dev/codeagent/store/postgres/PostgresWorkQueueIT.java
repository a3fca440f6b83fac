package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresWorkQueueIT {

    private static final java.time.Instant T0 = PostgresRunLogIT.T0;

    @Test
    void cancelEndsAWaitingRunAtOnceAndReachesTheHolderOfAClaimedOneWithinASecond() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore front = PostgresStore.open(config); PostgresStore worker = PostgresStore.open(config)) {
            front.workQueue().enqueue(Run.started("waiting", Task.of("x"), T0));
            assertThat(front.workQueue().cancel("waiting", "changed my mind")).isTrue();
            Run w = front.runLog().find("waiting").orElseThrow();
            assertThat(w.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(w.reason()).isEqualTo("changed my mind");
            assertThat(worker.workQueue().claim()).isEmpty();

            BlockingQueue<String> told = new LinkedBlockingQueue<>();
            try (AutoCloseable watch = worker.workQueue().onCancel((id, why) -> told.add(id + ": " + why))) {
                Thread.sleep(300);
                front.workQueue().enqueue(Run.started("busy", Task.of("y"), T0));
                assertThat(worker.workQueue().claim()).map(c -> c.run().id()).contains("busy");
                long t0 = System.nanoTime();
                assertThat(front.workQueue().cancel("busy", "stop it")).isTrue();
                assertThat(told.poll(1, TimeUnit.SECONDS)).isEqualTo("busy: stop it");
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
            }
            assertThat(front.workQueue().cancel("nope", "x")).isFalse();
        }
    }

    /** Ctrl-C on `solve --queue` interrupts the thread that then asks for the cancel: it must still reach the database. */
    @Test
    void cancelFromAnInterruptedThreadStillReachesTheDatabaseAndKeepsTheInterrupt() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore front = PostgresStore.open(config)) {
            front.workQueue().enqueue(Run.started("queued", Task.of("x"), T0));
            boolean cancelled;
            boolean stillInterrupted;
            Thread.currentThread().interrupt();
            try {
                cancelled = front.workQueue().cancel("queued", "cancelled by the user who queued it");
            } finally {
                stillInterrupted = Thread.interrupted();
            }
            assertThat(cancelled).isTrue();
            assertThat(stillInterrupted).as("the caller's interrupt is kept for it").isTrue();
            assertThat(front.runLog().find("queued").orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
        }
    }

    @Test
    void wakesAnIdleWorkerWhenWorkIsQueued() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore front = PostgresStore.open(config); PostgresStore worker = PostgresStore.open(config)) {
            assertThat(worker.workQueue().awaitWork(Duration.ofMillis(300))).isFalse();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Boolean> woke = pool.submit(() -> worker.workQueue().awaitWork(Duration.ofSeconds(20)));
                Thread.sleep(300);
                long t0 = System.nanoTime();
                front.workQueue().enqueue(Run.started("new", Task.of("x"), T0));
                assertThat(woke.get(5, TimeUnit.SECONDS)).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void refusesTheWritesOfAHolderThatLostItsRunToATakeover() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore front = PostgresStore.open(config); PostgresStore next = PostgresStore.open(config)) {
            PostgresStore stalled = PostgresStore.open(config);
            front.workQueue().enqueue(Run.started("r", Task.of("x"), T0));
            assertThat(stalled.workQueue().claim()).isPresent();
            stalled.runLog().attemptFinished("r", PostgresRunLogIT.printed(1, "a\n"));
            PostgresRunLogIT.stopBeating(stalled);
            assertThat(next.workQueue().claim()).isEmpty(); // its lease still holds
            Thread.sleep(config.leaseTimeout().toMillis() + 500);

            WorkQueue.Claim taken = next.workQueue().claim().orElseThrow();
            assertThat(taken.times()).isEqualTo(2);
            assertThat(taken.run().attempts()).hasSize(1); // goes on from the last recorded attempt
            assertThatThrownBy(() -> stalled.runLog().attemptFinished("r", PostgresRunLogIT.printed(2, "late\n")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("held by another worker");
            assertThatThrownBy(() -> stalled.runLog().ended("r", RunStatus.SOLVED, T0, null))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("held by another worker");
            next.runLog().attemptFinished("r", PostgresRunLogIT.printed(2, "b\n"));
            next.runLog().ended("r", RunStatus.SOLVED, T0.plusSeconds(2), null);
            assertThat(front.runLog().find("r").orElseThrow().attempts()).hasSize(2);
            // front doors leave queued runs to the claimers
            assertThat(front.runLog().markInterrupted("x")).isZero();
            stalled.close();
        }
    }

    @Test
    void endsTheRunOfAHolderThatLostItsLeaseWhenConfiguredSo() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase().withOnLeaseLoss(PostgresStoreConfig.LeaseLoss.ERROR);
        try (PostgresStore front = PostgresStore.open(config); PostgresStore next = PostgresStore.open(config)) {
            PostgresStore dying = PostgresStore.open(config);
            front.workQueue().enqueue(Run.started("r", Task.of("x"), T0));
            assertThat(dying.workQueue().claim()).isPresent();
            PostgresRunLogIT.stopBeating(dying);
            Thread.sleep(config.leaseTimeout().toMillis() + 500);
            assertThat(next.workQueue().claim()).isEmpty();
            Run r = front.runLog().find("r").orElseThrow();
            assertThat(r.status()).isEqualTo(RunStatus.ERROR);
            assertThat(r.reason()).contains("lost its lease").contains("store.postgres.onLeaseLoss: ERROR")
                    .contains("pid " + ProcessHandle.current().pid());
            dying.close();
        }
    }
}
