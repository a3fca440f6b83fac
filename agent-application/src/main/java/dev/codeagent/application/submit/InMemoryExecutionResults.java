package dev.codeagent.application.submit;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** {@link ExecutionResults} for a store that keeps nothing on disk ({@code store.kind: memory}): gone with the process. */
public final class InMemoryExecutionResults implements ExecutionResults {

    private final Map<String, StoredExecution> byId = new ConcurrentHashMap<>();

    @Override
    public void save(StoredExecution execution) {
        byId.put(execution.id(), execution);
    }

    @Override
    public Optional<StoredExecution> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    @Override
    public int forgetEndedBefore(Instant before) {
        int[] n = {0};
        byId.values().removeIf(e -> {
            boolean old = e.finishedAt() != null && e.finishedAt().isBefore(before);
            if (old) {
                n[0]++;
            }
            return old;
        });
        return n[0];
    }
}
