package dev.codeagent.store.sqlite;

import dev.codeagent.application.spi.ConfigSection;

/**
 * Settings of the SQLite store: config section {@code store.sqlite}.
 *
 * @param path the database file; a leading {@code ~} is the user's home
 */
public record SqliteStoreConfig(String path) {

    /** Where these settings live in the config. */
    public static final ConfigSection<SqliteStoreConfig> SECTION =
            new ConfigSection<>("store.sqlite", SqliteStoreConfig.class, defaults()).withFile("path");

    public SqliteStoreConfig {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("store.sqlite.path must not be empty");
        }
    }

    public static SqliteStoreConfig defaults() {
        return new SqliteStoreConfig("~/.codeagent/runs.db");
    }
}
