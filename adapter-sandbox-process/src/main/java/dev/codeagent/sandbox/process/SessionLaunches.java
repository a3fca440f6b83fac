package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Session launches: a session's kernel bridge in a sandbox that lives as long as the session. */
final class SessionLaunches extends Launches {

    SessionLaunches(Launches shared) {
        super(shared);
    }

    /**
     * Starts a session's kernel bridge ({@code python}, which must have ipykernel) in a sandbox of its own: a pool
     * uid, a control group with the session's memory and processes, RLIMIT_CPU at the session's CPU budget, no
     * network. The sandbox lives until the returned channel is destroyed.
     */
    SessionChannel startSession(dev.codeagent.domain.session.SessionLimits limits, Path python) {
        if (closed()) {
            throw new SandboxUnavailableException("the process sandbox is closed");
        }
        LongLived bridge;
        try {
            Duration hour = Duration.ofHours(1);
            Duration cpu = limits.cpuBudget().compareTo(hour) > 0 ? hour : limits.cpuBudget();
            ResourceLimits rl = new ResourceLimits(hour, cpu, limits.memoryBytes(), limits.maxProcesses(),
                    limits.maxOutputBytesPerCell(), limits.diskBytes(), false);
            List<String> argv = List.of(python.toString(), "-I", "-c", dev.codeagent.kit.sandbox.BridgeSession.script());
            // no address-space limit: a kernel's threads reserve far more than they use; the group holds the memory
            bridge = startLongLived(rl, false, argv, List.of(), null, true);
        } catch (IOException | RuntimeException e) {
            throw new SandboxUnavailableException("could not start a session's sandbox: " + e.getMessage(), e);
        }
        SessionChannel channel = new SessionChannel(bridge.process(), threads, bridge.release());
        ChildGroup g = bridge.group();
        if (g != null) {
            // the CPU budget is the whole session's, over every process it ever ran: the group's figure, polled
            long budget = limits.cpuBudget().toNanos();
            Process p = bridge.process();
            threads.submit(() -> {
                while (!channel.destroyed() && p.isAlive()) {
                    try {
                        if (g.cpuNanos() > budget) {
                            channel.ended("the session used its CPU budget of " + limits.cpuBudget().toSeconds() + "s");
                            return;
                        }
                        Thread.sleep(100);
                    } catch (InterruptedException | RuntimeException e) {
                        return;
                    }
                }
            });
        }
        return channel;
    }
}
