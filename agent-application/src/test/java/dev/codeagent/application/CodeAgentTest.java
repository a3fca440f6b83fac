package dev.codeagent.application;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.application.testing.SandboxProviders;
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

    private CodeAgent.Builder scripted(CodeAgent.Builder builder) {
        return builder
                .provider(SandboxProviders.of("scripted", () -> {
                    sandboxesBuilt.incrementAndGet();
                    return sandbox;
                }))
                .provider(SandboxProviders.of("never", () -> {
                    throw new AssertionError("an unconfigured sandbox was built");
                }))
                .provider(SandboxProviders.of("unavailable", () -> {
                    throw new dev.codeagent.domain.execution.SandboxUnavailableException("no engine here");
                }));
    }

    private CodeAgentConfig config(String yaml) {
        return new ConfigLoader().parse(yaml);
    }

    @Test
    void picksTheConfiguredSandboxAndBuildsOnlyIt() {
        try (CodeAgent agent = scripted(CodeAgent.builder(config("sandbox: {kind: scripted}")).withoutDiscovery()).build()) {
            assertThat(agent.sandbox()).isSameAs(sandbox);
            assertThat(agent.executeCode().execute(ExecutionRequest.of(Language.PYTHON, "print(1)")).outcome())
                    .isEqualTo(Outcome.OK);
            assertThat(sandboxesBuilt).hasValue(1);
            assertThat(agent.knownKeys("sandbox")).containsExactly("never", "scripted", "unavailable");
        }
        assertThat(sandbox.closed()).isTrue();
    }

    @Test
    void aTierWithoutSessionsSaysSoAndNamesTheOneThatHasThem() {
        try (CodeAgent agent = scripted(CodeAgent.builder(config("sandbox: {kind: scripted}")).withoutDiscovery()).build()) {
            assertThatThrownBy(() -> agent.openSession(dev.codeagent.domain.session.SessionLimits.defaults()))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessage("the " + sandbox.tier() + " sandbox hosts no sessions; set sandbox.kind: process or docker for sessions");
        }
    }

    @Test
    void anUnknownSandboxKeyFailsAtStartListingTheKnownOnes() {
        assertThatThrownBy(() -> scripted(CodeAgent.builder(config("sandbox: {kind: dockr}")).withoutDiscovery()).build())
                .isInstanceOf(ConfigException.class)
                .hasMessage("sandbox.kind: unknown 'dockr'; known: never, scripted, unavailable");
    }

    @Test
    void aSandboxThatCannotRunHereFailsWithItsOwnOneLineMessageWhenFirstNeeded() {
        CodeAgent agent = scripted(CodeAgent.builder(config("sandbox: {kind: unavailable}\nstore: {kind: memory}"))
                .withoutDiscovery()).build();
        assertThat(agent.runLog().recent(10, null)).isEmpty();
        assertThatThrownBy(agent::executeCode)
                .isInstanceOf(dev.codeagent.domain.execution.SandboxUnavailableException.class)
                .hasMessage("no engine here");
    }

    @Test
    void theGeneratorIsOnlyNeededWhenSolving() {
        try (CodeAgent agent = scripted(CodeAgent.builder(config("sandbox: {kind: scripted}\ngenerator: {kind: openai}"))
                .withoutDiscovery()).build()) {
            assertThat(agent.executeCode()).isNotNull();
            assertThatThrownBy(agent::generator)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("generator.kind: unknown 'openai'")
                    .hasMessageContaining("no adapter");
        }
    }

    @Test
    void solvesWithAnEmbeddedGeneratorAndTheMemoryStore() {
        try (CodeAgent agent = scripted(CodeAgent.builder(config("sandbox: {kind: scripted}\nstore: {kind: memory}"))
                .withoutDiscovery())
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
