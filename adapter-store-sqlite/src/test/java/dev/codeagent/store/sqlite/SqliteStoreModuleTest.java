package dev.codeagent.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Provider;
import com.google.inject.ProvisionException;
import com.google.inject.TypeLiteral;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteStoreModuleTest {

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
        Map<String, Provider<RunLog>> logs = runLogs(db);

        assertThat(logs).containsKey("sqlite");
        assertThat(db).doesNotExist();
        RunLog log = logs.get("sqlite").get();
        try {
            assertThat(log).isInstanceOf(SqliteRunLog.class);
            assertThat(((SqliteRunLog) log).file()).isEqualTo(db);
            assertThat(logs.get("sqlite").get()).isSameAs(log);
            log.started(Run.started("r", Samples.bareTask(), Samples.T0));
            assertThat(db).exists();
        } finally {
            ((SqliteRunLog) log).close();
        }
    }

    @Test
    void reportsAnUnusableFileWhenAsked() throws Exception {
        Path db = dir.resolve("garbage.db");
        Files.writeString(db, "not a database at all, not even close; ".repeat(50));
        Map<String, Provider<RunLog>> logs = runLogs(db);
        assertThatThrownBy(() -> logs.get("sqlite").get()).isInstanceOf(ProvisionException.class)
                .cause().isInstanceOf(RunLogUnavailableException.class).hasMessageContaining(db.toString()).hasMessageContaining("not an SQLite database");
    }

    private static Map<String, Provider<RunLog>> runLogs(Path db) {
        CodeAgentConfig config = new ConfigLoader().parse("store: {kind: sqlite, sqlite: {path: '" + db + "'}}");
        Injector injector = Guice.createInjector(new SqliteStoreModule(),
                binder -> binder.bind(CodeAgentConfig.class).toInstance(config));
        return injector.getInstance(Key.get(new TypeLiteral<Map<String, Provider<RunLog>>>() { }));
    }
}
