package dev.codeagent.application.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import com.google.inject.multibindings.OptionalBinder;
import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.compile.CompilingSandbox;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.application.work.QueueSandboxModule;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CompositionTest {

    static final List<String> closed = new CopyOnWriteArrayList<>();
    static final AtomicInteger generatorsBuilt = new AtomicInteger();

    /** An adapter module as an adapter writes one: a scripted tier and a generator that must never be built. */
    public static class ScriptedModule extends AdapterModule {
        @Override
        public List<ConfigSection<?>> sections() {
            return List.of();
        }

        @ProvidesIntoMap
        @StringMapKey("scripted")
        @LazySingleton
        Sandbox scripted(Closer closer) {
            return closer.register(new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "1\n", "")));
        }

        @ProvidesIntoMap
        @StringMapKey("hiccuping")
        @LazySingleton
        Sandbox hiccuping() {
            return new ScriptedSandbox(r -> Execution.sandboxError("the engine hiccuped", Duration.ZERO, ScriptedSandbox.ISOLATION));
        }

        @ProvidesIntoMap
        @StringMapKey("keyless")
        @LazySingleton
        CodeGenerator keyless() {
            generatorsBuilt.incrementAndGet();
            throw new IllegalArgumentException("generator.openai.apiKey is not set; set CODEAGENT_LLM_API_KEY");
        }
    }

    private static CodeAgentConfig config(String yaml) {
        return new ConfigLoader(List.of()).parse(yaml);
    }

    @Test
    void singletonsStayLazyInTheProductionStageSoAnExecutorNeedsNoGenerator() {
        Closer closer = new Closer();
        Injector injector = Guice.createInjector(Stage.PRODUCTION,
                CodeAgentModules.of(config("sandbox: {kind: scripted}\ngenerator: {kind: keyless}"), List.of(new ScriptedModule()), closer));

        assertThat(injector.getInstance(ExecuteCode.class).execute(ExecutionRequest.of(Language.PYTHON, "print(1)")).outcome())
                .isEqualTo(Outcome.OK);
        assertThat(generatorsBuilt).hasValue(0);
        assertThat(injector.getInstance(ExecuteCode.class)).isSameAs(injector.getInstance(ExecuteCode.class));
        closer.close();
    }

    /** Compilation goes on once, at the root: the executor's sandbox is the configured tier under one decorator. */
    @Test
    void theExecutorCompilesOverTheConfiguredSandboxOnce() {
        try (Composition root = root("sandbox: {kind: scripted}")) {
            Sandbox executing = root.get(ExecuteCode.class).sandbox();
            assertThat(executing).isInstanceOf(CompilingSandbox.class);
            assertThat(((CompilingSandbox) executing).wrapped()).isSameAs(root.get(Sandbox.class));
        }
    }

    @Test
    void aGuiceUserOverridesTheGeneratorAndSolves() {
        Closer closer = new Closer();
        Injector injector = Guice.createInjector(
                CodeAgentModules.of(config("sandbox: {kind: scripted}\ngenerator: {kind: keyless}\nstore: {kind: memory}"),
                        List.of(new ScriptedModule()), closer),
                new AbstractModule() {
                    @Override
                    protected void configure() {
                        OptionalBinder.newOptionalBinder(binder(), CodeGenerator.class).setBinding()
                                .toInstance(request -> "```python\nprint(1)\n```");
                    }
                });

        var run = injector.getInstance(SolveTask.class).solve(Task.of("print one"), event -> { });

        assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
        assertThat(generatorsBuilt).hasValue(0);
        closer.close();
    }

    @Test
    void aProvidersOwnOneLineErrorReachesTheCallerUnwrappedThroughNestedProvisions() {
        try (Composition root = root("sandbox: {kind: scripted}\ngenerator: {kind: keyless}\nstore: {kind: memory}")) {
            assertThatThrownBy(() -> root.get(SolveTask.class))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage("generator.openai.apiKey is not set; set CODEAGENT_LLM_API_KEY");
        }
    }

    @Test
    void whatProvidersOpenedIsClosedNewestFirst() {
        Closer closer = new Closer();
        closer.register((AutoCloseable) () -> closed.add("store"));
        closer.register((AutoCloseable) () -> {
            closed.add("sandbox");
            throw new IllegalStateException("a failing close does not stop the others");
        });
        closer.register("not closeable");
        closer.register((AutoCloseable) () -> closed.add("pool"));
        closed.clear();

        closer.close();
        closer.close();

        assertThat(closed).containsExactly("pool", "sandbox", "store");
    }

    @Test
    void theQueueSandboxNeedsAStoreWithAQueueAndSaysWhichKeyToSet() {
        try (Composition root = root("sandbox: {kind: queue}\nstore: {kind: memory}")) {
            assertThat(root.knownKeys("sandbox")).containsExactly("hiccuping", "queue", "scripted");
            assertThatThrownBy(() -> root.get(ExecuteCode.class))
                    .isExactlyInstanceOf(ConfigException.class)
                    .hasMessage("sandbox.kind: queue runs programs on workers, which needs a store they share; "
                            + "store.kind 'memory' keeps no queue for other processes; set store.kind: postgres");
        }
    }

    @Test
    void twoAdaptersClaimingOneKeyFailInOneLine() {
        assertThatThrownBy(() -> Composition.create(config("sandbox: {kind: scripted}"),
                List.of(new ScriptedModule(), new ScriptedModule() { }), EmbeddingModule.Embedding.none()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("composing codeagent failed: ")
                .hasMessageNotContaining("\n");
    }

    @Test
    void theSandboxRetriesComeFromTheResilienceSectionWithTodaysValuesAsDefaults() {
        for (var c : List.of(new Object[] {"sandbox: {kind: hiccuping}", 3},
                new Object[] {"sandbox: {kind: hiccuping}\nresilience: {sandboxAttempts: 5, sandboxRetryWait: 1ms}", 5})) {
            try (Composition root = root((String) c[0])) {
                Execution e = root.get(ExecuteCode.class).execute(ExecutionRequest.of(Language.PYTHON, "print(1)"));
                assertThat(e.outcome()).isEqualTo(Outcome.SANDBOX_ERROR);
                assertThat(((ScriptedSandbox) root.get(Sandbox.class)).requests()).hasSize((Integer) c[1]);
            }
        }
    }

    @Test
    void aBadResilienceValueIsOneLineNamingTheKeyBeforeAnyInjectorExists() {
        assertThatThrownBy(() -> config("resilience: {llmFailureRate: 0}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("resilience.llmFailureRate is a percentage from 1 to 100, was 0")
                .hasMessageNotContaining("\n");
    }

    private static Composition root(String yaml) {
        return Composition.create(config(yaml), List.of(new ScriptedModule(), new QueueSandboxModule()),
                EmbeddingModule.Embedding.none());
    }
}
