package dev.codeagent.sandbox.process;

/**
 * What the process tier counted since it started, for tests and diagnostics: the start paths its executions took.
 *
 * @param executions executions that could have taken a pre-started sandbox (unjudged, no network)
 * @param preStarted executions that ran in a pre-started sandbox
 * @param forked executions forked from a zygote
 * @param batchJudged judged executions of a batch that the batch's judge server judged
 */
record ProcessDiagnostics(long executions, long preStarted, long forked, long batchJudged) {
}
