package dev.codeagent.store.postgres;

import dev.codeagent.application.submit.EvaluationLog;
import dev.codeagent.application.submit.EvaluationLogContractTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** The evaluation log's contract on a fresh PostgreSQL database of the throwaway cluster (V8 applied by the store). */
class PostgresEvaluationLogContractIT extends EvaluationLogContractTest {

    private final List<PostgresStore> open = new ArrayList<>();

    @Override
    protected EvaluationLog newLog() {
        PostgresStore store = PostgresStore.open(TestCluster.get().freshDatabase());
        open.add(store);
        return store.evaluationLog();
    }

    @AfterEach
    void close() {
        open.forEach(PostgresStore::close);
    }
}
