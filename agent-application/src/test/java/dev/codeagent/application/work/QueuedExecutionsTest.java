package dev.codeagent.application.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.policy.CodePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The orchestration of queued executions — {@link QueuedSandbox} on the submitting side, {@link ProcessQueuedExecutions}
 * on the worker's — over an in-memory queue with the port's semantics and a scripted sandbox. The PostgreSQL queue
 * itself and real workers are tested in adapter-store-postgres and codeagent-dist.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class QueuedExecutionsTest {

    private final MemoryQueue queue = new MemoryQueue();

    private final CountDownLatch blocked = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** A sandbox that echoes the program's source, or waits until interrupted when it says {@code block}. */
    private final ScriptedSandbox sandbox = new ScriptedSandbox(r -> {
        if (r.program().source().equals("block")) {
            blocked.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                stopped.countDown();
                throw new ExecutionCancelledException("interrupted");
            }
        }
        return ScriptedSandbox.exited(0, r.program().source(), "");
    });
    private final ExecuteCode local = new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, 3, Duration.ofSeconds(1));

    @Test
    void manyCallersGetTheirOwnResultsFromTheWorkers() throws Exception {
        ProcessQueuedExecutions worker = new ProcessQueuedExecutions(queue, local, 3, Duration.ofMillis(50));
        Thread side = new Thread(() -> worker.run(() -> false, false));
        side.start();
        ExecutorService callers = Executors.newFixedThreadPool(6);
        try (QueuedSandbox queued = new QueuedSandbox(queue)) {
            List<Future<Execution>> results = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String source = "print(" + i + ")";
                results.add(callers.submit(() -> queued.execute(ExecutionRequest.of(Language.PYTHON, source))));
            }
            for (int i = 0; i < 40; i++) {
                assertThat(results.get(i).get().stdout().text()).isEqualTo("print(" + i + ")");
            }
            assertThat(queued.waiting()).isZero();
        } finally {
            callers.shutdownNow();
            side.interrupt();
            side.join();
        }
        assertThat(worker.stats().worked()).isEqualTo(40);
        assertThat(queue.rows).isEmpty();
    }

    @Test
    void anInterruptedCallerWithdrawsItsExecutionAndTheWorkerStopsItAndGoesOn() throws Exception {
        ProcessQueuedExecutions worker = new ProcessQueuedExecutions(queue, local, 1, Duration.ofMillis(50));
        Thread side = new Thread(() -> worker.run(() -> false, false));
        side.start();
        try (QueuedSandbox queued = new QueuedSandbox(queue)) {
            List<Throwable> thrown = new CopyOnWriteArrayList<>();
            Thread caller = new Thread(() -> {
                try {
                    queued.execute(ExecutionRequest.of(Language.PYTHON, "block"));
                } catch (RuntimeException e) {
                    thrown.add(e);
                }
            });
            caller.start();
            assertThat(blocked.await(5, TimeUnit.SECONDS)).as("running on the worker").isTrue();
            caller.interrupt();
            caller.join();
            assertThat(thrown).singleElement().isInstanceOf(ExecutionCancelledException.class);
            assertThat(stopped.await(5, TimeUnit.SECONDS)).as("the worker stopped the program").isTrue();
            // the worker's place is free again, and no result came for the withdrawn one
            assertThat(queued.execute(ExecutionRequest.of(Language.PYTHON, "next")).stdout().text()).isEqualTo("next");
        } finally {
            side.interrupt();
            side.join();
        }
        assertThat(worker.stats().worked()).isEqualTo(1);
        assertThat(queue.rows).isEmpty();
    }

    @Test
    void aStoppingWorkerHandsBackWhatItHoldsAndClosingTheSandboxWithdrawsWhatWaits() throws Exception {
        ProcessQueuedExecutions worker = new ProcessQueuedExecutions(queue, local, 1, Duration.ofMillis(50));
        Thread side = new Thread(() -> worker.run(() -> false, false));
        side.start();
        QueuedSandbox queued = new QueuedSandbox(queue);
        Thread caller = new Thread(() -> {
            try {
                queued.execute(ExecutionRequest.of(Language.PYTHON, "block"));
            } catch (RuntimeException expected) {
                // closed below
            }
        });
        caller.start();
        assertThat(blocked.await(5, TimeUnit.SECONDS)).isTrue();
        side.interrupt();
        side.join();
        assertThat(stopped.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(queue.rows.values()).as("handed back, not lost").containsExactly("queued");
        queued.close();
        caller.join();
        assertThat(queue.rows).as("withdrawn as its submitter closed").isEmpty();
        assertThatThrownBy(() -> queued.execute(ExecutionRequest.of(Language.PYTHON, "late")))
                .isInstanceOf(ExecutionCancelledException.class);
    }

    /**
     * An evaluation stopping: dozens of callers interrupted at once, then the sandbox closed from an interrupted thread.
     * The store may refuse an interrupted thread (a connection pool does), so the withdrawals must not ride on them.
     */
    @Test
    void interruptedCallersAndAnInterruptedCloseStillWithdrawEverything() throws Exception {
        queue.refuseInterruptedThreads = true;
        QueuedSandbox queued = new QueuedSandbox(queue);
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String source = "print(" + i + ")";
            Thread t = new Thread(() -> {
                try {
                    queued.execute(ExecutionRequest.of(Language.PYTHON, source));
                } catch (ExecutionCancelledException expected) {
                    // withdrawn
                }
            });
            callers.add(t);
            t.start();
        }
        while (queue.executionsWaiting() < 20) {
            Thread.sleep(10);
        }
        for (int i = 0; i < 10; i++) {
            callers.get(i).interrupt();
        }
        for (int i = 0; i < 10; i++) {
            callers.get(i).join();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (queue.executionsWaiting() > 10 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(queue.executionsWaiting()).as("the interrupted callers' executions withdrawn").isEqualTo(10);
        Thread.currentThread().interrupt();
        try {
            queued.close();
        } finally {
            assertThat(Thread.interrupted()).as("the closer's interrupt is kept").isTrue();
        }
        for (Thread t : callers) {
            t.join();
        }
        assertThat(queue.rows).as("closing withdrew the rest").isEmpty();
    }

    /** The port's semantics in memory, one submitter and one worker. */
    private static final class MemoryQueue implements ExecutionQueue {
        final Map<String, String> rows = new LinkedHashMap<>(); // id -> queued | claimed | done
        final Map<String, ExecutionRequest> requests = new LinkedHashMap<>();
        final Map<String, Execution> results = new LinkedHashMap<>();
        final List<Consumer<String>> withdrawn = new CopyOnWriteArrayList<>();
        volatile boolean refuseInterruptedThreads;

        @Override
        public synchronized void submit(String id, ExecutionRequest request) {
            rows.putIfAbsent(id, "queued");
            requests.putIfAbsent(id, request);
            notifyAll();
        }

        @Override
        public synchronized Map<String, Execution> takeResults() {
            Map<String, Execution> out = new LinkedHashMap<>(results);
            results.clear();
            out.keySet().forEach(rows::remove);
            return out;
        }

        @Override
        public synchronized boolean awaitResults(Duration max) throws InterruptedException {
            if (results.isEmpty()) {
                wait(max.toMillis());
            }
            return !results.isEmpty();
        }

        @Override
        public void withdraw(Collection<String> ids) {
            if (refuseInterruptedThreads && Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted during connection acquisition");
            }
            List<String> running = new ArrayList<>();
            synchronized (this) {
                for (String id : ids) {
                    if ("claimed".equals(rows.remove(id))) {
                        running.add(id);
                    }
                    requests.remove(id);
                    results.remove(id);
                }
            }
            running.forEach(id -> withdrawn.forEach(w -> w.accept(id)));
        }

        @Override
        public synchronized Optional<Claimed> claimExecution() {
            for (Map.Entry<String, String> r : rows.entrySet()) {
                if (r.getValue().equals("queued")) {
                    r.setValue("claimed");
                    return Optional.of(new Claimed(r.getKey(), requests.get(r.getKey()), 1));
                }
            }
            return Optional.empty();
        }

        @Override
        public synchronized boolean awaitExecutions(Duration max) throws InterruptedException {
            if (!rows.containsValue("queued")) {
                wait(max.toMillis());
            }
            return rows.containsValue("queued");
        }

        @Override
        public synchronized boolean complete(String id, Execution result) {
            if (!"claimed".equals(rows.get(id))) {
                return false;
            }
            rows.put(id, "done");
            results.put(id, result);
            notifyAll();
            return true;
        }

        @Override
        public synchronized void release(String id) {
            rows.computeIfPresent(id, (k, v) -> v.equals("claimed") ? "queued" : v);
            notifyAll();
        }

        @Override
        public AutoCloseable onWithdrawn(Consumer<String> listener) {
            withdrawn.add(listener);
            return () -> withdrawn.remove(listener);
        }

        @Override
        public synchronized int executionsWaiting() {
            return (int) rows.values().stream().filter("queued"::equals).count();
        }
    }
}
