package dev.codeagent.kit.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunFilter;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reading runs back from the two tables every SQL store keeps: {@code runs} (one row a run, its task as stored JSON)
 * and {@code attempts} (one row an attempt, keyed by run and number). The queries are the stores' shared contract:
 * newest first by start time then id, pages after a given run, and an owner's runs and statuses filtered in the query
 * so that a page is as full as the store's matching runs allow and another owner's run id gives an empty page, never
 * a page of someone else's runs. What differs between the stores is passed in: how a time is kept and what a row that cannot
 * be read is reported as.
 */
public final class StoredRuns {

    /** The most runs a page holds. */
    public static final int MAX_PAGE = 1000;

    /** The columns of {@code runs} a run is read from, in the order {@link #runs} reads them. */
    public static final String RUN_COLUMNS = "id, task, status, started_at, ended_at, reason, started_by";

    private static final String NEWEST_FIRST = " ORDER BY started_at DESC, id DESC LIMIT ?";

    /** A store's own exception for a row it cannot read: {@code what} names the row, {@code why} is one line. */
    @FunctionalInterface
    public interface Unreadable {
        RuntimeException of(String what, String why, Exception cause);
    }

    private final RunJson json;
    private final Function<Object, Instant> time;
    private final Unreadable unreadable;

    /**
     * @param time a time column as the driver returns it ({@code getObject}) to an instant: ISO text in SQLite, exact
     *     seconds in PostgreSQL; it may throw on a value it cannot read (the run is then reported unreadable)
     */
    public StoredRuns(RunJson json, Function<Object, Instant> time, Unreadable unreadable) {
        this.json = Objects.requireNonNull(json, "json");
        this.time = Objects.requireNonNull(time, "time");
        this.unreadable = Objects.requireNonNull(unreadable, "unreadable");
    }

    /** The run with this id, with its attempts. */
    public Optional<Run> find(Connection c, String runId) throws SQLException {
        Objects.requireNonNull(runId, "runId");
        List<Run> found = runs(c, "SELECT " + RUN_COLUMNS + " FROM runs WHERE id = ?", List.of(runId));
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    /**
     * Up to {@code limit} runs the filter selects, newest first, after {@code beforeId} when given. The owner and the
     * statuses are conditions of the query (indexed: runs_by_started_by_status, runs_by_status_start), so a page is
     * as full as the store has such runs. The cursor must be a run of the filter's owner, of any status (a run that
     * has ended since the page before still pages on); an unknown {@code beforeId}, or another owner's, gives an
     * empty page.
     *
     * @throws IllegalArgumentException when {@code limit} is not between 1 and {@value #MAX_PAGE}
     */
    public List<Run> recent(Connection c, RunFilter filter, int limit, String beforeId) throws SQLException {
        Objects.requireNonNull(filter, "filter");
        checkLimit(limit);
        List<String> where = new ArrayList<>();
        List<Object> params = new ArrayList<>();
        if (filter.owner() != null) {
            where.add("started_by = ?");
            params.add(filter.owner());
        }
        if (!filter.statuses().isEmpty()) {
            where.add("status IN (" + String.join(", ", Collections.nCopies(filter.statuses().size(), "?")) + ")");
            filter.statuses().forEach(st -> params.add(st.name()));
        }
        if (beforeId != null) {
            if (filter.owner() == null) {
                where.add("(started_at, id) < (SELECT started_at, id FROM runs WHERE id = ?)");
                params.add(beforeId);
            } else {
                where.add("(started_at, id) < (SELECT started_at, id FROM runs WHERE id = ? AND started_by = ?)");
                params.add(beforeId);
                params.add(filter.owner());
            }
        }
        params.add(limit);
        return runs(c, "SELECT " + RUN_COLUMNS + " FROM runs" + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
                + NEWEST_FIRST, params);
    }

    /** @throws IllegalArgumentException when {@code limit} is not between 1 and {@value #MAX_PAGE} */
    public static void checkLimit(int limit) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_PAGE + ", was " + limit);
        }
    }

    /** The runs a query over {@link #RUN_COLUMNS} selects, in its order, each with its attempts (one more query). */
    private List<Run> runs(Connection c, String sql, List<?> params) throws SQLException {
        Map<String, RunRow> rows = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, params);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    RunRow row = new RunRow(r.getString(1), r.getString(2), r.getString(3), r.getObject(4),
                            r.getObject(5), r.getString(6), r.getString(7));
                    rows.put(row.id(), row);
                }
            }
        }
        if (rows.isEmpty()) {
            return List.of();
        }
        Map<String, List<Attempt>> attempts = attempts(c, new ArrayList<>(rows.keySet()));
        List<Run> result = new ArrayList<>(rows.size());
        for (RunRow row : rows.values()) {
            result.add(toRun(row, attempts.getOrDefault(row.id(), List.of())));
        }
        return result;
    }

    // a page is at most MAX_PAGE runs: an IN list of that many parameters suits both SQLite and PostgreSQL
    private Map<String, List<Attempt>> attempts(Connection c, List<String> runIds) throws SQLException {
        String marks = String.join(", ", Collections.nCopies(runIds.size(), "?"));
        Map<String, List<Attempt>> byRun = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT run_id, number, attempt FROM attempts"
                + " WHERE run_id IN (" + marks + ") ORDER BY run_id, number")) {
            bind(s, runIds);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    String runId = r.getString(1);
                    int number = r.getInt(2);
                    Attempt a;
                    try {
                        a = json.attempt(r.getString(3));
                    } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
                        throw unreadable("attempt " + number + " of run " + runId, e);
                    }
                    byRun.computeIfAbsent(runId, k -> new ArrayList<>()).add(a);
                }
            }
        }
        return byRun;
    }

    private static void bind(PreparedStatement s, List<?> params) throws SQLException {
        for (int i = 0; i < params.size(); i++) {
            Object p = params.get(i);
            if (p instanceof Integer n) {
                s.setInt(i + 1, n);
            } else {
                s.setString(i + 1, (String) p);
            }
        }
    }

    /** A runs row before its attempts are joined; times as the driver gave them. */
    private record RunRow(String id, String task, String status, Object startedAt, Object endedAt, String reason,
            String owner) {
    }

    private Run toRun(RunRow row, List<Attempt> attempts) {
        try {
            Task task = json.task(row.task());
            return new Run(row.id(), task, RunStatus.valueOf(row.status()), attempts, time.apply(row.startedAt()),
                    row.endedAt() == null ? null : time.apply(row.endedAt()), row.reason(), row.owner());
        } catch (JsonProcessingException | RuntimeException e) {
            throw unreadable("run " + row.id(), e);
        }
    }

    private RuntimeException unreadable(String what, Exception e) {
        return unreadable.of(what, reason(e), e);
    }

    /** What was wrong with a stored value, in one line: Jackson's own message without its location noise. */
    public static String reason(Exception e) {
        String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        if (why == null) {
            return "unknown error";
        }
        int nl = why.indexOf('\n');
        return nl < 0 ? why : why.substring(0, nl);
    }
}
