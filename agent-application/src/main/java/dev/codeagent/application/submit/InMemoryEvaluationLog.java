package dev.codeagent.application.submit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Evaluations in memory only: they live as long as the server (the use case caps how many a caller keeps). */
public final class InMemoryEvaluationLog implements EvaluationLog {

    private final Map<String, Evaluation> evaluations = new LinkedHashMap<>();

    @Override
    public synchronized void add(Evaluation evaluation) {
        Objects.requireNonNull(evaluation, "evaluation");
        if (evaluations.putIfAbsent(evaluation.id(), evaluation) != null) {
            throw new IllegalStateException("evaluation " + evaluation.id() + " exists already");
        }
    }

    @Override
    public synchronized boolean update(Evaluation evaluation) {
        return evaluations.replace(evaluation.id(), evaluation) != null;
    }

    @Override
    public synchronized Optional<Evaluation> find(String id) {
        return Optional.ofNullable(evaluations.get(id));
    }

    @Override
    public synchronized List<Evaluation> list(String owner, int limit) {
        List<Evaluation> out = new ArrayList<>();
        for (Evaluation e : evaluations.values()) {
            if (owner == null || owner.equals(e.owner())) {
                out.add(e);
            }
        }
        // newest first; the id breaks ties between two made in the same instant
        out.sort(Comparator.comparing(Evaluation::createdAt).thenComparing(Evaluation::id).reversed());
        return out.size() > limit ? List.copyOf(out.subList(0, limit)) : out;
    }

    @Override
    public synchronized boolean delete(String id) {
        return evaluations.remove(id) != null;
    }
}
