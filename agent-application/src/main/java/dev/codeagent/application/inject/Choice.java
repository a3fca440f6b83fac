package dev.codeagent.application.inject;

import com.google.inject.Provider;
import dev.codeagent.application.config.ConfigException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The config's choice among the adapters registered for one port: the one place a {@code *.kind} value is resolved
 * against the map of keys (an embedder's adapter over a discovered one of the same key).
 */
final class Choice {

    private Choice() {
    }

    /**
     * @throws ConfigException {@code sandbox.kind: unknown 'x'; known: a, b} when no adapter has the chosen key
     */
    static <T> Provider<T> of(String configKey, String chosen, Map<String, Provider<T>> discovered,
            Map<String, Provider<T>> embedded) {
        Provider<T> p = embedded.containsKey(chosen) ? embedded.get(chosen) : discovered.get(chosen);
        if (p == null) {
            List<String> known = keys(discovered, embedded);
            throw new ConfigException(configKey + ": unknown '" + chosen + "'; known: "
                    + (known.isEmpty() ? "none (no adapter for it is on the classpath)" : String.join(", ", known)));
        }
        return p;
    }

    /** Every key registered for the port, sorted. */
    static List<String> keys(Map<String, ?> discovered, Map<String, ?> embedded) {
        TreeSet<String> all = new TreeSet<>(discovered.keySet());
        all.addAll(embedded.keySet());
        return new ArrayList<>(all);
    }
}
