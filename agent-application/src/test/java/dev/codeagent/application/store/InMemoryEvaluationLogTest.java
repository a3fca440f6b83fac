package dev.codeagent.application.store;

import dev.codeagent.application.eval.EvaluationLog;

class InMemoryEvaluationLogTest extends EvaluationLogContractTest {

    @Override
    protected EvaluationLog newLog() {
        return new InMemoryEvaluationLog();
    }
}
