package dev.codeagent.store.postgres;

import dev.codeagent.application.store.RunLogContractTest;
import dev.codeagent.domain.solving.RunLog;

class PostgresRunLogContractIT extends RunLogContractTest {

    @Override
    protected RunLog newLog() {
        return PostgresRunLog.open(TestCluster.get().freshDatabase());
    }
}
