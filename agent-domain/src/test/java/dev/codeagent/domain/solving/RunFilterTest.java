package dev.codeagent.domain.solving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RunFilterTest {

    private static final Instant T0 = Instant.parse("2025-03-04T05:06:07Z");
    private final Run alicesSolved = Run.started("a", Task.of("p"), T0, "key:alice").ended(RunStatus.SOLVED, T0, null);
    private final Run bobsRunning = Run.started("b", Task.of("p"), T0, "key:bob");

    @Test
    void selectsByOwnerAndStatusTogetherAndAnEmptySetIsEveryStatus() {
        assertThat(RunFilter.ALL.selects(alicesSolved)).isTrue();
        assertThat(RunFilter.ALL.selects(bobsRunning)).isTrue();
        RunFilter alicesRunning = RunFilter.ownedBy("key:alice").withStatuses(Set.of(RunStatus.RUNNING));
        assertThat(alicesRunning.selects(alicesSolved)).isFalse();
        assertThat(alicesRunning.selects(bobsRunning)).isFalse();
        // the owner's runs whatever their status: what a paging cursor may be
        assertThat(alicesRunning.owns(alicesSolved)).isTrue();
        assertThat(alicesRunning.owns(bobsRunning)).isFalse();
        assertThat(RunFilter.ALL.withStatuses(Set.of(RunStatus.SOLVED, RunStatus.FAILED)).selects(alicesSolved)).isTrue();
    }

    @Test
    void keepsTheStatusesInDeclarationOrderUnmodifiableAndEqualWhateverSetTheyCameIn() {
        RunFilter f = new RunFilter(null, new HashSet<>(List.of(RunStatus.CANCELLED, RunStatus.RUNNING, RunStatus.FAILED)));
        assertThat(f.statuses()).containsExactly(RunStatus.RUNNING, RunStatus.FAILED, RunStatus.CANCELLED);
        assertThat(f).isEqualTo(new RunFilter(null, EnumSet.of(RunStatus.FAILED, RunStatus.RUNNING, RunStatus.CANCELLED)));
        assertThatThrownBy(() -> f.statuses().add(RunStatus.SOLVED)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new RunFilter("key:a", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RunFilter.ownedBy(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aTypedListOfStatusesIsReadInAnyCaseAndAWrongNameIsNamed() {
        assertThat(RunStatus.parseList(null)).isEmpty();
        assertThat(RunStatus.parseList("  ")).isEmpty();
        assertThat(RunStatus.parseList("solved, FAILED,")).containsExactly(RunStatus.SOLVED, RunStatus.FAILED);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RunStatus.parseList("solved,DONE"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no status 'DONE'; use RUNNING, SOLVED, FAILED, ERROR, CANCELLED, several separated by commas");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RunStatus.parseList("\u001b[2J" + "x".repeat(50)))
                .hasMessageStartingWith("no status '?[2J" + "x".repeat(36) + "…'");
    }
}
