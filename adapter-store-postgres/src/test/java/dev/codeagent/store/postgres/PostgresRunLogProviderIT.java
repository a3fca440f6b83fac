package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.testing.SandboxProviders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class PostgresRunLogProviderIT {

    @Test
    void isFoundOnTheClasspath() {
        List<Class<?>> found = new ArrayList<>();
        ServiceLoader.load(AdapterModule.class).forEach(m -> found.add(m.getClass()));
        assertThat(found).contains(PostgresStoreModule.class);
    }

    @Test
    void ownsTheStorePostgresSectionWithEnvironmentVariablesAndAMaskedPassword() {
        ConfigLoader loader = new ConfigLoader();
        assertThat(loader.keys()).contains("store.postgres.jdbcUrl", "store.postgres.user", "store.postgres.password",
                "store.postgres.poolSize", "store.postgres.heartbeat", "store.postgres.leaseTimeout");
        CodeAgentConfig c = loader.load(Optional.empty(), Map.of(
                "CODEAGENT_STORE_POSTGRES_JDBC_URL", "jdbc:postgresql://db.internal:5433/runs",
                "CODEAGENT_STORE_POSTGRES_PASSWORD", "s3cret-marker",
                "CODEAGENT_STORE_POSTGRES_POOL_SIZE", "5"), Map.of());
        PostgresStoreConfig own = c.section(PostgresStoreConfig.SECTION);
        assertThat(own.jdbcUrl()).isEqualTo("jdbc:postgresql://db.internal:5433/runs");
        assertThat(own.password()).isEqualTo("s3cret-marker");
        assertThat(own.poolSize()).isEqualTo(5);
        assertThat(own.toString()).doesNotContain("s3cret-marker");
        assertThat(loader.describe(c).toString()).doesNotContain("s3cret-marker");
    }

    @Test
    void refusesBadSettingsNamingTheKey() {
        ConfigLoader loader = new ConfigLoader();
        assertThatThrownBy(() -> loader.load(Optional.empty(), Map.of(), Map.of("store.postgres.jdbcUrl", "jdbc:mysql://x/y")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("store.postgres.jdbcUrl must start with jdbc:postgresql:");
        assertThatThrownBy(() -> loader.load(Optional.empty(), Map.of(), Map.of("store.postgres.poolSize", "3")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("store.postgres.poolSize must be between 4 and 100");
        assertThatThrownBy(() -> new PostgresStoreConfig("jdbc:postgresql://h/d", "u", "", 4, Duration.ofSeconds(2), Duration.ofSeconds(3),
                PostgresStoreConfig.LeaseLoss.TAKEOVER))
                .hasMessageContaining("store.postgres.leaseTimeout must be at least three heartbeats");
    }

    @Test
    void saysInOneLineWhenTheDatabaseCannotBeReached() {
        // a loopback port nobody listens on: nothing outside this machine is touched
        CodeAgentConfig config = new ConfigLoader().parse("sandbox: {kind: none}\nstore: {kind: postgres, postgres: "
                + "{jdbcUrl: 'jdbc:postgresql://127.0.0.1:1/codeagent?password=leaked-marker', user: codeagent}}");
        try (CodeAgent agent = CodeAgent.builder(config).provider(SandboxProviders.of("none", () -> {
            throw new AssertionError("the store needs no sandbox");
        })).build()) {
            assertThat(agent.knownKeys("store")).contains("postgres");
            assertThatThrownBy(agent::runLog).isInstanceOf(PostgresUnavailableException.class)
                    .hasMessageStartingWith("run store postgresql://127.0.0.1:1/codeagent: cannot connect")
                    .hasMessageNotContaining("leaked-marker")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
    }

    @Test
    void opensTheConfiguredDatabaseWhenAsked() {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        CodeAgentConfig config = new ConfigLoader().parse("sandbox: {kind: none}\nstore: {kind: postgres, postgres: "
                + "{jdbcUrl: '" + db.jdbcUrl() + "', user: " + db.user() + ", password: '" + db.password() + "'}}");
        try (CodeAgent agent = CodeAgent.builder(config).provider(SandboxProviders.of("none", () -> {
            throw new AssertionError("the store needs no sandbox");
        })).build()) {
            assertThat(agent.runLog()).isInstanceOf(PostgresRunLog.class);
            assertThat(agent.runLog().recent(10, null)).isEmpty();
        }
    }
}
