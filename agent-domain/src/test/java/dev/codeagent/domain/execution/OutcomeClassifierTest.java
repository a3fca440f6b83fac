package dev.codeagent.domain.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.OutcomeClassifier.Enforced;
import dev.codeagent.domain.execution.OutcomeClassifier.Termination;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One table for every tier: the same facts give the same outcome wherever the program ran. */
class OutcomeClassifierTest {

    private static final long MIB = 1024 * 1024;
    private static final ResourceLimits LIMITS = ResourceLimits.defaults().withCpuTime(Duration.ofSeconds(2))
            .withMemoryBytes(256 * MIB);
    private static final String PY_MEMORY = "Traceback (most recent call last):\n  File \"main.py\", line 1\nMemoryError\n";
    private static final String NODE_HEAP = "<--- Last few GCs --->\n\nFATAL ERROR: Reached heap limit Allocation failed - "
            + "JavaScript heap out of memory\n" + " 1: 0xb090e0 node::Abort() [node]\n".repeat(12);

    private static final Language PY = Language.PYTHON;
    private static final Language JS = Language.JAVASCRIPT;
    private static final Language SH = Language.BASH;

    static Stream<Arguments> table() {
        return Stream.of(
                row("exit 0 is OK", exit(PY, 0, ""), Outcome.OK, null),
                row("exit 0 is OK whatever it printed", exit(PY, 0, "MemoryError\n"), Outcome.OK, null),
                row("exit 0 after a child's OOM kill is OK", exit(PY, 0, "").withOomKilled(true), Outcome.OK, null),
                row("the sandbox closing is its own error", Termination.enforced(PY, Enforced.CLOSED, false, false, ""),
                        Outcome.SANDBOX_ERROR, "closed"),
                row("the wall limit names itself", Termination.enforced(PY, Enforced.WALL_TIME, false, false, ""),
                        Outcome.TIME_LIMIT, "wall-time limit of 10s"),
                row("out of memory, then stuck until the wall limit", Termination.enforced(PY, Enforced.WALL_TIME, false, false,
                        "Traceback (most recent call last):\n  File \"/work/main.py\", line 3, in <module>\nMemoryError\n"),
                        Outcome.MEMORY_LIMIT, "killed at the wall-time limit"),
                row("out of memory, then spinning until the CPU limit", Termination.ended(PY, null, 9, Duration.ofMillis(2500),
                        "Traceback (most recent call last):\nMemoryError\n"), Outcome.MEMORY_LIMIT, "killed at the CPU-time limit"),
                row("an output kill names the stream", Termination.enforced(PY, Enforced.OUTPUT, false, true, ""),
                        Outcome.OUTPUT_LIMIT, "stderr went past its cap of 1 MiB"),
                row("an overflowed stream wins over a clean exit", exit(PY, 0, "").withOverflow(true, false),
                        Outcome.OUTPUT_LIMIT, "stdout"),
                row("the supervisor's memory kill", Termination.enforced(PY, Enforced.MEMORY, false, false, ""),
                        Outcome.MEMORY_LIMIT, "256 MiB"),
                row("an OOM kill is the memory limit", signal(PY, 9, null).withOomKilled(true), Outcome.MEMORY_LIMIT, "256 MiB"),
                row("SIGXCPU is the CPU limit", signal(PY, 24, Duration.ofMillis(2000)), Outcome.TIME_LIMIT, "CPU-time limit of 2s"),
                row("SIGXCPU a little before the exact CPU figure reaches the limit", signal(PY, 24, Duration.ofMillis(1850)),
                        Outcome.TIME_LIMIT, "CPU-time limit of 2s"),
                row("SIGXCPU at 0 s of CPU is one the program sent itself", signal(PY, 24, Duration.ZERO),
                        Outcome.RUNTIME_ERROR, "killed by signal 24 (SIGXCPU) at 0s of CPU time"),
                row("SIGXCPU well short of the limit is the program's", signal(PY, 24, Duration.ofMillis(1500)),
                        Outcome.RUNTIME_ERROR, "short of the CPU-time limit of 2s"),
                row("SIGXCPU with no CPU measured proves nothing", signal(PY, 24, null), Outcome.RUNTIME_ERROR,
                        "at an unmeasured CPU time"),
                row("SIGKILL at the CPU limit is the CPU limit", signal(PY, 9, Duration.ofMillis(2500)), Outcome.TIME_LIMIT, "CPU"),
                row("SIGKILL just under the CPU limit is the CPU limit", signal(PY, 9, Duration.ofMillis(1970)),
                        Outcome.TIME_LIMIT, "CPU"),
                row("SIGKILL far from the CPU limit is the program's", signal(PY, 9, Duration.ofMillis(100)),
                        Outcome.RUNTIME_ERROR, "killed by signal 9"),
                row("SIGKILL with CPU unknown is the program's", signal(PY, 9, null), Outcome.RUNTIME_ERROR, "signal 9"),
                row("SIGXFSZ is the file-size limit", signal(PY, 25, null), Outcome.OUTPUT_LIMIT, "16 MiB"),
                row("Python MemoryError", exit(PY, 1, PY_MEMORY), Outcome.MEMORY_LIMIT, "ran out of its memory limit"),
                row("a bare MemoryError line", exit(PY, 1, "MemoryError\n"), Outcome.MEMORY_LIMIT, "memory"),
                row("a MemoryError earlier in the output does not mislead",
                        exit(PY, 1, "caught MemoryError and went on\n" + "x\n".repeat(10) + "ValueError: boom\n"),
                        Outcome.RUNTIME_ERROR, "exited with status 1"),
                row("a Node heap overflow, its native stack after it", exit(JS, 134, NODE_HEAP), Outcome.MEMORY_LIMIT, "memory"),
                row("a Node heap overflow ending in SIGABRT (as docker's supervisor sees it)",
                        Termination.ended(JS, null, 6, null, NODE_HEAP), Outcome.MEMORY_LIMIT, "memory"),
                row("a SIGABRT without a heap message is the program's", signal(JS, 6, null), Outcome.RUNTIME_ERROR, "signal 6"),
                row("a Node heap overflow seen from a Python parent", exit(PY, 1, NODE_HEAP), Outcome.MEMORY_LIMIT, "memory"),
                row("bash cannot allocate", exit(SH, 2, "bash: xmalloc: cannot allocate 1048576 bytes\n"),
                        Outcome.MEMORY_LIMIT, "memory"),
                row("a file past the size limit", exit(PY, 1, "OSError: [Errno 27] File too large\n"), Outcome.OUTPUT_LIMIT,
                        "size limit of 16 MiB"),
                row("a full scratch space", exit(PY, 1, "OSError: [Errno 28] No space left on device\n")
                        .withWritableBytes(64 * MIB), Outcome.OUTPUT_LIMIT, "writable space (64 MiB)"),
                row("another exception is a runtime error", exit(PY, 1, "Traceback\nValueError: bad\n"),
                        Outcome.RUNTIME_ERROR, "exited with status 1"),
                row("a non-zero status", exit(SH, 3, ""), Outcome.RUNTIME_ERROR, "exited with status 3"),
                row("a segfault", signal(PY, 11, null), Outcome.RUNTIME_ERROR, "killed by signal 11"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void classifies(String name, Termination facts, Outcome outcome, String detail) {
        OutcomeClassifier.Classification c = new OutcomeClassifier().classify(facts, LIMITS);
        assertThat(c.outcome()).isEqualTo(outcome);
        if (detail == null) {
            assertThat(c.detail()).isNull();
        } else {
            assertThat(c.detail()).contains(detail);
        }
    }

    private static Arguments row(String name, Termination facts, Outcome outcome, String detail) {
        return Arguments.of(name, facts, outcome, detail);
    }

    private static Termination exit(Language language, int status, String stderr) {
        return Termination.ended(language, status, null, null, stderr);
    }

    private static Termination signal(Language language, int signal, Duration cpu) {
        return Termination.ended(language, null, signal, cpu, "");
    }
}
