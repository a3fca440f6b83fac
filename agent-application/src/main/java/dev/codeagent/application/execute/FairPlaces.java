package dev.codeagent.application.execute;

import dev.codeagent.domain.execution.ExecutionCancelledException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed number of execution places shared fairly among owners (API keys): when every place is taken, callers wait
 * in a bounded queue, and a place that comes free goes to the owners in turn (round-robin), each owner's own callers
 * first come, first served. One owner's burst therefore delays another owner by at most one place's turn, never by
 * the burst's length.
 *
 * <p>Two kinds of waiting. {@link #acquire} blocks a caller (a synchronous request holding a connection) for at most
 * the configured wait, and at most {@code maxWaiting} such callers wait at once: one more, or a wait that runs out,
 * is an {@link OverloadedException} naming the setting to change. {@link #later} is for work accepted to be done in the
 * background (submissions): it has no deadline and its bound is the caller's, but it takes its turns with the rest.
 * A newcomer never overtakes a waiter: with anyone waiting, it queues too.
 */
public final class FairPlaces {

    /** A place held; closing it hands it to the next owner in turn (once: closing again does nothing). */
    public interface Place extends AutoCloseable {
        @Override
        void close();
    }

    private final int places;
    private final int maxWaiting;
    private final Duration maxWait;
    private final String waitingSetting;
    private final String waitSetting;
    private final ReentrantLock lock = new ReentrantLock();
    /** Each owner's waiters, oldest first; an owner is here only while it has some. */
    private final Map<String, ArrayDeque<CompletableFuture<Place>>> waiters = new HashMap<>();
    /** The owners with waiters, the next to be served first. */
    private final ArrayDeque<String> turns = new ArrayDeque<>();
    private int free;
    private int blockedWaiting;
    private int backgroundWaiting;

    /**
     * @param places how many may hold a place at once
     * @param maxWaiting how many {@link #acquire} callers may wait at once; 0: none, a full house is refused at once
     * @param maxWait how long an {@link #acquire} caller waits for a place
     * @param waitingSetting the setting that raises {@code maxWaiting}, named in the refusal
     * @param waitSetting the setting that raises {@code maxWait}, named in the refusal
     */
    public FairPlaces(int places, int maxWaiting, Duration maxWait, String waitingSetting, String waitSetting) {
        if (places < 1) {
            throw new IllegalArgumentException("places must be at least 1, was " + places);
        }
        if (maxWaiting < 0) {
            throw new IllegalArgumentException("maxWaiting must not be negative, was " + maxWaiting);
        }
        this.places = places;
        this.free = places;
        this.maxWaiting = maxWaiting;
        this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
        this.waitingSetting = waitingSetting;
        this.waitSetting = waitSetting;
    }

    /**
     * A place for {@code owner}, waiting for one in its turn when none is free.
     *
     * @throws OverloadedException when {@code maxWaiting} callers already wait, or no place came to this one within
     *     the wait
     * @throws ExecutionCancelledException when the calling thread is interrupted while it waits (a stopping server)
     */
    public Place acquire(String owner) {
        Objects.requireNonNull(owner, "owner");
        CompletableFuture<Place> waiter;
        lock.lock();
        try {
            if (free > 0 && turns.isEmpty()) {
                free--;
                return new Held();
            }
            if (blockedWaiting >= maxWaiting) {
                throw new OverloadedException(maxWaiting == 0
                        ? "every execution place is busy (" + places + " running); try again shortly"
                        : "the execution queue is full (" + maxWaiting + " waiting, " + waitingSetting + "); try again shortly",
                        Duration.ofSeconds(1));
            }
            blockedWaiting++;
            waiter = enqueue(owner);
        } finally {
            lock.unlock();
        }
        try {
            return waiter.get(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            Place late = withdraw(owner, waiter);
            if (late != null) {
                return late;
            }
            throw new OverloadedException("no execution place came free within " + dev.codeagent.application.config.Units
                    .formatDuration(maxWait) + " (" + waitSetting + "); try again shortly", Duration.ofSeconds(1));
        } catch (InterruptedException e) {
            Place late = withdraw(owner, waiter);
            if (late != null) {
                late.close();
            }
            throw new ExecutionCancelledException("cancelled while waiting for an execution place");
        } catch (ExecutionException | CancellationException e) {
            throw new IllegalStateException("a waiter is completed only with a place", e);
        } finally {
            lock.lock();
            try {
                blockedWaiting--;
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * A place for background work of {@code owner}, when its turn comes: completes at once when a place is free and
     * no one waits. Cancelling the future before it completes withdraws it; once it has completed, the place is the caller's to close.
     */
    public CompletableFuture<Place> later(String owner) {
        Objects.requireNonNull(owner, "owner");
        lock.lock();
        try {
            if (free > 0 && turns.isEmpty()) {
                free--;
                return CompletableFuture.completedFuture(new Held());
            }
            backgroundWaiting++;
            CompletableFuture<Place> waiter = enqueue(owner);
            waiter.whenComplete((p, e) -> {
                lock.lock();
                try {
                    backgroundWaiting--;
                    if (waiter.isCancelled()) {
                        remove(owner, waiter);
                    }
                } finally {
                    lock.unlock();
                }
            });
            return waiter;
        } finally {
            lock.unlock();
        }
    }

    private CompletableFuture<Place> enqueue(String owner) {
        CompletableFuture<Place> waiter = new CompletableFuture<>();
        ArrayDeque<CompletableFuture<Place>> own = waiters.computeIfAbsent(owner, o -> new ArrayDeque<>());
        if (own.isEmpty()) {
            turns.addLast(owner);
        }
        own.addLast(waiter);
        return waiter;
    }

    /** Forgets a waiter that gave up; called with the lock held. */
    private void remove(String owner, CompletableFuture<Place> waiter) {
        ArrayDeque<CompletableFuture<Place>> own = waiters.get(owner);
        if (own != null && own.remove(waiter) && own.isEmpty()) {
            waiters.remove(owner);
            turns.remove(owner);
        }
    }

    /** Takes a waiter out of the queue; returns the place it was given meanwhile, if it was. */
    private Place withdraw(String owner, CompletableFuture<Place> waiter) {
        lock.lock();
        try {
            if (waiter.cancel(false)) {
                remove(owner, waiter);
                return null;
            }
        } finally {
            lock.unlock();
        }
        return waiter.join();
    }

    /** Gives a freed place to the next owner in turn. */
    private void release() {
        lock.lock();
        try {
            free++;
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    /** Hands free places to the waiters, owners in turn; called with the lock held. */
    private void dispatch() {
        while (free > 0 && !turns.isEmpty()) {
            String owner = turns.pollFirst();
            ArrayDeque<CompletableFuture<Place>> own = waiters.get(owner);
            CompletableFuture<Place> next = own.pollFirst();
            if (own.isEmpty()) {
                waiters.remove(owner);
            } else {
                turns.addLast(owner);
            }
            // a waiter that gave up (cancelled) is skipped; the place goes on to the next
            if (next.complete(new Held())) {
                free--;
            }
        }
    }

    /** Places held now. */
    public int inUse() {
        lock.lock();
        try {
            return places - free;
        } finally {
            lock.unlock();
        }
    }

    /** Callers of {@link #acquire} waiting now. */
    public int waiting() {
        lock.lock();
        try {
            return blockedWaiting;
        } finally {
            lock.unlock();
        }
    }

    /** Background work waiting for its turn now. */
    public int waitingInBackground() {
        lock.lock();
        try {
            return backgroundWaiting;
        } finally {
            lock.unlock();
        }
    }

    public int places() {
        return places;
    }

    /** How many {@link #acquire} callers may wait at once; 0: none. */
    public int maxWaiting() {
        return maxWaiting;
    }

    private final class Held implements Place {
        private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                release();
            }
        }
    }
}
