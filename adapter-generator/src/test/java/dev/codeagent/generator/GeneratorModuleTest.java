package dev.codeagent.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Provider;
import com.google.inject.ProvisionException;
import com.google.inject.TypeLiteral;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.spi.AdapterBindings;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.domain.solving.Task;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class GeneratorModuleTest {

    private static final TypeLiteral<Map<String, Provider<CodeGenerator>>> GENERATORS = new TypeLiteral<>() { };

    private static CodeAgentConfig config(String yaml) {
        return new ConfigLoader().parse(yaml);
    }

    private static Map<String, Provider<CodeGenerator>> generators(CodeAgentConfig cfg) {
        Injector injector = Guice.createInjector(new GeneratorModule(), binder -> binder.bind(CodeAgentConfig.class).toInstance(cfg));
        return injector.getInstance(Key.get(GENERATORS));
    }

    @Test
    void registersOpenAiAndReplayAndBuildsEachFromTheConfig() {
        String fixture = ReplayGeneratorTest.fixture().toString();
        Map<String, Provider<CodeGenerator>> generators = generators(config(
                "generator:\n  openai: {baseUrl: 'http://127.0.0.1:9/v1/', model: tiny}\n  replay: {file: '" + fixture + "'}\n"));

        assertThat(generators).containsOnlyKeys("openai", "replay");
        assertThat(generators.get("openai").get()).isInstanceOf(OpenAiCompatibleGenerator.class)
                .extracting(CodeGenerator::describe).isEqualTo("openai:tiny@http://127.0.0.1:9/v1");
        CodeGenerator replay = generators.get("replay").get();
        assertThat(replay.generate(new GenerationRequest(Task.of("mean"), List.of()))).contains("def mean(xs)");
        assertThat(generators.get("replay").get()).isSameAs(replay);
    }

    @Test
    void buildsNothingUntilAskedSoAnUnsetReplayFileOnlyFailsWhenReplayIsChosen() {
        Map<String, Provider<CodeGenerator>> generators = generators(CodeAgentConfig.defaults());

        assertThat(generators.get("openai").get()).isInstanceOf(OpenAiCompatibleGenerator.class);
        assertThatThrownBy(() -> generators.get("replay").get())
                .isInstanceOf(ProvisionException.class)
                .hasRootCauseInstanceOf(ConfigException.class)
                .rootCause().hasMessageContaining("generator.replay.file");
    }

    @Test
    void isFoundByServiceLoader() {
        Set<String> found = ServiceLoader.load(AdapterModule.class).stream()
                .map(p -> p.type().getName()).collect(Collectors.toSet());

        assertThat(found).contains(GeneratorModule.class.getName());
    }

    @Test
    void composesIntoCodeAgentFromTheClasspath() {
        CodeAgentConfig cfg = config("sandbox: {kind: inert}\ngenerator:\n  kind: replay\n  replay: {file: '"
                + ReplayGeneratorTest.fixture() + "'}\n");
        // no sandbox adapter is on this module's classpath; the agent needs one to be built at all
        AbstractModule inertSandbox = new AbstractModule() {
            @Override
            protected void configure() {
                AdapterBindings.sandbox(binder(), "inert").toInstance(new InertSandbox());
            }
        };

        try (CodeAgent agent = CodeAgent.builder(cfg).module(inertSandbox).build()) {
            assertThat(agent.knownKeys("generator")).containsExactly("openai", "replay");
            assertThat(agent.generator()).isInstanceOf(ReplayGenerator.class)
                    .extracting(CodeGenerator::describe).isEqualTo("replay:mean.jsonl");
        }
    }

    /** Satisfies the composition's need for a sandbox; never asked to run anything here. */
    private static final class InertSandbox implements Sandbox {
        @Override
        public String tier() {
            return "inert";
        }

        @Override
        public Set<Language> languages() {
            return Set.of();
        }

        @Override
        public Isolation isolation() {
            return new Isolation("inert", Set.of(), Set.of());
        }

        @Override
        public Execution execute(ExecutionRequest request) {
            throw new SandboxUnavailableException("the inert sandbox runs nothing");
        }

        @Override
        public void close() {
        }
    }
}
