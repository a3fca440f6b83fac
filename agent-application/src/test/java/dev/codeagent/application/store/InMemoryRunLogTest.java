package dev.codeagent.application.store;

import dev.codeagent.domain.solving.RunLog;

class InMemoryRunLogTest extends RunLogContractTest {

    @Override
    protected RunLog newLog() {
        return new InMemoryRunLog();
    }
}
