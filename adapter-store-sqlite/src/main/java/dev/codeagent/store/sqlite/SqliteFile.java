package dev.codeagent.store.sqlite;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * The run log's SQLite file: its place on disk, the connection's settings (WAL, {@code synchronous=FULL}, the busy
 * timeout), the schema brought up to date ({@link Migrations}), and SQLite's failures in words a user can act on.
 * Split from {@link SqliteRunLog}, which keeps the runs in it.
 */
final class SqliteFile {

    // the run log's category, as before the split: a user's logging settings keep working
    private static final Logger log = LoggerFactory.getLogger(SqliteRunLog.class);

    private SqliteFile() {
    }

    static void prepareLocation(Path path) {
        if (Files.isDirectory(path)) {
            throw new RunLogUnavailableException(path, "it is a directory, not a database file");
        }
        if (Files.exists(path) && !Files.isRegularFile(path)) {
            throw new RunLogUnavailableException(path, "it is not a regular file");
        }
        Path dir = path.getParent();
        if (dir == null) {
            return;
        }
        try {
            Files.createDirectories(dir);
        } catch (FileAlreadyExistsException e) {
            throw new RunLogUnavailableException(path, "cannot create its directory: " + e.getFile() + " is not a directory", e);
        } catch (IOException e) {
            throw new RunLogUnavailableException(path, "cannot create its directory " + dir + ": " + e, e);
        }
    }

    static Connection connect(Path path) {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout((int) SqliteRunLog.BUSY_TIMEOUT.toMillis());
        config.enforceForeignKeys(true);
        SQLiteDataSource source = new SQLiteDataSource(config);
        source.setUrl("jdbc:sqlite:" + path);
        try {
            return source.getConnection();
        } catch (SQLException e) {
            throw new RunLogUnavailableException(path, describe(e), e);
        }
    }

    /** Sets the connection up and applies missing migrations; returns the version the file had. */
    static int configureAndMigrate(Path path, Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            // FULL rather than NORMAL: in WAL mode NORMAL already survives a killed process, but can lose
            // the last commits on power loss; the port promises "durable when the call returns", and one
            // fsync per attempt is nothing next to the model call and the sandbox run that produce it.
            s.execute("PRAGMA synchronous = FULL");
            try (ResultSet r = s.executeQuery("PRAGMA journal_mode = WAL")) {
                String mode = r.next() ? r.getString(1) : "?";
                if (!"wal".equalsIgnoreCase(mode)) {
                    log.warn("run log {} is in journal mode {}, not WAL (the file system may not support it)", path, mode);
                }
            }
            s.execute("BEGIN IMMEDIATE");
            boolean committed = false;
            try {
                int version;
                try (ResultSet r = s.executeQuery("PRAGMA user_version")) {
                    version = r.next() ? r.getInt(1) : 0;
                }
                if (version > Migrations.LATEST) {
                    throw new RunLogUnavailableException(path, "it was written by a newer codeagent (schema version "
                            + version + "; this one knows up to " + Migrations.LATEST + ")");
                }
                if (version == 0 && hasForeignTables(s)) {
                    throw new RunLogUnavailableException(path, "it is an SQLite database of something else"
                            + " (it has tables but no codeagent schema version)");
                }
                for (Migrations.Migration m : Migrations.ALL) {
                    if (m.version() > version) {
                        for (String sql : m.statements()) {
                            s.execute(sql);
                        }
                        log.info("run log {}: applied schema step {} ({})", path, m.version(), m.description());
                    }
                }
                if (version < Migrations.LATEST) {
                    s.execute("PRAGMA user_version = " + Migrations.LATEST);
                }
                s.execute("COMMIT");
                committed = true;
                return version;
            } finally {
                if (!committed) {
                    SqliteRunLog.rollbackQuietly(c);
                }
            }
        }
    }

    private static boolean hasForeignTables(Statement s) throws SQLException {
        try (ResultSet r = s.executeQuery("SELECT count(*) FROM sqlite_schema WHERE type = 'table'")) {
            return r.next() && r.getInt(1) > 0;
        }
    }

    /** A one-line reason for an SQLite failure, in words a user can act on. */
    static String describe(SQLException e) {
        if (e instanceof SQLiteException) {
            SQLiteErrorCode code = ((SQLiteException) e).getResultCode();
            int primary = code.code & 0xff;
            if (primary == SQLiteErrorCode.SQLITE_NOTADB.code) {
                return "not an SQLite database (the file is damaged or is something else)";
            }
            if (primary == SQLiteErrorCode.SQLITE_CORRUPT.code) {
                return "the database is corrupt";
            }
            if (primary == SQLiteErrorCode.SQLITE_CANTOPEN.code) {
                return "cannot open the file (check that it and its directory are readable and writable)";
            }
            if (primary == SQLiteErrorCode.SQLITE_READONLY.code || primary == SQLiteErrorCode.SQLITE_PERM.code) {
                return "no permission to write it";
            }
            if (primary == SQLiteErrorCode.SQLITE_BUSY.code || primary == SQLiteErrorCode.SQLITE_LOCKED.code) {
                return "another process has held it locked for more than " + SqliteRunLog.BUSY_TIMEOUT.toSeconds() + "s";
            }
            if (primary == SQLiteErrorCode.SQLITE_FULL.code) {
                return "the disk is full";
            }
        }
        return firstLine(e.getMessage());
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
