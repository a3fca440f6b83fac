package dev.codeagent.store.postgres;

import dev.codeagent.application.spi.ConfigSection;
import java.time.Duration;

/**
 * Settings of the PostgreSQL store: config section {@code store.postgres}.
 *
 * @param jdbcUrl where the database is, e.g. {@code jdbc:postgresql://db.internal:5432/codeagent}
 * @param user the role to connect as
 * @param password its password (masked when the config is shown); empty for trust or peer login
 * @param poolSize the most connections this process holds at once
 * @param heartbeat how often this process tells the database it is alive
 * @param leaseTimeout how long without a heartbeat before this process's runs count as interrupted;
 *     several heartbeats long, so one slow beat or a short database restart is not taken for a death
 * @param onLeaseLoss what becomes of a queued run whose worker lost its lease: {@code TAKEOVER} (the
 *     next worker goes on from its last recorded attempt) or {@code ERROR} (it ends ERROR, saying so)
 */
public record PostgresStoreConfig(String jdbcUrl, String user, String password, int poolSize, Duration heartbeat,
        Duration leaseTimeout, LeaseLoss onLeaseLoss) {

    /** What becomes of a claimed run whose worker stopped beating. */
    public enum LeaseLoss { TAKEOVER, ERROR }

    /** Where these settings live in the config. */
    public static final ConfigSection<PostgresStoreConfig> SECTION =
            new ConfigSection<>("store.postgres", PostgresStoreConfig.class, defaults()).withSecret("password");

    public PostgresStoreConfig {
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("store.postgres.jdbcUrl must start with jdbc:postgresql:, was " + jdbcUrl);
        }
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("store.postgres.user must not be empty");
        }
        if (password == null) {
            password = "";
        }
        if (poolSize < 4 || poolSize > 100) {
            // up to three connections are held listening (run changes, new work, cancels); the rest serve calls
            throw new IllegalArgumentException("store.postgres.poolSize must be between 4 and 100, was " + poolSize);
        }
        if (heartbeat == null || heartbeat.toMillis() < 100) {
            throw new IllegalArgumentException("store.postgres.heartbeat must be at least 100ms, was " + heartbeat);
        }
        if (leaseTimeout == null || leaseTimeout.compareTo(heartbeat.multipliedBy(3)) < 0) {
            throw new IllegalArgumentException("store.postgres.leaseTimeout must be at least three heartbeats ("
                    + heartbeat.multipliedBy(3) + "), was " + leaseTimeout);
        }
        if (onLeaseLoss == null) {
            throw new IllegalArgumentException("store.postgres.onLeaseLoss must be TAKEOVER or ERROR");
        }
    }

    /** These settings with another lease-loss policy. */
    public PostgresStoreConfig withOnLeaseLoss(LeaseLoss policy) {
        return new PostgresStoreConfig(jdbcUrl, user, password, poolSize, heartbeat, leaseTimeout, policy);
    }

    public static PostgresStoreConfig defaults() {
        return new PostgresStoreConfig("jdbc:postgresql://localhost:5432/codeagent", "codeagent", "", 8,
                Duration.ofSeconds(2), Duration.ofSeconds(15), LeaseLoss.TAKEOVER);
    }

    @Override
    public String toString() {
        return "PostgresStoreConfig[jdbcUrl=" + jdbcUrl + ", user=" + user + ", password=***, poolSize=" + poolSize
                + ", heartbeat=" + heartbeat + ", leaseTimeout=" + leaseTimeout + ", onLeaseLoss=" + onLeaseLoss + "]";
    }
}
