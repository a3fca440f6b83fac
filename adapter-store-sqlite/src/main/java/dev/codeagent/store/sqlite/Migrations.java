package dev.codeagent.store.sqlite;

import java.util.List;

/**
 * The schema, as numbered steps. A database records the last step applied in
 * {@code PRAGMA user_version}; opening it applies the later ones in one transaction. Steps are never
 * edited once released, only appended to.
 */
final class Migrations {

    /** One schema step: applied to a database at version {@code version - 1}. */
    record Migration(int version, String description, List<String> statements) {
    }

    static final List<Migration> ALL = List.of(
            new Migration(1, "runs and their attempts", List.of(
                    // Times are fixed-width UTC text (9 fraction digits) so that text order is time
                    // order and the file stays readable with the sqlite3 shell. The domain records
                    // are kept whole as JSON; prompt, language, verdict and outcome are copied out
                    // only for listing and querying.
                    "CREATE TABLE runs ("
                            + " id TEXT PRIMARY KEY NOT NULL,"
                            + " prompt TEXT NOT NULL,"
                            + " language TEXT NOT NULL,"
                            + " task TEXT NOT NULL CHECK (json_valid(task)),"
                            + " status TEXT NOT NULL,"
                            + " started_at TEXT NOT NULL,"
                            + " ended_at TEXT,"
                            + " reason TEXT)",
                    "CREATE INDEX runs_by_start ON runs (started_at DESC, id DESC)",
                    "CREATE INDEX runs_by_status ON runs (status)",
                    "CREATE TABLE attempts ("
                            + " run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
                            + " number INTEGER NOT NULL CHECK (number >= 1),"
                            + " verdict TEXT NOT NULL,"
                            + " outcome TEXT,"
                            + " attempt TEXT NOT NULL CHECK (json_valid(attempt)),"
                            + " PRIMARY KEY (run_id, number)) WITHOUT ROWID")),
            new Migration(2, "the process that owns each run", List.of(
                    // Several processes share one file (the HTTP server, CLI solves): at start each
                    // marks as interrupted only the RUNNING runs whose owner has died, which needs to
                    // know the owner. Rows from before this step have none, and count as dead.
                    // See ProcessOwner for what the columns hold.
                    "ALTER TABLE runs ADD COLUMN owner_boot_id TEXT",
                    "ALTER TABLE runs ADD COLUMN owner_pid INTEGER",
                    "ALTER TABLE runs ADD COLUMN owner_start TEXT")),
            new Migration(3, "whose each run is", List.of(
                    // Run.owner: the caller the run belongs to (key:NAME, local:USER), not the process
                    // working it (owner_*). Rows from before this step belong to no one: only an operator
                    // sees them. Listing one caller's runs is by this column, newest first.
                    "ALTER TABLE runs ADD COLUMN started_by TEXT",
                    "CREATE INDEX runs_by_started_by ON runs (started_by, started_at DESC, id DESC)")),
            new Migration(4, "submitted executions and their results", List.of(
                    // Executions submitted over HTTP to be collected later (asynchronous, batched): kept until
                    // their owner collects them, across a restart; forgotten a while after they ended. The result is
                    // the Execution whole as JSON (RunJson), null until status DONE.
                    "CREATE TABLE executions ("
                            + " id TEXT PRIMARY KEY NOT NULL,"
                            + " submitted_by TEXT,"
                            + " status TEXT NOT NULL,"
                            + " accepted_at TEXT NOT NULL,"
                            + " finished_at TEXT,"
                            + " result TEXT CHECK (result IS NULL OR json_valid(result)))",
                    "CREATE INDEX executions_by_finish ON executions (finished_at)")),
            new Migration(5, "runs listed by status", List.of(
                    // GET /v1/runs?status=: the statuses are a condition of the query (StoredRuns.recent), newest first,
                    // so that a rare status among many runs still fills its page from an index. The status-only index
                    // of step 1 is a prefix of the new one (which also serves markInterrupted's status = 'RUNNING').
                    "DROP INDEX runs_by_status",
                    "CREATE INDEX runs_by_status_start ON runs (status, started_at DESC, id DESC)",
                    "CREATE INDEX runs_by_started_by_status ON runs (started_by, status, started_at DESC, id DESC)")),
            new Migration(6, "evaluations sent to a server", List.of(
                    // POST /v1/evaluations: each one's progress while it runs and its report once done, kept until its
                    // owner forgets it (StoredEvaluations). The report is the report page's JSON (EvaluationReportView),
                    // null until status DONE; listing one owner's is by owner, newest first.
                    "CREATE TABLE evaluations ("
                            + " id TEXT PRIMARY KEY NOT NULL,"
                            + " owner TEXT,"
                            + " subject TEXT NOT NULL,"
                            + " status TEXT NOT NULL,"
                            + " created_at TEXT NOT NULL,"
                            + " ended_at TEXT,"
                            + " problems INTEGER NOT NULL,"
                            + " samples INTEGER NOT NULL,"
                            + " done INTEGER NOT NULL,"
                            + " passed INTEGER NOT NULL,"
                            + " error TEXT,"
                            + " report TEXT CHECK (report IS NULL OR json_valid(report)))",
                    "CREATE INDEX evaluations_by_owner ON evaluations (owner, created_at DESC, id DESC)")));

    static final int LATEST = ALL.get(ALL.size() - 1).version();

    private Migrations() {
    }
}
