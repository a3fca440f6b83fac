package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.application.session.OpenSession;
import dev.codeagent.application.session.OpenSessions;
import dev.codeagent.application.session.SessionPlaces;
import dev.codeagent.application.session.Ticker;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The application's session registry over a real kernel bridge (the kit's side of what OpenSessionsTest fakes). */
class OpenSessionsOverABridgeTest {

    private final Ticker clock = new Ticker();
    private OpenSessions registry;

    @AfterEach
    void closeAll() {
        if (registry != null) {
            registry.close();
        }
    }

    /** With a real kernel: a session the idle clock closes is gone (its kernel dead), and its place is free. */
    @Test
    void theIdleClockEndsARealKernel() {
        assumeTrue(LocalBridge.available(), "Debian's python3 with ipykernel is needed for a real kernel");
        SessionSandbox local = new SessionSandbox() {
            @Override
            public String tier() {
                return "local";
            }

            @Override
            public Session open(SessionLimits limits) {
                return LocalBridge.open(limits);
            }
        };
        registry = new OpenSessions(Optional.of(local), "local", new SessionPlaces(1, 1, 0), clock);
        OpenSession s = registry.open("kernel", SessionLimits.defaults());
        assertThat(s.use(x -> x.execute(new Cell("x = 6 * 7\nx"))).status()).isEqualTo(CellStatus.OK);

        clock.advance(SessionLimits.defaults().idleTimeout());
        registry.sweep();

        assertThat(s.endReason()).hasValueSatisfying(why -> assertThat(why).contains("idle"));
        assertThatThrownBy(() -> s.session().execute(new Cell("x")))
                .isInstanceOf(dev.codeagent.domain.session.SessionEndedException.class);
        OpenSession next = registry.open("kernel", SessionLimits.defaults());
        assertThat(next.use(x -> x.execute(new Cell("'x' in dir()"))).outputs().toString()).contains("False");
    }
}
