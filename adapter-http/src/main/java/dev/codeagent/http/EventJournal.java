package dev.codeagent.http;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.Task;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The events of one run, in order, each with its SSE id, for streaming and for resuming a stream.
 *
 * <p>Ids are positions in a run's fixed event plan rather than arrival counters: {@code 1} for
 * run-started; for attempt <i>n</i> {@code 10n+1} attempt-started, {@code 10n+2} code-generated,
 * {@code 10n+3} executed, {@code 10n+4} verdict; {@code 1000} for run-finished. They only grow, and an
 * event has the same id whether it is streamed live or re-created from the stored run after a
 * restart, so {@code Last-Event-ID} resumes correctly against either.
 *
 * <p>Bounded: at most {@link #MAX_EVENTS} events (a 20-attempt run has 82); run-finished is always kept.
 */
final class EventJournal {

    static final long RUN_STARTED = 1;
    static final long RUN_FINISHED = 1000;
    static final int MAX_EVENTS = 512;

    /** One event with its id. */
    record Entry(long id, RunEvent event) {
    }

    /** What a reader gets: the entries after its position, and whether more can ever come. */
    record Batch(List<Entry> entries, boolean finished, boolean closed) {
    }

    private final List<Entry> entries = new ArrayList<>();
    private boolean finished;
    private boolean closed;
    private int attemptsSeen;

    static long idOf(RunEvent e) {
        if (e instanceof RunEvent.RunStarted) {
            return RUN_STARTED;
        }
        if (e instanceof RunEvent.AttemptStarted) {
            return 10L * ((RunEvent.AttemptStarted) e).attempt() + 1;
        }
        if (e instanceof RunEvent.CodeGenerated) {
            return 10L * ((RunEvent.CodeGenerated) e).attempt() + 2;
        }
        if (e instanceof RunEvent.Executed) {
            return 10L * ((RunEvent.Executed) e).attempt() + 3;
        }
        if (e instanceof RunEvent.Judged) {
            return 10L * ((RunEvent.Judged) e).attempt().number() + 4;
        }
        return RUN_FINISHED;
    }

    synchronized void append(RunEvent event) {
        if (finished) {
            return;
        }
        long id = idOf(event);
        long last = entries.isEmpty() ? 0 : entries.get(entries.size() - 1).id();
        if (id <= last) {
            // out of plan (should not happen): keep the order and the uniqueness of ids
            id = last + 1;
        }
        boolean end = event instanceof RunEvent.RunFinished;
        if (entries.size() < MAX_EVENTS || end) {
            entries.add(new Entry(id, event));
        }
        finished = end;
        notifyAll();
    }

    /**
     * The entries with ids above {@code lastId}; when there are none yet and the run goes on, waits up
     * to {@code wait} for some.
     */
    synchronized Batch after(long lastId, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!finished && !closed && !hasAfter(lastId)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (e.id() > lastId) {
                out.add(e);
            }
        }
        return new Batch(out, finished, closed);
    }

    private boolean hasAfter(long lastId) {
        return !entries.isEmpty() && entries.get(entries.size() - 1).id() > lastId;
    }

    /** Whether the run has finished and a reader who saw {@code lastId} has seen every event. */
    synchronized boolean seenToTheEnd(long lastId) {
        return finished && !hasAfter(lastId);
    }

    synchronized boolean finished() {
        return finished;
    }

    synchronized boolean closed() {
        return closed;
    }

    /** Wakes every reader for good: the server is stopping. */
    synchronized void close() {
        closed = true;
        notifyAll();
    }

    synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    /**
     * The events a stored run stands for, with the ids they had live: for runs from before a restart or
     * whose live journal has been dropped. Attempt times are estimated from the attempts' durations.
     */
    static EventJournal of(Run run) {
        EventJournal j = following(run);
        if (!run.status().isFinal()) {
            // a RUNNING run nobody here is working on or following: nothing more will come from us
            j.close();
        }
        return j;
    }

    /** A journal of a run worked elsewhere, to be kept up with {@link #catchUp} as the run changes. */
    static EventJournal following(Run run) {
        EventJournal j = new EventJournal();
        j.catchUp(run);
        return j;
    }

    /** Appends the events of what the run has that this journal does not yet: new attempts, then its end. */
    synchronized void catchUp(Run run) {
        Task task = run.task();
        if (entries.isEmpty()) {
            append(new RunEvent.RunStarted(run.id(), run.startedAt(), task));
        }
        Instant at = run.startedAt();
        for (Attempt a : run.attempts()) {
            at = at.plus(a.generationTime());
            Instant generated = at;
            at = at.plus(a.executionTime());
            if (a.number() <= attemptsSeen) {
                continue;
            }
            append(new RunEvent.AttemptStarted(run.id(), generated.minus(a.generationTime()), a.number(), task.maxAttempts()));
            if (!a.code().isEmpty()) {
                append(new RunEvent.CodeGenerated(run.id(), generated, a.number(), a.code()));
            }
            if (a.execution() != null) {
                append(new RunEvent.Executed(run.id(), at, a.number(), a.execution()));
            }
            append(new RunEvent.Judged(run.id(), at, a));
            attemptsSeen = a.number();
        }
        if (run.status().isFinal()) {
            append(new RunEvent.RunFinished(run.id(), run.endedAt(), run.status(), run.reason()));
        }
    }
}
