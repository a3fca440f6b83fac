package dev.codeagent.application.view;

import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Task;

/** What a run was asked to do, with the limits each of its executions had. */
public record TaskView(
        String prompt,
        String language,
        String tests,
        String expectedOutput,
        String stdin,
        LimitsView limits,
        int maxAttempts) {

    public static TaskView of(Task t) {
        return new TaskView(t.prompt(), t.language().id(), t.tests(), t.expectedOutput(), t.stdin(),
                LimitsView.of(t.limits()), t.maxAttempts());
    }

    /** An execution's limits in the units of their names. */
    public record LimitsView(long timeoutMs, long cpuTimeMs, long memoryBytes, int maxProcesses, long maxOutputBytes,
            long maxFileBytes) {

        public static LimitsView of(ResourceLimits l) {
            return new LimitsView(l.wallTime().toMillis(), l.cpuTime().toMillis(), l.memoryBytes(), l.maxProcesses(),
                    l.maxOutputBytes(), l.maxFileBytes());
        }
    }
}
