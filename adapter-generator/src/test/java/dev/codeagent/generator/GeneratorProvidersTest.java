package dev.codeagent.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.GeneratorProvider;
import dev.codeagent.application.testing.SandboxProviders;
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

class GeneratorProvidersTest {

    private static CodeAgentConfig config(String yaml) {
        return new ConfigLoader().parse(yaml);
    }

    private static CodeAgent agent(CodeAgentConfig cfg) {
        // no sandbox adapter is on this module's classpath; the agent needs one to be built at all
        return CodeAgent.builder(cfg).provider(SandboxProviders.of("inert", InertSandbox::new)).build();
    }

    @Test
    void registersOpenAiAndReplayAndBuildsEachFromTheConfig() {
        String fixture = ReplayGeneratorTest.fixture().toString();
        String sections = "  openai: {baseUrl: 'http://127.0.0.1:9/v1/', model: tiny}\n  replay: {file: '" + fixture + "'}\n";
        try (CodeAgent openai = agent(config("sandbox: {kind: inert}\ngenerator:\n  kind: openai\n" + sections))) {
            assertThat(openai.knownKeys("generator")).containsExactly("openai", "replay");
            assertThat(openai.generator()).isInstanceOf(OpenAiCompatibleGenerator.class)
                    .extracting(CodeGenerator::describe).isEqualTo("openai:tiny@http://127.0.0.1:9/v1");
        }
        try (CodeAgent agent = agent(config("sandbox: {kind: inert}\ngenerator:\n  kind: replay\n" + sections))) {
            CodeGenerator replay = agent.generator();
            assertThat(replay.generate(new GenerationRequest(Task.of("mean"), List.of()))).contains("def mean(xs)");
            assertThat(agent.generator()).isSameAs(replay);
        }
    }

    @Test
    void buildsNothingUntilAskedSoAnUnsetReplayFileOnlyFailsWhenReplayIsChosen() {
        CodeAgentConfig defaults = CodeAgentConfig.defaults();

        assertThat(new OpenAiGeneratorProvider().create(defaults.section(OpenAiConfig.SECTION)))
                .isInstanceOf(OpenAiCompatibleGenerator.class);
        ReplayGeneratorProvider replay = new ReplayGeneratorProvider();
        assertThatThrownBy(() -> replay.create(defaults.section(replay.config())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("generator.replay.file");
    }

    @Test
    void isFoundByServiceLoader() {
        Set<String> found = ServiceLoader.load(AdapterModule.class).stream()
                .map(p -> p.type().getName()).collect(Collectors.toSet());

        assertThat(found).contains(GeneratorModule.class.getName());
    }

    @Test
    void ownsItsConfigSectionsWithTheirKeysAndShortNames() {
        ConfigLoader loader = new ConfigLoader();
        assertThat(loader.keys()).contains("generator.openai.baseUrl", "generator.openai.model", "generator.openai.apiKey",
                "generator.openai.timeout", "generator.replay.file");
        CodeAgentConfig c = loader.load(java.util.Optional.empty(),
                Map.of("CODEAGENT_LLM_MODEL", "llama3", "CODEAGENT_LLM_API_KEY", "sk-secret"), Map.of());
        assertThat(c.section(OpenAiConfig.SECTION).model()).isEqualTo("llama3");
        assertThat(c.section(OpenAiConfig.SECTION).apiKey()).isEqualTo("sk-secret");
        assertThat(loader.describe(c).toString()).doesNotContain("sk-secret").contains("***");
        assertThat(c.section(OpenAiConfig.SECTION).toString()).doesNotContain("sk-secret");
    }

    @Test
    void composesIntoCodeAgentFromTheClasspath() {
        CodeAgentConfig cfg = config("sandbox: {kind: inert}\ngenerator:\n  kind: replay\n  replay: {file: '"
                + ReplayGeneratorTest.fixture() + "'}\n");

        try (CodeAgent agent = agent(cfg)) {
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
