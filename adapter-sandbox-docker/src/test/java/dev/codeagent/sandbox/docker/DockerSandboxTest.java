package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.application.spi.SandboxProvider;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
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
        DockerSandboxProvider provider = new DockerSandboxProvider();
        assertThat(provider.key()).isEqualTo("docker");
        assertThat(provider.config().path()).isEqualTo("sandbox.docker");
        assertThat(provider.config().defaults()).isEqualTo(DockerSandboxConfig.defaults());
    }

    @Test
    void buildsFromItsOwnSectionAndTheSharedSettings() {
        DockerSandboxConfig nowhere = new DockerSandboxConfig("unix:///nonexistent/codeagent-docker.sock", "any:latest", 0, 1.0,
                ByteSize.ofMiB(64));
        assertThatThrownBy(() -> new DockerSandboxProvider().create(nowhere,
                new SandboxSettings(IsolationMode.BEST_EFFORT, ResourceLimits.defaults())))
                .isInstanceOf(SandboxUnavailableException.class)
                .hasMessageContaining("unix:///nonexistent/codeagent-docker.sock");
    }

    @Test
    void runsOnRuncUnlessRunscIsAskedForAndRefusesAnyOtherRuntime() {
        assertThat(DockerSandboxConfig.defaults().runtime()).isEqualTo("runc");
        assertThat(DockerSandboxConfig.defaults().withRuntime(null).runtime()).isEqualTo("runc");
        assertThat(DockerSandboxConfig.defaults().withRuntime("runsc").gvisor()).isTrue();
        assertThatThrownBy(() -> DockerSandboxConfig.defaults().withRuntime("kata"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sandbox.docker.runtime must be runc or runsc, was kata");
    }

    @Test
    void findsTheArgumentsTheEngineRunsARuntimeWithAndSaysHowToRegisterRunsc() {
        Map<String, Object> info = Map.of("Runtimes", Map.of("runc", Map.of("path", "runc"),
                "runsc", Map.of("path", "/usr/bin/runsc", "runtimeArgs", java.util.List.of("--network=none", "--oci-seccomp"))));
        assertThat(IsolationProbe.runtimeArgs(info, "runsc")).contains(java.util.List.of("--network=none", "--oci-seccomp"));
        assertThat(IsolationProbe.runtimeArgs(info, "runc")).contains(java.util.List.of());
        assertThat(IsolationProbe.runtimeArgs(Map.of("Runtimes", Map.of("runc", Map.of())), "runsc")).isEmpty();
        assertThat(IsolationProbe.runtimeArgs(Map.of(), "runc")).as("an engine that lists none has its own").isPresent();
        assertThat(IsolationProbe.REGISTER_RUNSC).contains("/etc/docker/daemon.json", "--network=none", "apt-get install runsc")
                .doesNotContain("\n");
    }

    @Test
    void runsPythonAlwaysAndWhatTheImageSaysItCarries() {
        assertThat(DockerSandbox.languagesOf(Map.of())).containsExactly(Language.PYTHON);
        assertThat(DockerSandbox.languagesOf(Map.of(DockerSandbox.LABEL_LANGUAGES, "python,bash,cobol")))
                .containsExactlyInAnyOrder(Language.PYTHON, Language.BASH);
    }

    @Test
    void aContainerIsAStrayOnlyWhenItsMakerOnThisHostIsGone() {
        String self = StrayContainers.processTag();
        String host = self.split("\\|")[0];
        assertThat(StrayContainers.isStray(self, host)).isFalse();
        assertThat(StrayContainers.isStray(host + "|" + Long.MAX_VALUE + "|1", host)).isTrue();
        assertThat(StrayContainers.isStray("other-host|" + Long.MAX_VALUE + "|1", host)).as("another host's").isFalse();
        long pid = ProcessHandle.current().pid();
        assertThat(StrayContainers.isStray(host + "|" + pid + "|1", host)).as("pid reused by another process").isTrue();
        assertThat(StrayContainers.isStray("garbage", host)).isFalse();
    }
}
