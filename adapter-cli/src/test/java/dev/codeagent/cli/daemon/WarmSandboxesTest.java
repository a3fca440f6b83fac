package dev.codeagent.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.testing.SandboxProviders;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WarmSandboxesTest {

    private final ScriptedSandbox scripted = new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "1\n", ""));
    private final AtomicInteger built = new AtomicInteger();
    private final AtomicInteger opened = new AtomicInteger();

    /** A tier that hosts sessions, as the process and docker tiers do. */
    private final class SessionTier implements Sandbox, SessionSandbox {
        @Override
        public String tier() {
            return "sessions";
        }

        @Override
        public Isolation isolation() {
            return scripted.isolation();
        }

        @Override
        public Execution execute(ExecutionRequest request) {
            return scripted.execute(request);
        }

        @Override
        public java.util.Set<Language> languages() {
            return scripted.languages();
        }

        @Override
        public Session open(SessionLimits limits) {
            opened.incrementAndGet();
            throw new IllegalStateException("opened a session in the warm tier");
        }

        @Override
        public void close() {
            scripted.close();
        }
    }

    private WarmSandboxes warm() {
        return new WarmSandboxes(config -> CodeAgent.builder(config).withoutDiscovery()
                .provider(SandboxProviders.of("sessions", () -> {
                    built.incrementAndGet();
                    return new SessionTier();
                })));
    }

    private static CodeAgentConfig config(String yaml) {
        return new ConfigLoader().parse(yaml);
    }

    @Test
    void oneSandboxServesEveryCallOfOneConfigurationAndOutlivesEachCallsAgent() {
        try (WarmSandboxes sandboxes = warm()) {
            for (int i = 0; i < 3; i++) {
                try (CodeAgent agent = sandboxes.apply(config("sandbox: {kind: sessions}\nstore: {kind: memory}"))) {
                    assertThat(agent.executeCode().execute(ExecutionRequest.of(Language.PYTHON, "print(1)")).stdout().text())
                            .isEqualTo("1\n");
                }
            }
            assertThat(built).hasValue(1);
            assertThat(sandboxes.size()).isEqualTo(1);
            assertThat(scripted.closed()).isFalse();
        }
        assertThat(scripted.closed()).isTrue();
    }

    @Test
    void aWarmTierThatHostsSessionsStillHostsThem() {
        try (WarmSandboxes sandboxes = warm();
             CodeAgent agent = sandboxes.apply(config("sandbox: {kind: sessions}\nstore: {kind: memory}"))) {
            assertThat(agent.sandbox()).isInstanceOf(SessionSandbox.class);
            assertThatThrownBy(() -> agent.openSession(SessionLimits.defaults()))
                    .hasMessage("opened a session in the warm tier");
            assertThat(opened).hasValue(1);
        }
    }

    @Test
    void aCallThatNeedsNoSandboxBuildsNone() {
        try (WarmSandboxes sandboxes = warm();
             CodeAgent agent = sandboxes.apply(config("sandbox: {kind: sessions}\nstore: {kind: memory}"))) {
            assertThat(agent.runLog().recent(10, null)).isEmpty();
            assertThat(built).hasValue(0);
            assertThat(sandboxes.size()).isZero();
        }
    }
}
