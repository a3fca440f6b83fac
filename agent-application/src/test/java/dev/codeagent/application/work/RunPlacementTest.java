package dev.codeagent.application.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verifyNoInteractions;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.config.SolveConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.policy.CodePolicy;
import jakarta.inject.Provider;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The rule every door follows: {@code sandbox.kind: queue} sends runs whole to the run queue and builds no agent loop. */
class RunPlacementTest {

    private final AtomicInteger loopsBuilt = new AtomicInteger();
    private final Provider<SolveTask> loop = () -> {
        loopsBuilt.incrementAndGet();
        return new SolveTask(request -> "```python\nprint(1)\n```",
                new ExecuteCode(new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "1\n", "")), CodePolicy.permissive(), 1 << 20,
                        1, Duration.ofSeconds(1)),
                new InMemoryRunLog(), SolveConfig.defaults(), Clock.systemUTC());
    };

    private static CodeAgentConfig config(String yaml) {
        return new ConfigLoader(List.of()).parse(yaml);
    }

    @Test
    void onTheQueueRunsGoWholeToTheWorkersAndNoLoopIsBuilt() {
        WorkQueue queue = mock(WorkQueue.class);
        RunPlacement placement = new RunPlacement(config("sandbox: {kind: queue}\nstore: {kind: postgres}"), Optional.of(queue), loop);
        assertThat(placement.queue()).containsSame(queue);
        var agentLoop = placement.agentLoop();
        assertThatThrownBy(agentLoop::get).isInstanceOf(IllegalStateException.class).hasMessageContaining("sandbox.kind: queue");
        assertThat(loopsBuilt).as("no generator or sandbox made for runs the workers solve").hasValue(0);
        verifyNoInteractions(queue);
    }

    @Test
    void withAnyOtherTierRunsAreSolvedHereEvenOverAStoreThatKeepsAQueue() {
        RunPlacement placement = new RunPlacement(config("sandbox: {kind: process}\nstore: {kind: postgres}"),
                Optional.of(mock(WorkQueue.class)), loop);
        assertThat(placement.queue()).isEmpty();
        var agentLoop = placement.agentLoop();
        assertThat(loopsBuilt).as("built at once, so a generator that cannot be made fails at start").hasValue(1);
        assertThat(agentLoop.get()).isSameAs(agentLoop.get());
        assertThat(loopsBuilt).hasValue(1);
    }

    @Test
    void theQueueOverAStoreWithoutOneFailsInOneLineNamingTheStore() {
        assertThatThrownBy(() -> new RunPlacement(config("sandbox: {kind: queue}\nstore: {kind: sqlite}"), Optional.empty(), loop))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sandbox.kind: queue runs programs on workers, which needs a store they share; store.kind 'sqlite'"
                        + " keeps no queue for other processes; set store.kind: postgres");
    }
}
