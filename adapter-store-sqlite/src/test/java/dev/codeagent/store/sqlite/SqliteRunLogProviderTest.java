package dev.codeagent.store.sqlite;

import dev.codeagent.kit.store.jdbc.Samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.testing.SandboxProviders;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteRunLogProviderTest {

    @TempDir
    Path dir;

    @Test
    void isFoundOnTheClasspath() {
        List<Class<?>> found = new ArrayList<>();
        ServiceLoader.load(AdapterModule.class).forEach(m -> found.add(m.getClass()));
        assertThat(found).contains(SqliteStoreModule.class);
    }

    @Test
    void opensTheConfiguredFileOnceAndOnlyWhenAsked() {
        Path db = dir.resolve("nested/runs.db");
        try (CodeAgent agent = agent(db)) {
            assertThat(agent.knownKeys("store")).contains("sqlite");
            assertThat(db).doesNotExist();
            RunLog log = agent.runLog();
            assertThat(log).isInstanceOf(SqliteRunLog.class);
            assertThat(((SqliteRunLog) log).file()).isEqualTo(db);
            assertThat(agent.runLog()).isSameAs(log);
            log.started(Run.started("r", Samples.bareTask(), Samples.T0));
            assertThat(db).exists();
        }
    }

    @Test
    void reportsAnUnusableFileWhenAsked() throws Exception {
        Path db = dir.resolve("garbage.db");
        Files.writeString(db, "not a database at all, not even close; ".repeat(50));
        try (CodeAgent agent = agent(db)) {
            assertThatThrownBy(agent::runLog)
                    .isInstanceOf(RunLogUnavailableException.class).hasMessageContaining(db.toString()).hasMessageContaining("not an SQLite database");
        }
    }

    @Test
    void ownsTheStoreSqliteSection() {
        ConfigLoader loader = new ConfigLoader();
        assertThat(loader.keys()).contains("store.sqlite.path");
        CodeAgentConfig c = loader.load(Optional.empty(), Map.of("CODEAGENT_STORE_SQLITE_PATH", "/tmp/x.db"), Map.of());
        assertThat(c.section(SqliteStoreConfig.SECTION).path()).isEqualTo("/tmp/x.db");
        assertThatThrownBy(() -> loader.load(Optional.empty(), Map.of(), Map.of("store.sqlite.path", " ")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("store.sqlite.path must not be empty");
    }

    /** The composition with this store; it needs some sandbox to be built, and never builds it here. */
    private static CodeAgent agent(Path db) {
        CodeAgentConfig config = new ConfigLoader().parse("sandbox: {kind: none}\nstore: {kind: sqlite, sqlite: {path: '" + db + "'}}");
        return CodeAgent.builder(config).provider(SandboxProviders.of("none", () -> {
            throw new AssertionError("the store needs no sandbox");
        })).build();
    }
}
