package dev.codeagent.application.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PooledSessionsTest {

    /** A session that only knows whether it was closed or ended. */
    static final class Fake implements Session {
        final String id;
        volatile String ended;
        volatile boolean closed;

        Fake(String id) {
            this.id = id;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public SessionLimits limits() {
            return SessionLimits.defaults();
        }

        @Override
        public CellResult execute(Cell cell) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void interrupt() {
        }

        @Override
        public void restart() {
        }

        @Override
        public int restarts() {
            return 0;
        }

        @Override
        public Optional<String> endReason() {
            return Optional.ofNullable(closed ? "closed" : ended);
        }

        @Override
        public void writeFile(String path, byte[] content) {
        }

        @Override
        public byte[] readFile(String path, long maxBytes) {
            return new byte[0];
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private final AtomicInteger opened = new AtomicInteger();
    private final List<Fake> all = new CopyOnWriteArrayList<>();
    private final SessionSandbox tier = new SessionSandbox() {
        @Override
        public String tier() {
            return "fake";
        }

        @Override
        public Session open(SessionLimits limits) {
            Fake f = new Fake("s" + opened.incrementAndGet());
            all.add(f);
            return f;
        }
    };

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }

    /** The session the pool started ahead: the newest one no caller has. */
    private Fake started(List<Session> handedOut) {
        return all.stream().filter(f -> !handedOut.contains(f)).reduce((a, b) -> b).orElseThrow();
    }

    @Test
    void afterTheFirstSessionTheNextIsReadyAndHandedOutWholeOnce() throws Exception {
        try (PooledSessions pool = new PooledSessions(tier, SessionLimits.defaults(), 1)) {
            assertThat(pool.ready()).as("nothing is started before sessions are asked for").isZero();
            Session first = pool.open(SessionLimits.defaults());
            await(() -> pool.ready() == 1);
            Fake ahead = started(List.of(first));
            Session second = pool.open(SessionLimits.defaults());
            assertThat(second).as("the one started ahead").isSameAs(ahead);
            await(() -> pool.ready() == 1);
            Fake next = started(List.of(first, second));
            assertThat(pool.open(SessionLimits.defaults())).isSameAs(next);
            assertThat(List.of(first, second, next)).doesNotHaveDuplicates();
        }
    }

    @Test
    void otherLimitsAreOpenedAsTheyComeAndAnEndedSessionInThePoolIsDroppedAndClosed() throws Exception {
        SessionLimits other = SessionLimits.defaults().withCellTimeout(Duration.ofSeconds(5));
        try (PooledSessions pool = new PooledSessions(tier, SessionLimits.defaults(), 1)) {
            Session first = pool.open(SessionLimits.defaults());
            await(() -> pool.ready() == 1);
            Fake waiting = started(List.of(first));
            assertThat(pool.open(other)).as("not from the pool").isNotSameAs(waiting).isNotSameAs(first);
            assertThat(pool.ready()).isEqualTo(1);
            waiting.ended = "its sandbox was lost";
            Session next = pool.open(SessionLimits.defaults());
            assertThat(next).isNotSameAs(waiting);
            assertThat(waiting.closed).isTrue();
        }
    }

    @Test
    void closingThePoolClosesTheSessionsWaitingInItAndRefusesMore() throws Exception {
        PooledSessions pool = new PooledSessions(tier, SessionLimits.defaults(), 1);
        Session mine = pool.open(SessionLimits.defaults());
        await(() -> pool.ready() == 1);
        Fake waiting = started(List.of(mine));
        pool.close();
        assertThat(waiting.closed).isTrue();
        assertThat(((Fake) mine).closed).as("a handed-out session is its opener's").isFalse();
        assertThatThrownBy(() -> pool.open(SessionLimits.defaults())).isInstanceOf(SandboxUnavailableException.class);
    }
}
