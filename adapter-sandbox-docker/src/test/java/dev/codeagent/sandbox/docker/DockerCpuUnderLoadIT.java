package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A program's CPU time is the CPU it used, on a loaded host too. RLIMIT_CPU is checked against clocks that run ahead
 * of the CPU really used when the host is busy: the kernel's tick sampling under runc, and under gVisor its own
 * kernel's clock, which counts the time the host preempted the program while it was in the program. A program
 * doing half its limit's work on a host loaded several runnable threads deep got SIGXCPU under gVisor and the
 * verdict "killed at the CPU-time limit" while the host had counted well under the limit. The container's group, read
 * exactly by the host, holds the limit; RLIMIT_CPU is a backstop behind it.
 */
@Tag("docker")
class DockerCpuUnderLoadIT {

    /** About a second of CPU for CPython here (half the limit or less), with no system call in the loop. */
    private static final String WORK = "n = 0\nfor i in range(12_000_000):\n    n += i\nprint(n)\n";
    private static final String SUM = Long.toString(12_000_000L * 11_999_999L / 2);
    /** Other sandboxes' programs spinning beside it: on two cores it gets about a fifth of one. */
    private static final int LOAD_THREADS = 8;

    @Nested
    class Runc {
        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(1);

        @Test
        void halfTheLimitOnALoadedHostIsNotTheLimit() throws InterruptedException {
            assertWithinLimitUnderLoad(tier.sandbox());
        }
    }

    @Nested
    class Runsc {
        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runsc(1);

        @Test
        void halfTheLimitOnALoadedHostIsNotTheLimit() throws InterruptedException {
            assertWithinLimitUnderLoad(tier.sandbox());
        }
    }

    static void assertWithinLimitUnderLoad(DockerSandbox sandbox) throws InterruptedException {
        ResourceLimits limits = ResourceLimits.defaults().withCpuTime(Duration.ofSeconds(2)).withWallTime(Duration.ofSeconds(60));
        ExecutionRequest request = new ExecutionRequest(new Program(Language.PYTHON, WORK), "", limits);
        // unloaded first: the work really is well under the limit here
        Execution alone = sandbox.execute(request);
        assertThat(alone.outcome()).as(alone.detail() + " " + alone.stderr().text()).isEqualTo(Outcome.OK);
        assertThat(alone.cpuTime()).as("the work alone").isLessThan(Duration.ofMillis(1700));

        // the load: other sandboxes' programs spinning, each container a control group with the same CPU share as the
        // program's (threads of this JVM would share one group's share, and barely slow the program)
        ResourceLimits spin = ResourceLimits.defaults().withCpuTime(Duration.ofSeconds(30)).withWallTime(Duration.ofSeconds(9));
        ExecutionRequest spinner = new ExecutionRequest(new Program(Language.PYTHON, "while True:\n    pass\n"), "", spin);
        List<Thread> load = new ArrayList<>();
        for (int i = 0; i < LOAD_THREADS; i++) {
            Thread t = new Thread(() -> sandbox.execute(spinner), "cpu-load-" + i);
            t.setDaemon(true);
            t.start();
            load.add(t);
        }
        // the spinners running before the program starts
        Thread.sleep(2500);
        Execution loaded;
        try {
            loaded = sandbox.execute(request);
        } finally {
            for (Thread t : load) {
                t.join();
            }
        }
        assertThat(loaded.outcome()).as("on a loaded host: " + loaded.detail() + "; cpu " + loaded.cpuTime() + ", wall "
                + loaded.wallTime() + "; alone it used " + alone.cpuTime()).isEqualTo(Outcome.OK);
        assertThat(loaded.stdout().text()).isEqualTo(SUM + "\n");
        assertThat(loaded.cpuTime()).as("the CPU it used, not the time it waited").isLessThan(limits.cpuTime());
    }
}
