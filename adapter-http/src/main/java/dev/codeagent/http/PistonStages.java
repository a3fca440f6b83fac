package dev.codeagent.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.domain.execution.Execution;
import java.util.Map;

/**
 * One stage of an execution ({@code compile} or {@code run}) as Piston reports it: its streams, its code and signal,
 * Piston's status letters and message for each outcome. Split from {@link PistonApi}, which maps the requests and
 * puts the stages into a response; {@link PistonConnect} sends the same view over its WebSocket.
 */
final class PistonStages {

    private PistonStages() {
    }

    /** One stage as Piston reports it. */
    static ObjectNode stageView(Execution e) {
        ObjectNode run = JsonNodeFactory.instance.objectNode();
        String stdout = e.stdout().text();
        String stderr = e.stderr().text();
        run.put("stdout", stdout);
        run.put("stderr", stderr);
        // code and signal are the sandbox's wait status as it is: `exit 137` is code 137 and no signal
        Integer code = e.exitCode();
        String signal = e.signal() == null ? null : Signals.name(e.signal());
        String status = null;
        String message = null;
        switch (e.outcome()) {
            case OK:
                break;
            case RUNTIME_ERROR:
                if (e.signal() != null) {
                    status = "SG";
                    message = "Caught fatal signal " + e.signal();
                } else {
                    status = "RE";
                    message = "Exited with error status " + code;
                }
                break;
            case TIME_LIMIT:
                status = "TO";
                message = "Time limit exceeded";
                // as Piston: the limits it enforces by killing report SIGKILL
                signal = "SIGKILL";
                break;
            case MEMORY_LIMIT:
                status = "SG";
                message = "Memory limit exceeded";
                signal = signal == null ? "SIGKILL" : signal;
                break;
            case OUTPUT_LIMIT:
                status = e.stderr().truncated() && !e.stdout().truncated() ? "EL" : "OL";
                message = status.equals("EL") ? "stderr length exceeded" : "stdout length exceeded";
                signal = "SIGKILL";
                break;
            case COMPILATION_ERROR:
                status = "RE";
                message = e.detail();
                break;
            case POLICY_VIOLATION:
                status = "XX";
                message = "Refused by the code policy: " + (e.detail() == null ? "" : e.detail());
                break;
            case SANDBOX_ERROR:
            default:
                status = "XX";
                message = "Internal error: " + (e.detail() == null ? "the sandbox failed" : e.detail());
                break;
        }
        run.put("code", code);
        run.put("signal", signal);
        // as Piston builds it: both streams in the order their chunks arrived
        run.put("output", e.combinedOutput().text());
        run.put("memory", e.peakMemoryBytes());
        run.put("message", message);
        run.put("status", status);
        run.put("cpu_time", e.cpuTime() == null ? null : e.cpuTime().toMillis());
        run.put("wall_time", e.wallTime().toMillis());
        return run;
    }

    /** Names of the common signals, as Piston reports them. */
    static final class Signals {
        private static final Map<Integer, String> NAMES = Map.ofEntries(
                Map.entry(1, "SIGHUP"), Map.entry(2, "SIGINT"), Map.entry(3, "SIGQUIT"), Map.entry(4, "SIGILL"),
                Map.entry(5, "SIGTRAP"), Map.entry(6, "SIGABRT"), Map.entry(7, "SIGBUS"), Map.entry(8, "SIGFPE"),
                Map.entry(9, "SIGKILL"), Map.entry(10, "SIGUSR1"), Map.entry(11, "SIGSEGV"), Map.entry(12, "SIGUSR2"),
                Map.entry(13, "SIGPIPE"), Map.entry(14, "SIGALRM"), Map.entry(15, "SIGTERM"), Map.entry(24, "SIGXCPU"),
                Map.entry(25, "SIGXFSZ"));

        private Signals() {
        }

        static String name(int signal) {
            return NAMES.getOrDefault(signal, "SIG" + signal);
        }
    }
}
