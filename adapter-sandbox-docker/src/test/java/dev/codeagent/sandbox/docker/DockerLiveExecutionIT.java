package dev.codeagent.sandbox.docker;

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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Programs run live on the docker tier, on runc and on gVisor: output as it is written, stdin written while the
 * program runs, signals to the program (not its supervisor), a forged supervisor report that stays output, and the
 * limits of a plain run.
 */
@Tag("docker")
class DockerLiveExecutionIT {

    @Nested
    class Runc extends LiveCases {
        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(1);

        @Override
        DockerSandbox sandbox() {
            return tier.sandbox();
        }
    }

    @Nested
    class Runsc extends LiveCases {
        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runsc(1);

        @Override
        DockerSandbox sandbox() {
            return tier.sandbox();
        }
    }

    private record Chunk(int stream, String text, long atNanos) {
    }

    abstract static class LiveCases {

        abstract DockerSandbox sandbox();

        private final BlockingQueue<Chunk> seen = new LinkedBlockingQueue<>();
        private final List<Chunk> all = new CopyOnWriteArrayList<>();

        private LiveExecution start(String python, String stdin, ResourceLimits limits) {
            return sandbox().start(new ExecutionRequest(new Program(Language.PYTHON, python), stdin, limits),
                    (stream, text) -> {
                        Chunk c = new Chunk(stream, text, System.nanoTime());
                        seen.add(c);
                        all.add(c);
                    });
        }

        /** Stdout as it comes, until it holds {@code wanted}. */
        private String stdoutUntil(StringBuilder out, String wanted) throws InterruptedException {
            while (!out.toString().contains(wanted)) {
                Chunk c = seen.poll(20, TimeUnit.SECONDS);
                assertThat(c).as("output within 20 s; so far: " + out).isNotNull();
                if (c.stream() == LiveExecution.Listener.STDOUT) {
                    out.append(c.text());
                }
            }
            return out.toString();
        }

        private String streamed(int stream) {
            StringBuilder b = new StringBuilder();
            all.stream().filter(c -> c.stream() == stream).forEach(c -> b.append(c.text()));
            return b.toString();
        }

        @Test
        void printsSleepsReadsALineWrittenWhileItRunsThenExits() throws Exception {
            LiveExecution live = start("import sys, time\nprint('ready', flush=True)\n"
                    + "print('to stderr', file=sys.stderr, flush=True)\nprint(sys.stdin.readline().strip().upper(), flush=True)\n"
                    + "time.sleep(1.5)\nline = sys.stdin.readline()\nprint('got', line.strip(), flush=True)\n"
                    + "print('eof' if sys.stdin.read() == '' else 'more')\n", "first\n", ResourceLimits.defaults());
            StringBuilder out = new StringBuilder();
            stdoutUntil(out, "FIRST");
            long firstAt = System.nanoTime();
            live.write("second\n");
            stdoutUntil(out, "got second");
            live.closeStdin();
            Execution e = live.await();
            long endAt = System.nanoTime();
            assertThat(e.outcome()).as(e.detail() + " " + e.stderr().text()).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text()).isEqualTo("ready\nFIRST\ngot second\neof\n");
            assertThat(streamed(LiveExecution.Listener.STDOUT)).as("the stream is the program's stdout, no more")
                    .isEqualTo(e.stdout().text());
            assertThat(streamed(LiveExecution.Listener.STDERR)).as("the supervisor's marker is not the program's stderr")
                    .isEqualTo("to stderr\n");
            assertThat(Duration.ofNanos(endAt - firstAt)).as("output came while it ran, before its 1.5 s sleep")
                    .isGreaterThan(Duration.ofMillis(1200));
        }

        @Test
        void whatIsSentBeforeTheProgramStartsFollowsTheRequestsStdin() {
            LiveExecution live = start("import sys\nprint(repr(sys.stdin.read()))\n", "from the request\n",
                    ResourceLimits.defaults());
            live.write("sent at once\n");
            live.closeStdin();
            Execution e = live.await();
            assertThat(e.stdout().text()).as(e.detail()).isEqualTo("'from the request\\nsent at once\\n'\n");
        }

        @Test
        void signalsReachTheProgramNotItsSupervisor() throws Exception {
            LiveExecution live = start("import signal, sys, time\n"
                    + "signal.signal(signal.SIGINT, lambda s, f: print('got INT', flush=True))\n"
                    + "print('waiting', flush=True)\ntime.sleep(30)\ntime.sleep(30)\n", "", ResourceLimits.defaults());
            StringBuilder out = new StringBuilder();
            stdoutUntil(out, "waiting");
            assertThat(live.signal(2)).isTrue();
            stdoutUntil(out, "got INT");
            assertThat(live.signal(15)).isTrue();
            Execution e = live.await();
            assertThat(e.signal()).as(e.outcome() + " " + e.detail()).isEqualTo(15);
            assertThat(e.exitCode()).isNull();
            assertThat(live.signal(15)).as("nothing left to signal").isFalse();
            assertThatThrownBy(() -> live.signal(0)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void aForgedSupervisorReportIsOutputAndTheRealEndIsReported() throws Exception {
            String forged = "\\x00codeagent:00000000000000000000000000000000:"
                    + "{\"exit\":0,\"signal\":null,\"cpu\":0,\"maxrss\":0,\"oom\":0,\"judge\":null}\\n";
            LiveExecution live = start("import sys, time\nsys.stdout.write('" + forged + "')\nsys.stdout.flush()\n"
                    + "sys.stderr.write('" + forged.replace(":{", ":\\n{") + "')\nsys.stderr.flush()\n"
                    + "time.sleep(0.5)\nprint('after the forgery', flush=True)\nsys.exit(3)\n", "", ResourceLimits.defaults());
            Execution e = live.await();
            assertThat(e.exitCode()).as(e.detail()).isEqualTo(3);
            assertThat(e.outcome()).isEqualTo(Outcome.RUNTIME_ERROR);
            assertThat(e.stdout().text()).contains("codeagent:0000").endsWith("after the forgery\n");
            assertThat(streamed(LiveExecution.Listener.STDOUT)).isEqualTo(e.stdout().text());
            assertThat(streamed(LiveExecution.Listener.STDERR)).contains("codeagent:0000");
        }

        @Test
        void theWallLimitEndsALiveRunAndACancelKillsIt() throws Exception {
            LiveExecution timed = start("import sys\nprint('reading', flush=True)\nsys.stdin.read()\n", "",
                    ResourceLimits.defaults().withWallTime(Duration.ofSeconds(1)));
            Execution e = timed.await();
            assertThat(e.outcome()).as("stdin left open: the wall limit ends it; " + e.detail()).isEqualTo(Outcome.TIME_LIMIT);
            assertThat(e.stdout().text()).isEqualTo("reading\n");

            LiveExecution cancelled = start("import time\nprint('sleeping', flush=True)\ntime.sleep(30)\n", "",
                    ResourceLimits.defaults());
            stdoutUntil(new StringBuilder(), "sleeping");
            long t = System.nanoTime();
            cancelled.cancel();
            assertThatThrownBy(cancelled::await).isInstanceOf(ExecutionCancelledException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - t)).isLessThan(Duration.ofSeconds(10));
        }

        @Test
        void refusesWhatCannotRunLive() {
            assertThatThrownBy(() -> sandbox().start(ExecutionRequest.of(Language.C, "int main(){}"), (s, x) -> { }))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
