package dev.codeagent.store.sqlite;

import dev.codeagent.application.store.RunLogContractTest;
import dev.codeagent.domain.solving.RunLog;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteRunLogContractTest extends RunLogContractTest {

    @TempDir
    Path dir;

    @Override
    protected RunLog newLog() {
        return SqliteRunLog.open(dir.resolve("runs.db"));
    }
}
