package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Key;
import com.google.inject.Provider;
import com.google.inject.TypeLiteral;
import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.DockerSandboxConfig;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** What needs no engine: the message without one, the registration, the small rules. */
class DockerSandboxTest {

    @Test
    void saysInOneLineThatNoEngineIsReachableAndHowToStartOne() {
        DockerSandboxConfig nowhere = new DockerSandboxConfig("unix:///nonexistent/codeagent-docker.sock", "any:latest", 0, 1.0,
                ByteSize.ofMiB(64));
        assertThatThrownBy(() -> DockerSandbox.create(nowhere))
                .isInstanceOf(SandboxUnavailableException.class)
                .hasMessageContaining("no Docker engine is reachable at unix:///nonexistent/codeagent-docker.sock")
                .hasMessageContaining("dockerd")
                .hasMessageNotContaining("\n");
    }

    @Test
    void registersUnderTheDockerKeyWithoutTouchingTheEngine() {
        assertThat(ServiceLoader.load(AdapterModule.class).stream().map(ServiceLoader.Provider::type))
                .contains(DockerSandboxModule.class);
        var injector = Guice.createInjector(new DockerSandboxModule(), new AbstractModule() {
            @Override
            protected void configure() {
                bind(CodeAgentConfig.class).toInstance(CodeAgentConfig.defaults());
            }
        });
        Map<String, Provider<Sandbox>> sandboxes = injector.getInstance(Key.get(new TypeLiteral<Map<String, Provider<Sandbox>>>() { }));
        assertThat(sandboxes).containsKey("docker");
    }

    @Test
    void runsPythonAlwaysAndWhatTheImageSaysItCarries() {
        assertThat(DockerSandbox.languagesOf(Map.of())).containsExactly(Language.PYTHON);
        assertThat(DockerSandbox.languagesOf(Map.of(DockerSandbox.LABEL_LANGUAGES, "python,bash,cobol")))
                .containsExactlyInAnyOrder(Language.PYTHON, Language.BASH);
    }

    @Test
    void aContainerIsAStrayOnlyWhenItsMakerOnThisHostIsGone() {
        String self = DockerSandbox.processTag();
        String host = self.split("\\|")[0];
        assertThat(DockerSandbox.isStray(self, host)).isFalse();
        assertThat(DockerSandbox.isStray(host + "|" + Long.MAX_VALUE + "|1", host)).isTrue();
        assertThat(DockerSandbox.isStray("other-host|" + Long.MAX_VALUE + "|1", host)).as("another host's").isFalse();
        long pid = ProcessHandle.current().pid();
        assertThat(DockerSandbox.isStray(host + "|" + pid + "|1", host)).as("pid reused by another process").isTrue();
        assertThat(DockerSandbox.isStray("garbage", host)).isFalse();
    }
}
