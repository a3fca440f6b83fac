package dev.codeagent.application.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.session.PooledSessionsTest.Fake;
import dev.codeagent.application.testing.SandboxProviders;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The registry as the composition binds it: one per agent, over the configured tier's sessions, closed with it. */
class OpenSessionsCompositionTest {

    /** A tier that hosts sessions (fakes) and runs nothing. */
    static final class SessionTier implements Sandbox, SessionSandbox {
        final List<Fake> opened = new CopyOnWriteArrayList<>();

        @Override
        public String tier() {
            return "fake-sessions";
        }

        @Override
        public Set<Language> languages() {
            return Set.of(Language.PYTHON);
        }

        @Override
        public Isolation isolation() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Execution execute(ExecutionRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Session open(SessionLimits limits) {
            Fake f = new Fake("f" + opened.size());
            opened.add(f);
            return f;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void oneRegistryPerAgentOverTheTiersSessionsClosedWithTheAgent() {
        SessionTier tier = new SessionTier();
        OpenSession s;
        // with discovery: the registry's module is found through the services file
        try (CodeAgent agent = CodeAgent.builder(new ConfigLoader().parse("sandbox: {kind: tiered}"))
                .provider(SandboxProviders.of("tiered", () -> tier)).build()) {
            OpenSessions registry = agent.openSessions();
            assertThat(agent.openSessions()).isSameAs(registry);
            assertThat(registry.places()).isEqualTo(SessionPlaces.ONE_OWNER);
            s = registry.open("me", SessionLimits.defaults());
            assertThat(s.session()).isSameAs(tier.opened.get(0));
        }
        assertThat(tier.opened.get(0).closed).as("closing the agent closed its sessions").isTrue();
        assertThat(s.endReason()).isPresent();
    }

    @Test
    void aTierWithoutSessionsIsOneLineNamingIt() {
        ScriptedSandbox plain = new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "", ""));
        try (CodeAgent agent = CodeAgent.builder(new ConfigLoader().parse("sandbox: {kind: plain}"))
                .provider(SandboxProviders.of("plain", () -> plain)).withoutDiscovery().build()) {
            assertThatThrownBy(() -> agent.openSessions().open("me", SessionLimits.defaults()))
                    .isInstanceOf(SandboxUnavailableException.class)
                    .hasMessage("the " + plain.tier() + " sandbox hosts no sessions; set sandbox.kind: process or docker for"
                            + " sessions");
        }
    }
}
