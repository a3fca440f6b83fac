package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.Execution;
import java.time.Instant;

/** Something that happened in a run, for progress displays and event streams. */
public sealed interface RunEvent {

    String runId();

    Instant at();

    /** A short lower-case name for the event ({@code "attempt-started"}), used as the SSE event name. */
    String name();

    record RunStarted(String runId, Instant at, Task task) implements RunEvent {
        public String name() {
            return "run-started";
        }
    }

    record AttemptStarted(String runId, Instant at, int attempt, int maxAttempts) implements RunEvent {
        public String name() {
            return "attempt-started";
        }
    }

    record CodeGenerated(String runId, Instant at, int attempt, String code) implements RunEvent {
        public String name() {
            return "code-generated";
        }
    }

    record Executed(String runId, Instant at, int attempt, Execution execution) implements RunEvent {
        public String name() {
            return "executed";
        }
    }

    record Judged(String runId, Instant at, Attempt attempt) implements RunEvent {
        public String name() {
            return "verdict";
        }
    }

    record RunFinished(String runId, Instant at, RunStatus status, String reason) implements RunEvent {
        public String name() {
            return "run-finished";
        }
    }
}
