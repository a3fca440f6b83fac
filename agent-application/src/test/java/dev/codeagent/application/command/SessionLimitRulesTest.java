package dev.codeagent.application.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.session.SessionLimits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A session's limits asked for on a door (a notebook's {@code %limits}) follow the same caps as a run's: the rule
 * lives here once, so no door can hand out more than its config allows.
 */
class SessionLimitRulesTest {

    private static final long MIB = ResourceLimits.MIB;

    /** A notebook's: 512 MiB and an hour per cell at most, named by the keys that set them. */
    private static final InputPolicy NOTEBOOK = InputPolicy.local()
            .cap(LimitField.TIMEOUT, Duration.ofHours(1).toMillis(), "jupyter.maxTimeout")
            .cap(LimitField.MEMORY, 512 * MIB, "jupyter.maxMemory");

    private static final SessionLimits BASE = SessionLimits.defaults().withCellTimeout(Duration.ofMinutes(10))
            .withMaxLifetime(Duration.ofHours(24));

    @Test
    void refusesMemoryAboveTheCeilingNamingTheKeyThatSetsIt() {
        FieldErrors errors = new FieldErrors();
        SessionLimits l = LimitOverrides.NONE.withMemoryBytes(64L * 1024 * MIB).applyTo(BASE, NOTEBOOK, "limits", errors);

        assertThat(l).isNull();
        assertThat(errors.firstLine()).isEqualTo(
                "limits.memoryBytes: must be between 16 MiB and 512 MiB (jupyter.maxMemory), was 64 GiB");
    }

    @Test
    void acceptsValuesAtTheCeiling() {
        FieldErrors errors = new FieldErrors();
        SessionLimits l = LimitOverrides.NONE.withMemoryBytes(512 * MIB).withTimeout(Duration.ofHours(1))
                .applyTo(BASE, NOTEBOOK, "limits", errors);

        assertThat(errors.isEmpty()).as(errors.toString()).isTrue();
        assertThat(l.memoryBytes()).isEqualTo(512 * MIB);
        assertThat(l.cellTimeout()).isEqualTo(Duration.ofHours(1));
        assertThat(l.idleTimeout()).as("what was not asked for stays").isEqualTo(BASE.idleTimeout());
    }

    @Test
    void refusesATimeoutAboveTheCeiling() {
        FieldErrors errors = new FieldErrors();
        InputPolicy shortCells = NOTEBOOK.cap(LimitField.TIMEOUT, 60_000, "jupyter.maxTimeout");

        assertThat(LimitOverrides.NONE.withTimeout(Duration.ofMinutes(2)).applyTo(BASE, shortCells, "limits", errors)).isNull();
        assertThat(errors.firstLine()).isEqualTo("limits.timeoutMs: must be between 1ms and 1m (jupyter.maxTimeout), was 2m");
    }

    @Test
    void lowersTheDefaultsToACeilingBelowThem() {
        InputPolicy small = NOTEBOOK.cap(LimitField.MEMORY, 256 * MIB, "jupyter.maxMemory")
                .cap(LimitField.TIMEOUT, 60_000, "jupyter.maxTimeout");

        SessionLimits l = LimitOverrides.within(BASE, small);

        assertThat(l.memoryBytes()).isEqualTo(256 * MIB);
        assertThat(l.cellTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(LimitOverrides.within(BASE, NOTEBOOK)).as("defaults under the ceiling stay").isEqualTo(BASE);
    }

    @Test
    void refusesLimitsASessionDoesNotHave() {
        FieldErrors errors = new FieldErrors();

        assertThat(LimitOverrides.NONE.withNetwork(true).applyTo(BASE, NOTEBOOK, "limits", errors)).isNull();
        assertThat(errors.firstLine()).isEqualTo("limits.network: is not a limit of a session; a session's are timeoutMs, memoryBytes");
    }

    @Test
    void refusesMemoryBelowWhatASessionsKernelNeeds() {
        FieldErrors errors = new FieldErrors();

        assertThat(LimitOverrides.NONE.withMemoryBytes(32 * MIB).applyTo(BASE, NOTEBOOK, "limits", errors)).isNull();
        assertThat(errors.firstLine()).startsWith("limits.memoryBytes: memoryBytes must be at least 64 MiB");
    }
}
