package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.sandbox.HostProbe;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine stops mid-run and comes back: the run ends as SANDBOX_ERROR instead of hanging, runs
 * while it is down fail fast, and afterwards the tier works again with nothing left behind — without
 * anyone touching the sandbox. Restarts this machine's engine, so it runs only where a test may.
 */
@Tag("docker")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DockerEngineFaultIT {

    private static final ResourceLimits LIMITS = ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10));

    @Test
    void endsARunCutByAnEngineStopAsSandboxErrorFailsFastWhileDownAndRecovers() throws Exception {
        DockerTestSupport.assumeDocker();
        EngineControl.whyNotRestartable().ifPresent(why -> Assumptions.abort("cannot restart the engine here: " + why));
        AutoCloseable alone = EngineLock.exclusive(Duration.ofMinutes(3));
        if (alone == null) {
            Assumptions.abort("other docker tests on this machine kept the engine busy for 3 minutes");
        }
        try (alone) {
            stopAndRestartTheEngineMidRun();
        }
    }

    private void stopAndRestartTheEngineMidRun() throws Exception {
        assertThat(EngineControl.start(Duration.ofSeconds(60))).as("the engine answers before the test").isTrue();
        DockerSandbox sandbox = DockerTestSupport.sandbox(1, ResourceLimits.defaults());
        ExecutorService caller = Executors.newSingleThreadExecutor();
        String marker = HostProbe.marker("engine-stop");
        try {
            assertThat(sandbox.awaitSettled(Duration.ofSeconds(30))).isTrue();
            Future<Execution> running = caller.submit(() -> sandbox.execute(new ExecutionRequest(
                    new Program(Language.PYTHON, "import time\nprint('up', flush=True)\ntime.sleep(120)"), "",
                    List.of(marker), LIMITS.withWallTime(Duration.ofSeconds(60)).withCpuTime(Duration.ofSeconds(60)))));
            HostProbe.awaitProcessWithArg(marker, Duration.ofSeconds(20));
            assertThat(HostProbe.processesWithArg(marker)).as("the run started").isNotEmpty();

            long stoppedAt = System.nanoTime();
            EngineControl.stop();
            Execution cut = running.get(30, TimeUnit.SECONDS);
            assertThat(cut.outcome()).as(cut.detail()).isEqualTo(Outcome.SANDBOX_ERROR);
            assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).as("ended promptly, no hang").isLessThan(Duration.ofSeconds(15));

            for (int i = 0; i < 3; i++) {
                long t = System.nanoTime();
                Execution down = sandbox.execute(ExecutionRequest.of(Language.PYTHON, "print(1)"));
                assertThat(down.outcome()).isEqualTo(Outcome.SANDBOX_ERROR);
                assertThat(down.detail()).isNotBlank();
                assertThat(Duration.ofNanos(System.nanoTime() - t)).as("fails fast while the engine is down")
                        .isLessThan(Duration.ofSeconds(2));
            }

            assertThat(EngineControl.start(Duration.ofSeconds(60))).as("the engine came back").isTrue();
            Execution back = null;
            long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < until) {
                back = sandbox.execute(ExecutionRequest.of(Language.PYTHON, "print('back')"));
                if (back.outcome() == Outcome.OK) {
                    break;
                }
                Thread.sleep(250);
            }
            assertThat(back).isNotNull();
            assertThat(back.outcome()).as(back.detail()).isEqualTo(Outcome.OK);
            assertThat(back.stdout().text()).isEqualTo("back\n");

            assertThat(sandbox.awaitSettled(Duration.ofSeconds(60))).as("the pool refilled, the dead containers were removed").isTrue();
            assertThat(DockerTestSupport.containersOf(sandbox.ownerId())).as("only the warm container remains").hasSize(1);
            assertThat(HostProbe.survivors(marker, Duration.ofSeconds(20))).as("the program cut off by the stop").isEmpty();
        } finally {
            caller.shutdownNow();
            EngineControl.start(Duration.ofSeconds(60));
            sandbox.close();
        }
        assertThat(DockerTestSupport.leftovers()).as("containers left behind").isEmpty();
    }
}
