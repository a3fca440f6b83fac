package dev.codeagent.application.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.session.PooledSessionsTest.Fake;
import dev.codeagent.application.session.SessionRefusedException.Reason;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenSessionsTest {

    private final Ticker clock = new Ticker();
    private final List<Fake> made = new CopyOnWriteArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final SessionSandbox fakes = new SessionSandbox() {
        @Override
        public String tier() {
            return "fake";
        }

        @Override
        public Session open(SessionLimits limits) {
            Fake f = new Fake("s" + ids.incrementAndGet());
            made.add(f);
            return f;
        }
    };
    private OpenSessions registry;

    private OpenSessions registry(SessionPlaces places) {
        registry = new OpenSessions(Optional.of(fakes), "fake", places, clock);
        return registry;
    }

    @AfterEach
    void close() {
        if (registry != null) {
            registry.close();
        }
    }

    @Test
    void anotherOwnersIdIsNotFoundAndCannotBeClosed() {
        OpenSessions r = registry(new SessionPlaces(4, 4, 0));
        OpenSession a = r.open("alice", SessionLimits.defaults());

        assertThat(r.find("alice", a.id())).contains(a);
        assertThat(r.find("bob", a.id())).as("another owner's id answers as an id that does not exist").isEmpty();
        assertThat(r.find("bob", "no-such-id")).isEmpty();
        assertThat(r.close("bob", a.id())).isFalse();
        assertThat(r.list("bob")).isEmpty();
        assertThat(made.get(0).closed).as("bob's close did not touch alice's session").isFalse();
        assertThat(r.list("alice")).containsExactly(a);

        assertThat(r.close("alice", a.id())).isTrue();
        assertThat(made.get(0).closed).isTrue();
        assertThat(r.find("alice", a.id())).isEmpty();
    }

    @Test
    void refusesPastTheOwnersShareNamingOnlyTheOwnersCount() {
        OpenSessions r = registry(new SessionPlaces(3, 1, 0));
        r.open("alice", SessionLimits.defaults());

        assertThatThrownBy(() -> r.open("alice", SessionLimits.defaults()))
                .isInstanceOfSatisfying(SessionRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.OWNER_FULL);
                    assertThat(e.limit()).isEqualTo(1);
                })
                .hasMessageContaining("at most 1 session live")
                .hasMessageNotContaining("3");
        // the owner's refusal took no place: another owner still opens
        assertThat(r.open("bob", SessionLimits.defaults()).owner()).isEqualTo("bob");
        assertThat(made).hasSize(2);
    }

    @Test
    void refusesPastTheTotalAndGivesThePlaceBackWhenOneCloses() {
        OpenSessions r = registry(new SessionPlaces(2, 2, 0));
        OpenSession a = r.open("alice", SessionLimits.defaults());
        r.open("bob", SessionLimits.defaults());

        assertThatThrownBy(() -> r.open("carol", SessionLimits.defaults()))
                .isInstanceOfSatisfying(SessionRefusedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.ALL_FULL))
                .hasMessageContaining("every session place is taken");

        r.close("alice", a.id());
        assertThat(r.open("carol", SessionLimits.defaults()).owner()).isEqualTo("carol");
    }

    @Test
    void aSessionThatEndedByItselfGivesItsPlaceBack() {
        OpenSessions r = registry(new SessionPlaces(1, 1, 0));
        OpenSession a = r.open("alice", SessionLimits.defaults());
        made.get(0).ended = "its sandbox was lost";

        OpenSession b = r.open("alice", SessionLimits.defaults());

        assertThat(b.id()).isNotEqualTo(a.id());
        assertThat(r.find("alice", a.id())).as("still found, with why, until forgotten")
                .hasValueSatisfying(s -> assertThat(s.endReason()).contains("its sandbox was lost"));
    }

    @Test
    void offAndNoTierAreOneLineEach() {
        assertThatThrownBy(() -> registry(new SessionPlaces(0, 0, 0)).open("alice", SessionLimits.defaults()))
                .isInstanceOfSatisfying(SessionRefusedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.OFF))
                .hasMessage("sessions are turned off here (at most 0 sessions)");
        registry.close();

        registry = new OpenSessions(Optional.empty(), "queue", new SessionPlaces(4, 4, 0), clock);
        assertThatThrownBy(() -> registry.open("alice", SessionLimits.defaults()))
                .isInstanceOf(SandboxUnavailableException.class)
                .hasMessage("the queue sandbox hosts no sessions; set sandbox.kind: process or docker for sessions");
    }

    @Test
    void theIdleClockClosesAnAbandonedSessionButNotOneInUse() throws Exception {
        OpenSessions r = registry(new SessionPlaces(4, 4, 0));
        Duration idle = SessionLimits.defaults().idleTimeout();
        OpenSession abandoned = r.open("alice", SessionLimits.defaults());
        OpenSession busy = r.open("alice", SessionLimits.defaults());
        CountDownLatch inUse = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<?> cell = caller.submit(() -> busy.use(s -> {
                inUse.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }));
            assertThat(inUse.await(10, TimeUnit.SECONDS)).isTrue();

            clock.advance(idle.minusSeconds(1));
            r.sweep();
            assertThat(abandoned.endReason()).as("one second before its idle time").isEmpty();

            clock.advance(Duration.ofSeconds(1));
            r.sweep();
            assertThat(abandoned.endReason()).contains("the session was idle for " + idle.toSeconds() + " s");
            assertThat(((Fake) abandoned.session()).closed).isTrue();
            assertThat(busy.endReason()).as("a session a call is using is not idle").isEmpty();
            assertThat(r.live()).isEqualTo(1);

            release.countDown();
            cell.get(10, TimeUnit.SECONDS);
            clock.advance(idle.minusSeconds(1));
            r.sweep();
            assertThat(busy.endReason()).as("its idle time starts when the call returns").isEmpty();
            clock.advance(Duration.ofSeconds(1));
            r.sweep();
            assertThat(busy.endReason()).isPresent();
        } finally {
            release.countDown();
            caller.shutdownNow();
        }
    }

    @Test
    void theLifetimeClockClosesEvenASessionInUseAndEndedOnesAreForgottenLater() {
        OpenSessions r = registry(new SessionPlaces(4, 4, 0));
        // the fake sessions keep the default limits: 10 min idle, 1 h lifetime
        OpenSession s = r.open("alice", SessionLimits.defaults());
        for (int i = 0; i < 6; i++) {
            clock.advance(Duration.ofMinutes(9));
            s.use(x -> null);
            r.sweep();
        }
        assertThat(s.endReason()).as("used every 9 minutes, 54 minutes old").isEmpty();

        clock.advance(Duration.ofMinutes(6));
        r.sweep();
        assertThat(s.endReason()).contains("the session reached its maximum lifetime of 3600 s");
        assertThat(r.find("alice", s.id())).as("found with why for a while").isPresent();

        clock.advance(OpenSessions.KEEP_ENDED);
        r.sweep();
        assertThat(r.find("alice", s.id())).isEmpty();
    }

    @Test
    void closingClosesEverySessionAndWhatDoorsKeptBesideThemAndRefusesNewOnes() {
        OpenSessions r = registry(new SessionPlaces(4, 2, 0));
        OpenSession a = r.open("alice", SessionLimits.defaults());
        r.open("bob", SessionLimits.defaults());
        AtomicInteger attachmentClosed = new AtomicInteger();
        a.attachment(AutoCloseable.class, () -> attachmentClosed::incrementAndGet);

        r.close();

        assertThat(made).allSatisfy(f -> assertThat(f.closed).isTrue());
        assertThat(attachmentClosed).hasValue(1);
        assertThatThrownBy(() -> r.open("alice", SessionLimits.defaults()))
                .isInstanceOfSatisfying(SessionRefusedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CLOSED));
    }

    @Test
    void opensAreServedFromTheWarmPoolWhichClosesWithTheRegistry() throws Exception {
        OpenSessions r = registry(new SessionPlaces(4, 4, 1));
        OpenSession first = r.open("alice", SessionLimits.defaults());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (r.ready() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(r.ready()).as("one started ahead once a session was asked for").isEqualTo(1);
        Fake warm = made.get(1);

        OpenSession second = r.open("bob", SessionLimits.defaults());

        assertThat(second.session()).as("handed out from the pool").isSameAs(warm);
        assertThat(second.owner()).isEqualTo("bob");
        assertThat(r.find("alice", second.id())).isEmpty();
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (r.ready() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        r.close();
        assertThat(made).hasSize(3).allSatisfy(f -> assertThat(f.closed).as(f.id).isTrue());
        assertThat(first.endReason()).isPresent();
    }

    @Test
    void concurrentOpensNeverTakeMoreThanTheOwnersShare() throws Exception {
        OpenSessions r = registry(new SessionPlaces(8, 2, 0));
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> tries = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                tries.add(callers.submit(() -> {
                    try {
                        r.open("alice", SessionLimits.defaults());
                        return true;
                    } catch (SessionRefusedException e) {
                        return false;
                    }
                }));
            }
            int opened = 0;
            for (Future<Boolean> t : tries) {
                opened += t.get(10, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertThat(opened).isEqualTo(2);
            assertThat(made).hasSize(2);
        } finally {
            callers.shutdownNow();
        }
    }
}
