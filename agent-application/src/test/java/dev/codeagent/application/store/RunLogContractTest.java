package dev.codeagent.application.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunFilter;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link RunLog} store promises, whatever it keeps runs in. A store's test extends
 * this class and supplies a fresh, empty log for each test; what a store does beyond the port (files,
 * owners, migrations, exact storage of every field) is tested beside the store.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class RunLogContractTest {

    protected static final Instant T0 = Instant.parse("2025-03-04T05:06:07.123456789Z");

    /** A new, empty log; closed after the test when it is {@link AutoCloseable}. */
    protected abstract RunLog newLog() throws Exception;

    private RunLog log;

    @BeforeEach
    void openLog() throws Exception {
        log = newLog();
    }

    @AfterEach
    void closeLog() throws Exception {
        if (log instanceof AutoCloseable) {
            ((AutoCloseable) log).close();
        }
    }

    // ---- samples: plain values any store must keep as they are

    protected static Task task() {
        return Task.of("print hello");
    }

    protected static Task taskWithTests() {
        return new Task("Write add(a, b)", Language.JAVASCRIPT, "assert add(1, 2) == 3\n", "3\n", "1 2\n",
                ResourceLimits.defaults().withWallTime(Duration.ofMillis(2500)).withMemoryBytes(64 * ResourceLimits.MIB), 5);
    }

    protected static Attempt noCode(int number) {
        return new Attempt(number, "I cannot do that.", "", null,
                Verdict.of(Verdict.Kind.INTERNAL_ERROR, "no code found in the reply"),
                "No code found; reply with one fenced code block.", Duration.ofMillis(800), Duration.ZERO);
    }

    protected static Attempt accepted(int number) {
        Execution e = new Execution(Outcome.OK, 0, null, new CapturedOutput("3\n", false), CapturedOutput.EMPTY,
                Duration.ofMillis(30), Duration.ofMillis(20), 9_000_000L, null, new Isolation("test", Set.of(), Set.of()));
        return new Attempt(number, "print(3)", "print(3)", e, Verdict.accepted(), "", Duration.ofMillis(700), Duration.ofMillis(31));
    }

    // ---- keeping runs

    @Test
    void keepsARunThroughEveryCall() {
        Run expected = Run.started("r1", taskWithTests(), T0);
        log.started(expected);
        assertThat(log.find("r1")).contains(expected);
        for (Attempt a : List.of(noCode(1), noCode(2), accepted(3))) {
            log.attemptFinished("r1", a);
            expected = expected.withAttempt(a);
            assertThat(log.find("r1")).contains(expected);
        }
        log.ended("r1", RunStatus.SOLVED, T0.plusSeconds(9), null);
        assertThat(log.find("r1")).contains(expected.ended(RunStatus.SOLVED, T0.plusSeconds(9), null));
    }

    @Test
    void recordsARunHandedOverWithAttemptsAndAFinalStatus() {
        Run whole = Run.started("whole", taskWithTests(), T0)
                .withAttempt(noCode(1)).withAttempt(accepted(2))
                .ended(RunStatus.CANCELLED, T0.plusSeconds(1), "cancelled by the user");
        log.started(whole);
        assertThat(log.find("whole")).contains(whole);
    }

    @Test
    void findsNothingForAnUnknownId() {
        assertThat(log.find("nope")).isEmpty();
    }

    // ---- misuse

    @Test
    void refusesADuplicateRunIdAndKeepsTheFirst() {
        log.started(Run.started("dup", task(), T0));
        assertThatThrownBy(() -> log.started(Run.started("dup", taskWithTests(), T0)))
                .isInstanceOf(IllegalStateException.class).hasMessage("run dup exists already");
        assertThat(log.find("dup").orElseThrow().task()).isEqualTo(task());
    }

    @Test
    void refusesAttemptsAndEndsForUnknownRuns() {
        assertThatThrownBy(() -> log.attemptFinished("ghost", accepted(1)))
                .isInstanceOf(NoSuchElementException.class).hasMessage("no run ghost");
        assertThatThrownBy(() -> log.ended("ghost", RunStatus.FAILED, T0, null))
                .isInstanceOf(NoSuchElementException.class).hasMessage("no run ghost");
        assertThat(log.find("ghost")).isEmpty();
    }

    @Test
    void refusesASecondAttemptWithTheSameNumberAndKeepsTheFirst() {
        log.started(Run.started("r", task(), T0));
        log.attemptFinished("r", noCode(1));
        assertThatThrownBy(() -> log.attemptFinished("r", accepted(1)))
                .isInstanceOf(IllegalStateException.class).hasMessage("run r already has an attempt 1");
        assertThat(log.find("r").orElseThrow().attempts()).containsExactly(noCode(1));
    }

    @Test
    void refusesARunHandedOverWithTwoAttemptsOfOneNumberAndKeepsNothing() {
        Run twice = Run.started("twice", task(), T0).withAttempt(noCode(1)).withAttempt(accepted(1));
        assertThatThrownBy(() -> log.started(twice))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("run twice has two attempts numbered 1");
        assertThat(log.find("twice")).isEmpty();
    }

    @Test
    void refusesToEndARunAsRunning() {
        log.started(Run.started("r", task(), T0));
        assertThatThrownBy(() -> log.ended("r", RunStatus.RUNNING, T0, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("cannot end a run as RUNNING");
        assertThat(log.find("r").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    }

    // ---- listing

    @Test
    void listsNewestFirstBreakingTiesById() {
        log.started(Run.started("a", task(), T0));
        log.started(Run.started("c", task(), T0.plusNanos(1)));
        log.started(Run.started("b", task(), T0.plusNanos(1)));
        log.started(Run.started("old", task(), T0.minusSeconds(86_400 * 400)));
        log.attemptFinished("c", accepted(1));

        List<Run> runs = log.recent(10, null);
        assertThat(runs).extracting(Run::id).containsExactly("c", "b", "a", "old");
        assertThat(runs.get(0).attempts()).containsExactly(accepted(1));
        assertThat(log.recent(2, null)).extracting(Run::id).containsExactly("c", "b");
        assertThat(log.recent(2, "c")).extracting(Run::id).containsExactly("b", "a");
        assertThat(log.recent(10, "a")).extracting(Run::id).containsExactly("old");
        assertThat(log.recent(10, "old")).isEmpty();
    }

    @Test
    void pagesThroughEveryRunOnceEach() {
        for (int i = 0; i < 57; i++) {
            Run r = Run.started("run-" + i, task(), T0.plusMillis(i % 7));
            log.started(r);
            if (i % 5 == 0) {
                log.attemptFinished(r.id(), noCode(1));
            }
        }
        List<Run> all = new ArrayList<>();
        String before = null;
        while (true) {
            List<Run> page = log.recent(10, before);
            if (page.isEmpty()) {
                break;
            }
            all.addAll(page);
            before = page.get(page.size() - 1).id();
        }
        assertThat(all).hasSize(57);
        assertThat(all.stream().map(Run::id).collect(Collectors.toSet())).hasSize(57);
        assertThat(all).isSortedAccordingTo((x, y) -> {
            int byTime = y.startedAt().compareTo(x.startedAt());
            return byTime != 0 ? byTime : y.id().compareTo(x.id());
        });
        assertThat(all.stream().filter(r -> !r.attempts().isEmpty()).count()).isEqualTo(12);
        assertThat(log.recent(1000, null)).hasSize(57);
    }

    @Test
    void givesAnEmptyPageAfterAnUnknownId() {
        log.started(Run.started("a", task(), T0));
        assertThat(log.recent(10, "nope")).isEmpty();
    }

    @Test
    void refusesALimitOutsideOneToAThousand() {
        assertThatThrownBy(() -> log.recent(0, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be between 1 and 1000, was 0");
        assertThatThrownBy(() -> log.recent(1001, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be between 1 and 1000, was 1001");
    }

    // ---- owners

    @Test
    void keepsEachRunsOwnerThroughEveryCallAndNoneForARunWithout() {
        log.started(Run.started("alices", taskWithTests(), T0, "key:alice"));
        log.started(Run.started("nobodys", task(), T0));
        log.attemptFinished("alices", noCode(1));
        log.ended("alices", RunStatus.FAILED, T0.plusSeconds(1), null);

        assertThat(log.find("alices")).contains(Run.started("alices", taskWithTests(), T0, "key:alice")
                .withAttempt(noCode(1)).ended(RunStatus.FAILED, T0.plusSeconds(1), null));
        assertThat(log.find("nobodys").orElseThrow().owner()).isNull();
        assertThat(log.recent(10, null)).extracting(Run::owner).containsExactlyInAnyOrder("key:alice", null);
    }

    @Test
    void listsOnlyTheOwnersRunsInFullPages() {
        for (int i = 0; i < 12; i++) {
            // interleaved, so that a page filtered after reading would come out short
            log.started(Run.started("a" + i, task(), T0.plusMillis(2 * i), "key:alice"));
            log.started(Run.started("b" + i, task(), T0.plusMillis(2 * i + 1), "key:bob"));
        }
        log.started(Run.started("none", task(), T0.plusSeconds(5)));
        // an owner that only looks like another in a LIKE or a prefix match
        log.started(Run.started("lookalike", task(), T0.plusSeconds(6), "key:alice2"));

        List<Run> first = log.recentOwnedBy("key:alice", 5, null);
        assertThat(first).extracting(Run::id).containsExactly("a11", "a10", "a9", "a8", "a7");
        assertThat(log.recentOwnedBy("key:alice", 5, "a7")).extracting(Run::id).containsExactly("a6", "a5", "a4", "a3", "a2");
        assertThat(log.recentOwnedBy("key:alice", 5, "a2")).extracting(Run::id).containsExactly("a1", "a0");
        assertThat(log.recentOwnedBy("key:bob", 100, null)).hasSize(12).allMatch(r -> r.owner().equals("key:bob"));
        assertThat(log.recentOwnedBy("key:carol", 10, null)).isEmpty();
        // a cursor that names someone else's run gives nothing of theirs away
        assertThat(log.recentOwnedBy("key:alice", 10, "b5")).isEmpty();
        assertThat(log.recent(100, null)).hasSize(26);
    }

    // ---- statuses

    /** 40 runs, alice's and bob's interleaved; every 7th SOLVED, every 5th FAILED (when not solved), the rest RUNNING. */
    private List<Run> statusSample() {
        List<Run> started = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String owner = i % 2 == 0 ? "key:alice" : "key:bob";
            Run r = Run.started(String.format("s%02d", i), task(), T0.plusMillis(i), owner);
            log.started(r);
            if (i % 7 == 0) {
                log.ended(r.id(), RunStatus.SOLVED, T0.plusSeconds(1), null);
            } else if (i % 5 == 0) {
                log.ended(r.id(), RunStatus.FAILED, T0.plusSeconds(1), null);
            }
            started.add(log.find(r.id()).orElseThrow());
        }
        return started;
    }

    private static List<String> newestFirst(List<Run> runs, RunFilter filter) {
        return runs.stream().filter(filter::selects)
                .sorted((x, y) -> y.startedAt().compareTo(x.startedAt()) != 0 ? y.startedAt().compareTo(x.startedAt())
                        : y.id().compareTo(x.id()))
                .map(Run::id).toList();
    }

    private List<String> everyPage(RunFilter filter, int limit) {
        List<String> ids = new ArrayList<>();
        String before = null;
        while (true) {
            List<Run> page = log.recent(filter, limit, before);
            assertThat(page).allMatch(filter::selects);
            ids.addAll(page.stream().map(Run::id).toList());
            if (page.size() < limit) {
                return ids;
            }
            before = page.get(page.size() - 1).id();
        }
    }

    @Test
    void listsOnlyTheStatusesAskedForInFullPages() {
        List<Run> runs = statusSample();
        RunFilter solved = RunFilter.ALL.withStatuses(Set.of(RunStatus.SOLVED));
        // solved: s35 s28 s21 s14 s07 s00; filtered in the query, so the first page is full though they are rare
        assertThat(log.recent(solved, 3, null)).extracting(Run::id).containsExactly("s35", "s28", "s21");
        assertThat(log.recent(solved, 3, "s21")).extracting(Run::id).containsExactly("s14", "s07", "s00");
        assertThat(log.recent(solved, 3, "s00")).isEmpty();
        RunFilter ended = RunFilter.ALL.withStatuses(Set.of(RunStatus.SOLVED, RunStatus.FAILED));
        assertThat(log.recent(ended, 4, null)).extracting(Run::id).containsExactly("s35", "s30", "s28", "s25");
        assertThat(log.recent(RunFilter.ALL.withStatuses(Set.of(RunStatus.CANCELLED)), 10, null)).isEmpty();
        for (RunFilter f : List.of(solved, ended, RunFilter.ALL.withStatuses(Set.of(RunStatus.RUNNING)),
                RunFilter.ALL.withStatuses(Set.of(RunStatus.values())), RunFilter.ALL)) {
            assertThat(everyPage(f, 4)).as("pages of %s", f.statuses()).isEqualTo(newestFirst(runs, f));
        }
    }

    @Test
    void listsOneOwnersRunsOfTheStatusesAskedFor() {
        List<Run> runs = statusSample();
        RunFilter alicesSolved = RunFilter.ownedBy("key:alice").withStatuses(Set.of(RunStatus.SOLVED));
        // alice has the even ones: s28 s14 s00 solved
        assertThat(log.recent(alicesSolved, 2, null)).extracting(Run::id).containsExactly("s28", "s14");
        assertThat(log.recent(alicesSolved, 2, "s14")).extracting(Run::id).containsExactly("s00");
        RunFilter bobsFailed = RunFilter.ownedBy("key:bob").withStatuses(Set.of(RunStatus.FAILED));
        assertThat(log.recent(bobsFailed, 10, null)).extracting(Run::id).containsExactly("s25", "s15", "s05");
        for (String owner : List.of("key:alice", "key:bob")) {
            for (Set<RunStatus> st : List.of(Set.of(RunStatus.RUNNING), Set.of(RunStatus.SOLVED, RunStatus.FAILED),
                    Set.<RunStatus>of())) {
                RunFilter f = RunFilter.ownedBy(owner).withStatuses(st);
                assertThat(everyPage(f, 3)).as("pages of %s %s", owner, st).isEqualTo(newestFirst(runs, f));
            }
        }
        // a cursor that names someone else's run gives nothing of theirs away, whatever the statuses
        assertThat(log.recent(alicesSolved, 10, "s29")).isEmpty();
        assertThat(log.recent(RunFilter.ownedBy("key:carol").withStatuses(Set.of(RunStatus.SOLVED)), 10, null)).isEmpty();
    }

    @Test
    void pagesOnAfterACursorWhoseStatusHasChanged() {
        statusSample();
        RunFilter running = RunFilter.ALL.withStatuses(Set.of(RunStatus.RUNNING));
        List<Run> first = log.recent(running, 3, null);
        assertThat(first).extracting(Run::id).containsExactly("s39", "s38", "s37");
        // the page's last run ends before "Older runs" is asked for: the next page still follows it
        log.ended("s37", RunStatus.ERROR, T0.plusSeconds(2), "sandbox down");
        assertThat(log.recent(running, 3, "s37")).extracting(Run::id).containsExactly("s36", "s34", "s33");
        assertThat(log.recent(RunFilter.ownedBy("key:bob").withStatuses(Set.of(RunStatus.RUNNING)), 2, "s37"))
                .extracting(Run::id).containsExactly("s33", "s31");
    }

    // ---- interrupted runs

    @Test
    void leavesRunsOfThisLiveProcessAlone() {
        log.started(Run.started("mine", task(), T0));
        log.attemptFinished("mine", noCode(1));

        assertThat(log.markInterrupted("interrupted")).isZero();

        Run mine = log.find("mine").orElseThrow();
        assertThat(mine.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(mine.endedAt()).isNull();
        assertThat(mine.reason()).isNull();
        // and it goes on as if nothing happened
        log.ended("mine", RunStatus.SOLVED, T0.plusSeconds(1), null);
        assertThat(log.find("mine").orElseThrow().status()).isEqualTo(RunStatus.SOLVED);
    }

    // ---- concurrency

    @Test
    void keepsEveryAttemptFromConcurrentWriters() throws Exception {
        int threads = 4;
        int perRun = 15;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<?>> jobs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String id = "t" + t;
                jobs.add(pool.submit(() -> {
                    go.await();
                    log.started(Run.started(id, taskWithTests(), T0));
                    for (int n = 1; n <= perRun; n++) {
                        log.attemptFinished(id, n % 2 == 0 ? accepted(n) : noCode(n));
                    }
                    log.ended(id, RunStatus.FAILED, T0.plusSeconds(1), null);
                    return null;
                }));
            }
            // a reader at the same time sees only whole runs
            jobs.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 30; i++) {
                    for (Run r : log.recent(10, null)) {
                        assertThat(r.attempts()).extracting(Attempt::number)
                                .containsExactlyElementsOf(IntStream.rangeClosed(1, r.attempts().size()).boxed().toList());
                    }
                }
                return null;
            }));
            go.countDown();
            for (Future<?> f : jobs) {
                f.get(50, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Set<String> ids = new HashSet<>();
        for (Run r : log.recent(10, null)) {
            ids.add(r.id());
            assertThat(r.status()).isEqualTo(RunStatus.FAILED);
            assertThat(r.attempts()).hasSize(perRun);
            for (int n = 1; n <= perRun; n++) {
                assertThat(r.attempts().get(n - 1)).isEqualTo(n % 2 == 0 ? accepted(n) : noCode(n));
            }
        }
        assertThat(ids).containsExactlyInAnyOrder("t0", "t1", "t2", "t3");
    }
}
