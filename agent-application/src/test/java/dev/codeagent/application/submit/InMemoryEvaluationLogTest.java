package dev.codeagent.application.submit;


class InMemoryEvaluationLogTest extends EvaluationLogContractTest {

    @Override
    protected EvaluationLog newLog() {
        return new InMemoryEvaluationLog();
    }
}
