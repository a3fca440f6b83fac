package dev.codeagent.domain.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceLimitsTest {

    @Test
    void defaultsAreSafe() {
        ResourceLimits d = ResourceLimits.defaults();
        assertThat(d.network()).isFalse();
        assertThat(d.maxOutputBytes()).isEqualTo(ResourceLimits.MIB);
        assertThat(d.memoryBytes()).isEqualTo(256 * ResourceLimits.MIB);
    }

    @Test
    void rejectsOutOfRangeValuesNamingTheField() {
        ResourceLimits d = ResourceLimits.defaults();
        assertThatThrownBy(() -> d.withWallTime(Duration.ZERO)).hasMessageContaining("wallTime");
        assertThatThrownBy(() -> d.withWallTime(Duration.ofHours(25))).hasMessageContaining("wallTime");
        assertThatThrownBy(() -> d.withMemoryBytes(1024)).hasMessageContaining("memoryBytes");
        assertThatThrownBy(() -> d.withMaxProcesses(0)).hasMessageContaining("maxProcesses");
        assertThatThrownBy(() -> d.withMaxOutputBytes(0)).hasMessageContaining("maxOutputBytes");
        assertThatThrownBy(() -> d.withMaxFileBytes(-1)).hasMessageContaining("maxFileBytes");
    }

    @Test
    void loweringTheWallTimeLowersTheCpuTimeWithIt() {
        ResourceLimits l = ResourceLimits.defaults().withWallTime(Duration.ofMillis(500));
        assertThat(l.cpuTime()).isEqualTo(Duration.ofMillis(500));
        ResourceLimits raised = l.withWallTime(Duration.ofSeconds(30));
        assertThat(raised.cpuTime()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void requestCopiesArgsAndTreatsNullStdinAsEmpty() {
        var args = new java.util.ArrayList<>(List.of("a"));
        ExecutionRequest r = new ExecutionRequest(new Program(Language.PYTHON, "x"), null, args, ResourceLimits.defaults());
        args.add("b");
        assertThat(r.args()).containsExactly("a");
        assertThat(r.stdin()).isEmpty();
        assertThatThrownBy(() -> new ExecutionRequest(r.program(), "", List.of("a\0"), r.limits()))
                .hasMessageContaining("NUL");
    }
}
