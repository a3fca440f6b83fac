package dev.codeagent.application.config;

/**
 * Where runs are kept.
 *
 * @param kind the run-log adapter's key ({@code sqlite}, {@code memory})
 * @param sqlite settings of the SQLite store
 */
public record StoreConfig(String kind, Sqlite sqlite) {

    /** @param path the database file; a leading {@code ~} is the user's home */
    public record Sqlite(String path) {
    }

    public static StoreConfig defaults() {
        return new StoreConfig("sqlite", new Sqlite("~/.codeagent/runs.db"));
    }
}
