package dev.codeagent.application.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class IdempotencyKeysTest {

    private final MutableClock clock = new MutableClock();
    private final IdempotencyKeys<String> keys = new IdempotencyKeys<>(Duration.ofHours(1), 100, clock);
    private final AtomicInteger done = new AtomicInteger();

    private String work() {
        return "answer " + done.incrementAndGet();
    }

    @Test
    void aRetryWithTheSameKeyAndRequestGetsTheFirstAnswerAndDoesNothing() {
        IdempotencyKeys.Answer<String> first = keys.once("key:a", "k1", "body", this::work);
        IdempotencyKeys.Answer<String> retry = keys.once("key:a", "k1", "body", this::work);
        assertThat(first).isEqualTo(new IdempotencyKeys.Answer<>("answer 1", false));
        assertThat(retry).isEqualTo(new IdempotencyKeys.Answer<>("answer 1", true));
        assertThat(done).hasValue(1);
    }

    @Test
    void theSameKeyWithAnotherRequestIsAConflict() {
        keys.once("key:a", "k1", "body", this::work);
        assertThatThrownBy(() -> keys.once("key:a", "k1", "other body", this::work))
                .isInstanceOf(IdempotencyKeys.ConflictException.class)
                .hasMessageContaining("'k1' was used with another request");
        assertThat(done).hasValue(1);
    }

    @Test
    void keysArePerOwner() {
        keys.once("key:a", "k1", "body", this::work);
        assertThat(keys.once("key:b", "k1", "body", this::work).value()).isEqualTo("answer 2");
        assertThat(keys.once("key:a", "k1", "body", this::work).value()).isEqualTo("answer 1");
        assertThat(keys.once("key:b", "k1", "body", this::work).value()).isEqualTo("answer 2");
    }

    @Test
    void aFailedFirstRequestLeavesNoTraceSoItsRetryIsDoneAfresh() {
        assertThatThrownBy(() -> keys.once("key:a", "k1", "body", () -> {
            throw new IllegalStateException("overloaded");
        })).hasMessage("overloaded");
        assertThat(keys.once("key:a", "k1", "body", this::work)).isEqualTo(new IdempotencyKeys.Answer<>("answer 1", false));
    }

    @Test
    void aRetryWhileTheFirstIsStillBeingDoneWaitsForItsAnswer() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<IdempotencyKeys.Answer<String>> first = CompletableFuture.supplyAsync(() -> keys.once("key:a", "k1",
                "body", () -> {
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return work();
                }));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<IdempotencyKeys.Answer<String>> retry = CompletableFuture.supplyAsync(() -> keys.once("key:a", "k1",
                "body", this::work));
        Thread.sleep(100);
        assertThat(retry).isNotDone();
        release.countDown();
        assertThat(first.get(5, TimeUnit.SECONDS).value()).isEqualTo("answer 1");
        assertThat(retry.get(5, TimeUnit.SECONDS)).isEqualTo(new IdempotencyKeys.Answer<>("answer 1", true));
        assertThat(done).hasValue(1);
    }

    @Test
    void answersAreForgottenAfterTheirTime() {
        keys.once("key:a", "k1", "body", this::work);
        clock.now = clock.now.plus(Duration.ofMinutes(61));
        assertThat(keys.once("key:a", "k1", "other body", this::work)).isEqualTo(new IdempotencyKeys.Answer<>("answer 2", false));
    }

    @Test
    void keepsAtMostMaxKeysDroppingTheOldest() {
        IdempotencyKeys<String> few = new IdempotencyKeys<>(Duration.ofHours(1), 2, clock);
        few.once("o", "k1", "b", this::work);
        few.once("o", "k2", "b", this::work);
        few.once("o", "k3", "b", this::work);
        assertThat(few.size()).isEqualTo(2);
        // k1 was dropped: done again; k3 is kept
        assertThat(few.once("o", "k1", "b", this::work).replayed()).isFalse();
        assertThat(few.once("o", "k3", "b", this::work).replayed()).isTrue();
    }

    @Test
    void refusesKeysThatAreEmptyTooLongOrNotPrintable() {
        assertThat(IdempotencyKeys.problem("")).contains("1 to 255 characters");
        assertThat(IdempotencyKeys.problem("x".repeat(256))).contains("was 256");
        assertThat(IdempotencyKeys.problem("a b")).contains("printable ASCII");
        assertThat(IdempotencyKeys.problem("9b2f4c1e-0d6a-4f3b-8a55-2c7e9d1f0a42")).isNull();
        assertThatThrownBy(() -> keys.once("o", "a\u00e9", "b", this::work)).isInstanceOf(IllegalArgumentException.class);
    }

    private static final class MutableClock extends Clock {
        Instant now = Instant.parse("2026-12-05T07:00:00Z");

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
