package dev.codeagent.application;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.spi.AdapterBindings;
import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CodeAgentTest {

    private final ScriptedSandbox sandbox = new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "1\n", ""));
    private final AtomicInteger sandboxesBuilt = new AtomicInteger();

    private final AbstractModule scripted = new AbstractModule() {
        @Override
        protected void configure() {
            AdapterBindings.sandbox(binder(), "scripted").toProvider(() -> {
                sandboxesBuilt.incrementAndGet();
                return sandbox;
            });
            AdapterBindings.sandbox(binder(), "never").toProvider(() -> {
                throw new AssertionError("an unconfigured sandbox was built");
            });
            AdapterBindings.sandbox(binder(), "unavailable").toProvider(() -> {
                throw new dev.codeagent.domain.execution.SandboxUnavailableException("no engine here");
            });
        }
    };

    private CodeAgentConfig config(String yaml) {
        return new ConfigLoader().parse(yaml);
    }

    @Test
    void picksTheConfiguredSandboxAndBuildsOnlyIt() {
        try (CodeAgent agent = CodeAgent.builder(config("sandbox: {kind: scripted}")).withoutDiscovery().module(scripted).build()) {
            assertThat(agent.sandbox()).isSameAs(sandbox);
            assertThat(agent.executeCode().execute(ExecutionRequest.of(Language.PYTHON, "print(1)")).outcome())
                    .isEqualTo(Outcome.OK);
            assertThat(sandboxesBuilt).hasValue(1);
            assertThat(agent.knownKeys("sandbox")).containsExactly("never", "scripted", "unavailable");
        }
        assertThat(sandbox.closed()).isTrue();
    }

    @Test
    void anUnknownSandboxKeyFailsAtStartListingTheKnownOnes() {
        assertThatThrownBy(() -> CodeAgent.builder(config("sandbox: {kind: dockr}")).withoutDiscovery().module(scripted).build())
                .isInstanceOf(ConfigException.class)
                .hasMessage("sandbox.kind: unknown 'dockr'; known: never, scripted, unavailable");
    }

    @Test
    void aSandboxThatCannotRunHereFailsWithItsOwnOneLineMessageWhenFirstNeeded() {
        CodeAgent agent = CodeAgent.builder(config("sandbox: {kind: unavailable}\nstore: {kind: memory}"))
                .withoutDiscovery().module(scripted).build();
        assertThat(agent.runLog().recent(10, null)).isEmpty();
        assertThatThrownBy(agent::executeCode)
                .isInstanceOf(dev.codeagent.domain.execution.SandboxUnavailableException.class)
                .hasMessage("no engine here");
    }

    @Test
    void theGeneratorIsOnlyNeededWhenSolving() {
        try (CodeAgent agent = CodeAgent.builder(config("sandbox: {kind: scripted}\ngenerator: {kind: openai}"))
                .withoutDiscovery().module(scripted).build()) {
            assertThat(agent.executeCode()).isNotNull();
            assertThatThrownBy(agent::generator)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("generator.kind: unknown 'openai'")
                    .hasMessageContaining("no adapter");
        }
    }

    @Test
    void solvesWithAnEmbeddedGeneratorAndTheMemoryStore() {
        try (CodeAgent agent = CodeAgent.builder(config("sandbox: {kind: scripted}\nstore: {kind: memory}"))
                .withoutDiscovery().module(scripted)
                .generator(request -> "```python\nprint(1)\n```")
                .build()) {
            assertThat(agent.runLog()).isInstanceOf(InMemoryRunLog.class);
            var run = agent.solveTask().solve(Task.of("print one"), event -> { });
            assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
            assertThat(agent.runLog().find(run.id())).isPresent();
            assertThat(agent.solveTask()).isSameAs(agent.solveTask());
        }
    }
}
