package dev.codeagent.application.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VisibleRunsTest {

    private static final Instant T0 = Instant.parse("2025-03-04T05:06:07Z");

    private final InMemoryRunLog log = new InMemoryRunLog();
    private final VisibleRuns runs = new VisibleRuns(log);
    private final Caller alice = Caller.apiKey("alice", false);
    private final Caller bob = Caller.apiKey("bob", false);
    private final Caller admin = Caller.apiKey("ops", true);

    VisibleRunsTest() {
        log.started(Run.started("a1", Task.of("alice's"), T0, "key:alice"));
        log.started(Run.started("b1", Task.of("bob's"), T0.plusSeconds(1), "key:bob"));
        log.started(Run.started("old", Task.of("no one's"), T0.plusSeconds(2)));
    }

    @Test
    void aCallerFindsItsOwnRunAndNoOtherNorAnOwnerlessOne() {
        assertThat(runs.find(alice, "a1")).isPresent();
        assertThat(runs.find(alice, "b1")).isEmpty();
        assertThat(runs.find(alice, "old")).isEmpty();
        assertThat(runs.find(bob, "a1")).isEmpty();
    }

    @Test
    void aCallerListsItsOwnRunsOnlyAndAnOperatorListsAll() {
        assertThat(runs.recent(alice, 10, null)).extracting(Run::id).containsExactly("a1");
        assertThat(runs.recent(bob, 10, null)).extracting(Run::id).containsExactly("b1");
        assertThat(runs.recent(admin, 10, null)).extracting(Run::id).containsExactly("old", "b1", "a1");
        assertThat(runs.find(admin, "old")).isPresent();
        // paging after someone else's run says nothing about it
        assertThat(runs.recent(alice, 10, "b1")).isEmpty();
    }

    @Test
    void aStatusFilterIsComposedWithWhoTheCallerIs() {
        log.ended("a1", RunStatus.SOLVED, T0.plusSeconds(5), null);
        log.ended("b1", RunStatus.SOLVED, T0.plusSeconds(5), null);
        assertThat(runs.recent(alice, Set.of(RunStatus.SOLVED), 10, null)).extracting(Run::id).containsExactly("a1");
        assertThat(runs.recent(alice, Set.of(RunStatus.RUNNING), 10, null)).isEmpty();
        assertThat(runs.recent(admin, Set.of(RunStatus.SOLVED), 10, null)).extracting(Run::id).containsExactly("b1", "a1");
        assertThat(runs.recent(admin, Set.of(RunStatus.RUNNING, RunStatus.FAILED), 10, null)).extracting(Run::id)
                .containsExactly("old");
        // no statuses: every one, as without a filter
        assertThat(runs.recent(bob, Set.of(), 10, null)).extracting(Run::id).containsExactly("b1");
    }

    @Test
    void theLocalUserIsNamedByTheProcesssUserAndAKeyByItsName() {
        assertThat(Caller.localUser().owner()).isEqualTo("local:" + System.getProperty("user.name"));
        assertThat(Caller.localUser().operator()).isFalse();
        assertThat(Caller.localUser().asOperator().operator()).isTrue();
        assertThat(alice.owner()).isEqualTo("key:alice");
    }

    @Test
    void anOperatorMayBeNoOneButAnyoneElseMustHaveAName() {
        assertThat(new Caller(null, true).sees(Run.started("x", Task.of("p"), T0))).isTrue();
        assertThatThrownBy(() -> new Caller(null, false)).hasMessageContaining("owner");
        assertThatThrownBy(() -> Caller.owning("key:a\u0000")).hasMessageContaining("owner");
    }
}
