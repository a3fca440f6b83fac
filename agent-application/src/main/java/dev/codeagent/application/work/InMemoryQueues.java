package dev.codeagent.application.work;

import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunFilter;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The work and execution queues in memory, shared by any number of participants in one JVM, each standing for one
 * process: what {@link WorkQueue} and {@link ExecutionQueue} promise, with nothing but a monitor. It is the second
 * implementation their contract suites run against (beside PostgreSQL), and a queue for programs that run workers
 * and front doors in one JVM.
 *
 * <p>A participant beats its heartbeat until {@link Participant#stopBeating} (a process that hangs or is cut off) or
 * {@link Participant#close} (a process that ended); its claims then lose their lease once {@code lease} has passed,
 * as PostgreSQL's do, and the work it submitted is never started. Not registered under any {@code store.kind}: the
 * {@code memory} store keeps no queue for other processes, and says so.
 */
public final class InMemoryQueues {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final InMemoryRunLog runs = new InMemoryRunLog();
    private final Duration lease;
    private final LongSupplier nanos;
    private final Clock clock;
    private final Map<String, Work> work = new LinkedHashMap<>(); // guarded by this; insertion order is queue order
    private final Map<String, Job> jobs = new LinkedHashMap<>(); // guarded by this
    private final List<Participant> participants = new CopyOnWriteArrayList<>();

    /** Queues whose claims lose their lease {@code lease} after their holder stops beating. */
    public InMemoryQueues(Duration lease) {
        this(lease, System::nanoTime, Clock.systemUTC());
    }

    InMemoryQueues(Duration lease, LongSupplier nanos, Clock clock) {
        this.lease = Objects.requireNonNull(lease, "lease");
        this.nanos = nanos;
        this.clock = clock;
    }

    /** A new participant: one process's view, with its own claims, submissions and results. */
    public Participant join() {
        Participant p = new Participant();
        participants.add(p);
        return p;
    }

    /** A run waiting or claimed; {@code holder} null while it waits. */
    private static final class Work {
        final String runId;
        Participant holder;
        int claims;
        String cancelReason;
        boolean done;

        Work(String runId) {
            this.runId = runId;
        }
    }

    /** An execution waiting, claimed or done. */
    private static final class Job {
        final String id;
        final ExecutionRequest request;
        final Participant submitter;
        Participant holder;
        int claims;
        Execution result;

        Job(String id, ExecutionRequest request, Participant submitter) {
            this.id = id;
            this.request = request;
            this.submitter = submitter;
        }
    }

    private boolean alive(Participant p) {
        Long silentSince = p.silentSince;
        return silentSince == null || nanos.getAsLong() - silentSince < lease.toNanos();
    }

    private synchronized void changed() {
        notifyAll();
    }

    private boolean await(Duration max, java.util.function.BooleanSupplier ready) throws InterruptedException {
        long deadline = nanos.getAsLong() + max.toNanos();
        synchronized (this) {
            while (!ready.getAsBoolean()) {
                long left = deadline - nanos.getAsLong();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
            return true;
        }
    }

    /** One process's view of the shared queues: its run log, its work queue and its execution queue. */
    public final class Participant implements WorkQueue, ExecutionQueue, AutoCloseable {

        private volatile Long silentSince;
        private final List<BiConsumer<String, String>> cancelListeners = new CopyOnWriteArrayList<>();
        private final List<Consumer<String>> withdrawnListeners = new CopyOnWriteArrayList<>();
        private final Map<String, Integer> seen = new LinkedHashMap<>(); // guarded by InMemoryQueues.this
        private final RunLog log = new FencedLog();

        private Participant() {
        }

        /** The runs as this process records them: writes to a run another process holds are refused. */
        public RunLog runLog() {
            return log;
        }

        /** From now on this process beats no more: its claims lose their lease once the lease has passed. */
        public void stopBeating() {
            if (silentSince == null) {
                silentSince = nanos.getAsLong();
            }
        }

        /** The process ends: it stops beating, and stops hearing. */
        @Override
        public void close() {
            stopBeating();
            cancelListeners.clear();
            withdrawnListeners.clear();
        }

        // ---- runs

        @Override
        public void enqueue(Run run) {
            synchronized (InMemoryQueues.this) {
                runs.started(run);
                work.putIfAbsent(run.id(), new Work(run.id()));
            }
            changed();
        }

        @Override
        public Optional<Claim> claim() {
            synchronized (InMemoryQueues.this) {
                for (Work w : work.values()) {
                    if (w.done || w.holder != null && alive(w.holder)) {
                        continue;
                    }
                    w.holder = this;
                    w.claims++;
                    Run run = runs.find(w.runId).orElseThrow();
                    if (w.cancelReason != null || run.status().isFinal()) {
                        if (!run.status().isFinal()) {
                            runs.ended(w.runId, RunStatus.CANCELLED, clock.instant(), w.cancelReason);
                        }
                        w.done = true;
                        continue;
                    }
                    return Optional.of(new Claim(run, w.claims));
                }
                return Optional.empty();
            }
        }

        @Override
        public boolean awaitWork(Duration max) throws InterruptedException {
            return await(max, () -> work.values().stream().anyMatch(w -> !w.done && w.holder == null));
        }

        @Override
        public Follower follow(String runId) {
            Objects.requireNonNull(runId, "runId");
            synchronized (InMemoryQueues.this) {
                seen.put(runId, version(runId));
            }
            return new Follower() {
                @Override
                public boolean await(Duration max) throws InterruptedException {
                    boolean changed = InMemoryQueues.this.await(max, () -> version(runId) != seen.getOrDefault(runId, -1));
                    synchronized (InMemoryQueues.this) {
                        seen.put(runId, version(runId));
                    }
                    return changed;
                }

                @Override
                public void close() {
                    synchronized (InMemoryQueues.this) {
                        seen.remove(runId);
                    }
                }
            };
        }

        /** A number that changes whenever the run does: its attempts and its status. */
        private int version(String runId) {
            return runs.find(runId).map(r -> r.attempts().size() * 16 + r.status().ordinal()).orElse(-1);
        }

        @Override
        public void finished(String runId) {
            synchronized (InMemoryQueues.this) {
                Work w = work.get(runId);
                if (w != null && w.holder == this) {
                    w.done = true;
                }
            }
        }

        @Override
        public boolean cancel(String runId, String reason) {
            Objects.requireNonNull(reason, "reason");
            Participant holder;
            synchronized (InMemoryQueues.this) {
                Work w = work.get(runId);
                if (w == null || w.done) {
                    return false;
                }
                if (w.holder == null) {
                    runs.ended(runId, RunStatus.CANCELLED, clock.instant(), reason);
                    w.done = true;
                    InMemoryQueues.this.notifyAll();
                    return true;
                }
                w.cancelReason = reason;
                holder = w.holder;
            }
            // every process hears of it, as PostgreSQL's NOTIFY tells every listener; the holder acts on its own runs
            participants.forEach(p -> p.cancelListeners.forEach(l -> l.accept(runId, reason)));
            return holder != null;
        }

        @Override
        public AutoCloseable onCancel(BiConsumer<String, String> listener) {
            Objects.requireNonNull(listener, "listener");
            cancelListeners.add(listener);
            return () -> cancelListeners.remove(listener);
        }

        @Override
        public int depth() {
            synchronized (InMemoryQueues.this) {
                return (int) work.values().stream().filter(w -> !w.done && w.holder == null).count();
            }
        }

        // ---- executions

        @Override
        public void submit(String id, ExecutionRequest request) {
            Objects.requireNonNull(request, "request");
            if (id == null || !ID.matcher(id).matches()) {
                throw new IllegalArgumentException("an execution id is 1-64 letters, digits, '-' or '_': " + id);
            }
            synchronized (InMemoryQueues.this) {
                jobs.putIfAbsent(id, new Job(id, request, this));
            }
            changed();
        }

        @Override
        public Map<String, Execution> takeResults() {
            synchronized (InMemoryQueues.this) {
                Map<String, Execution> done = new LinkedHashMap<>();
                jobs.values().removeIf(j -> {
                    if (j.submitter == this && j.result != null) {
                        done.put(j.id, j.result);
                        return true;
                    }
                    return false;
                });
                return done;
            }
        }

        @Override
        public boolean awaitResults(Duration max) throws InterruptedException {
            return await(max, () -> jobs.values().stream().anyMatch(j -> j.submitter == this && j.result != null));
        }

        @Override
        public void withdraw(Collection<String> ids) {
            List<Job> running = new ArrayList<>();
            synchronized (InMemoryQueues.this) {
                for (String id : ids) {
                    Job j = jobs.get(id);
                    if (j != null && j.submitter == this) {
                        jobs.remove(id);
                        if (j.holder != null && j.result == null) {
                            running.add(j);
                        }
                    }
                }
            }
            running.forEach(j -> j.holder.withdrawnListeners.forEach(l -> l.accept(j.id)));
        }

        @Override
        public Optional<Claimed> claimExecution() {
            synchronized (InMemoryQueues.this) {
                // work whose submitter is gone is never started: nobody would read its result
                jobs.values().removeIf(j -> j.result == null && !alive(j.submitter));
                for (Job j : jobs.values()) {
                    if (j.result == null && (j.holder == null || !alive(j.holder))) {
                        j.holder = this;
                        j.claims++;
                        return Optional.of(new Claimed(j.id, j.request, j.claims));
                    }
                }
                return Optional.empty();
            }
        }

        @Override
        public boolean awaitExecutions(Duration max) throws InterruptedException {
            return await(max, () -> jobs.values().stream().anyMatch(j -> j.result == null && j.holder == null));
        }

        @Override
        public boolean complete(String id, Execution result) {
            Objects.requireNonNull(result, "result");
            synchronized (InMemoryQueues.this) {
                Job j = jobs.get(id);
                if (j == null || j.holder != this || j.result != null) {
                    return false;
                }
                j.result = result;
                InMemoryQueues.this.notifyAll();
                return true;
            }
        }

        @Override
        public void release(String id) {
            synchronized (InMemoryQueues.this) {
                Job j = jobs.get(id);
                if (j != null && j.holder == this && j.result == null) {
                    j.holder = null;
                    InMemoryQueues.this.notifyAll();
                }
            }
        }

        @Override
        public AutoCloseable onWithdrawn(Consumer<String> listener) {
            Objects.requireNonNull(listener, "listener");
            withdrawnListeners.add(listener);
            return () -> withdrawnListeners.remove(listener);
        }

        @Override
        public int executionsWaiting() {
            synchronized (InMemoryQueues.this) {
                return (int) jobs.values().stream().filter(j -> j.result == null && j.holder == null).count();
            }
        }

        /** The shared run log, fenced: a process that lost its claim to a takeover cannot write to that run. */
        private final class FencedLog implements RunLog {

            private void fence(String runId) {
                Work w = work.get(runId);
                if (w != null && !w.done && w.holder != null && w.holder != Participant.this) {
                    throw new IllegalStateException("run " + runId + " is held by another worker now (this one lost its lease)");
                }
            }

            @Override
            public void started(Run run) {
                synchronized (InMemoryQueues.this) {
                    runs.started(run);
                }
                changed();
            }

            @Override
            public void attemptFinished(String runId, Attempt attempt) {
                synchronized (InMemoryQueues.this) {
                    fence(runId);
                    runs.attemptFinished(runId, attempt);
                }
                changed();
            }

            @Override
            public void ended(String runId, RunStatus status, Instant endedAt, String reason) {
                synchronized (InMemoryQueues.this) {
                    fence(runId);
                    runs.ended(runId, status, endedAt, reason);
                }
                changed();
            }

            @Override
            public Optional<Run> find(String runId) {
                synchronized (InMemoryQueues.this) {
                    return runs.find(runId);
                }
            }

            @Override
            public List<Run> recent(RunFilter filter, int limit, String beforeId) {
                synchronized (InMemoryQueues.this) {
                    return runs.recent(filter, limit, beforeId);
                }
            }

            @Override
            public int markInterrupted(String reason) {
                return 0; // queued runs are the claimers' to take over, and this log has no other process's runs
            }
        }
    }
}
