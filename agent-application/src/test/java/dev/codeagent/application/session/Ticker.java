package dev.codeagent.application.session;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

/** A clock the test moves (shared with the tiers' session tests through the test-jar). */
public final class Ticker extends Clock {
    private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

    public void advance(Duration d) {
        now = now.plus(d);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public java.time.ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
        return this;
    }
}
