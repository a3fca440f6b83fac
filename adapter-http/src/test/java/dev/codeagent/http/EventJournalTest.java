package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventJournalTest {

    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
    private static final Execution FAILED = new Execution(Outcome.RUNTIME_ERROR, 1, null, CapturedOutput.EMPTY,
            new CapturedOutput("boom", false), Duration.ofMillis(20), null, null, null, new Isolation("process", Set.of(), Set.of()));

    @Test
    void giveStoredRunsTheIdsTheirEventsHadLive() {
        Task task = Task.of("p");
        Attempt noCode = new Attempt(1, "no code here", "", null, Verdict.of(Verdict.Kind.INTERNAL_ERROR, "no code"), "fb",
                Duration.ofMillis(5), Duration.ZERO);
        Attempt failed = new Attempt(2, "r", "print(x)", FAILED, Verdict.of(Verdict.Kind.RUNTIME_ERROR, "NameError"), "fb",
                Duration.ofMillis(5), Duration.ofMillis(30));

        EventJournal live = new EventJournal();
        live.append(new RunEvent.RunStarted("r1", T0, task));
        live.append(new RunEvent.AttemptStarted("r1", T0, 1, 3));
        live.append(new RunEvent.Judged("r1", T0, noCode));
        live.append(new RunEvent.AttemptStarted("r1", T0, 2, 3));
        live.append(new RunEvent.CodeGenerated("r1", T0, 2, "print(x)"));
        live.append(new RunEvent.Executed("r1", T0, 2, FAILED));
        live.append(new RunEvent.Judged("r1", T0, failed));
        live.append(new RunEvent.RunFinished("r1", T0, RunStatus.FAILED, "no luck"));

        Run stored = new Run("r1", task, RunStatus.FAILED, List.of(noCode, failed), T0, T0.plusSeconds(1), "no luck");
        EventJournal synthesised = EventJournal.of(stored);

        assertThat(ids(live)).containsExactly(1L, 11L, 14L, 21L, 22L, 23L, 24L, 1000L);
        assertThat(ids(synthesised)).isEqualTo(ids(live));
        assertThat(synthesised.entries()).extracting(e -> e.event().name()).isEqualTo(
                live.entries().stream().map(e -> e.event().name()).toList());
        assertThat(synthesised.finished()).isTrue();
    }

    @Test
    void aReaderWaitsForTheNextEventAndResumesAfterTheOneItSaw() throws Exception {
        EventJournal j = new EventJournal();
        j.append(new RunEvent.RunStarted("r", T0, Task.of("p")));
        CompletableFuture<EventJournal.Batch> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return j.after(1, Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        assertThat(waiting).isNotDone();
        j.append(new RunEvent.AttemptStarted("r", T0, 1, 1));
        EventJournal.Batch b = waiting.get(2, TimeUnit.SECONDS);
        assertThat(b.entries()).extracting(EventJournal.Entry::id).containsExactly(11L);
        assertThat(b.finished()).isFalse();

        j.append(new RunEvent.RunFinished("r", T0, RunStatus.CANCELLED, "cancelled"));
        j.append(new RunEvent.AttemptStarted("r", T0, 2, 1));
        EventJournal.Batch end = j.after(11, Duration.ofSeconds(5));
        assertThat(end.entries()).extracting(EventJournal.Entry::id).containsExactly(1000L);
        assertThat(end.finished()).isTrue();
        assertThat(j.after(1000, Duration.ofSeconds(5)).entries()).isEmpty();
    }

    @Test
    void closingWakesReaders() throws Exception {
        EventJournal j = new EventJournal();
        long t0 = System.nanoTime();
        CompletableFuture<EventJournal.Batch> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return j.after(0, Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(50);
        j.close();
        assertThat(waiting.get(2, TimeUnit.SECONDS).closed()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }

    private static List<Long> ids(EventJournal j) {
        return j.entries().stream().map(EventJournal.Entry::id).toList();
    }
}
