package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LiveExecution;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A program run live on the process tier: output as it comes, stdin written while it runs, signals, limits. */
@Tag("slow")
class ProcessLiveExecutionIT {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        scratch = ScratchSandbox.start("codeagent-live-", true);
    }

    @AfterAll
    static void stop() throws Exception {
        scratch.stop();
    }

    private record Chunk(int stream, String text) {
    }

    private static String next(BlockingQueue<Chunk> q, int stream) throws InterruptedException {
        while (true) {
            Chunk c = q.poll(10, TimeUnit.SECONDS);
            assertThat(c).as("output within 10 s").isNotNull();
            if (c.stream() == stream) {
                return c.text();
            }
        }
    }

    /**
     * The pumps read up to a MiB at a time, and a run is cut only after the read that took it past its cap: a
     * program that widened its pipe (F_SETPIPE_SZ) once streamed a whole MiB live under a 4 KiB cap.
     */
    @Test
    void streamsNoMoreThanTheOutputLimitOfEachStream() throws Exception {
        long[] streamed = new long[3];
        String flood = "import fcntl, sys\n"
                + "for fd in (1, 2):\n"
                + "    try:\n"
                + "        fcntl.fcntl(fd, 1031, 1 << 20)\n"
                + "    except OSError:\n"
                + "        pass\n"
                + "block = b'x' * (1 << 20)\n"
                + "for _ in range(64):\n"
                + "    sys.stderr.buffer.write(block)\n"
                + "    sys.stdout.buffer.write(block)\n";
        LiveExecution live = scratch.sandbox.start(new ExecutionRequest(new Program(Language.PYTHON, flood), "",
                ResourceLimits.defaults().withMaxOutputBytes(4096)), (stream, text) -> {
                    synchronized (streamed) {
                        streamed[stream] += text.length();
                    }
                });
        live.closeStdin();
        Execution e = live.await();
        assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OUTPUT_LIMIT);
        synchronized (streamed) {
            assertThat(streamed[LiveExecution.Listener.STDOUT]).as("stdout streamed").isLessThanOrEqualTo(4096);
            assertThat(streamed[LiveExecution.Listener.STDERR]).as("stderr streamed").isLessThanOrEqualTo(4096);
        }
    }

    /**
     * A program's stderr is held back from its first NUL byte and sent at the end from the result's stderr, starting
     * where the live part stopped. The live part was counted in the program's bytes, the result in its text's UTF-8
     * encoding, where each malformed byte is U+FFFD (three bytes): what is streamed must still be what the result says.
     */
    @Test
    void streamsStderrAsTheResultHasItWhenMalformedBytesComeBeforeANulByte() throws Exception {
        StringBuilder err = new StringBuilder();
        LiveExecution live = scratch.sandbox.start(new ExecutionRequest(new Program(Language.PYTHON,
                "import sys\nsys.stderr.buffer.write(b'\\xff' * 100 + b'\\x00tail')\nsys.stderr.flush()\n"), "",
                ResourceLimits.defaults()), (stream, text) -> {
                    if (stream == LiveExecution.Listener.STDERR) {
                        synchronized (err) {
                            err.append(text);
                        }
                    }
                });
        live.closeStdin();
        Execution e = live.await();
        assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
        synchronized (err) {
            assertThat(err.toString().chars().filter(c -> c == '\uFFFD').count()).as("U+FFFD streamed, in the result: %s",
                    e.stderr().text().chars().filter(c -> c == '\uFFFD').count()).isEqualTo(100);
            assertThat(err.toString()).as("stderr streamed").isEqualTo(e.stderr().text());
        }
    }

    @Test
    void answersEachLineWrittenWhileItRunsAndEndsAtEndOfFile() throws Exception {
        BlockingQueue<Chunk> seen = new LinkedBlockingQueue<>();
        List<Chunk> all = new java.util.concurrent.CopyOnWriteArrayList<>();
        LiveExecution live = scratch.sandbox.start(new ExecutionRequest(new Program(Language.PYTHON,
                "import sys\nprint('ready', flush=True)\nprint('to stderr', file=sys.stderr, flush=True)\n"
                        + "for line in sys.stdin:\n    print(line.strip().upper(), flush=True)\nprint('bye')\n"), "first\n",
                ResourceLimits.defaults()), (stream, text) -> {
                    seen.add(new Chunk(stream, text));
                    all.add(new Chunk(stream, text));
                });
        StringBuilder out = new StringBuilder(next(seen, LiveExecution.Listener.STDOUT));
        assertThat(out.toString()).startsWith("ready");
        live.write("second\n");
        while (!out.toString().contains("SECOND")) {
            out.append(next(seen, LiveExecution.Listener.STDOUT));
        }
        assertThat(out.toString()).contains("FIRST");
        live.closeStdin();
        Execution e = live.await();
        assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("ready\nFIRST\nSECOND\nbye\n");
        StringBuilder err = new StringBuilder();
        all.stream().filter(c -> c.stream() == LiveExecution.Listener.STDERR).forEach(c -> err.append(c.text()));
        assertThat(err.toString()).as("the supervisor's report is not the program's stderr").isEqualTo("to stderr\n");
    }

    @Test
    void aSignalReachesTheProgramNotTheSupervisor() throws Exception {
        BlockingQueue<Chunk> seen = new LinkedBlockingQueue<>();
        LiveExecution live = scratch.sandbox.start(new ExecutionRequest(new Program(Language.PYTHON,
                "import time\nprint('waiting', flush=True)\ntime.sleep(30)\n"), "", ResourceLimits.defaults()),
                (stream, text) -> seen.add(new Chunk(stream, text)));
        assertThat(next(seen, LiveExecution.Listener.STDOUT)).startsWith("waiting");
        assertThat(live.signal(15)).isTrue();
        Execution e = live.await();
        assertThat(e.signal()).as(e.outcome() + " " + e.detail()).isEqualTo(15);
        assertThat(e.exitCode()).isNull();
        assertThat(live.signal(15)).as("nothing left to signal").isFalse();
    }

    @Test
    void theLimitsHoldAndACancelKillsIt() throws Exception {
        LiveExecution timed = scratch.sandbox.start(new ExecutionRequest(new Program(Language.PYTHON,
                "import sys\nsys.stdin.read()\n"), "", ResourceLimits.defaults().withWallTime(Duration.ofSeconds(1))),
                (stream, text) -> { });
        assertThat(timed.await().outcome()).as("stdin left open: the wall limit ends it").isEqualTo(Outcome.TIME_LIMIT);

        LiveExecution cancelled = scratch.sandbox.start(new ExecutionRequest(new Program(Language.PYTHON,
                "import time\ntime.sleep(30)\n"), "", ResourceLimits.defaults()), (stream, text) -> { });
        Thread.sleep(300);
        cancelled.cancel();
        assertThatThrownBy(cancelled::await).isInstanceOf(ExecutionCancelledException.class);
    }

    @Test
    void refusesWhatCannotRunLive() {
        assertThatThrownBy(() -> scratch.sandbox.start(ExecutionRequest.of(Language.C, "int main(){}"), (s, t) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("compile it first");
    }
}
