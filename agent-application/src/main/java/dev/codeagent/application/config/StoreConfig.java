package dev.codeagent.application.config;

/**
 * Where runs are kept. Each store's own settings are its adapter's section ({@code store.sqlite.*}).
 *
 * @param kind the run-log adapter's key ({@code sqlite}, {@code memory})
 */
public record StoreConfig(String kind) {

    public StoreConfig {
        java.util.Objects.requireNonNull(kind, "store.kind");
    }

    public static StoreConfig defaults() {
        return new StoreConfig("sqlite");
    }
}
