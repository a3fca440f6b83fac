package dev.codeagent.cli;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.work.RunWorker;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code codeagent worker}: works runs queued in a shared store, with this machine's sandbox and generator. */
@Command(name = "worker",
        // one whole sentence per line: picocli lists a command by its first line, and wraps each line on its own
        description = {"Work runs and executions queued in a shared store (store.kind: postgres) until stopped.",
                "It claims a run, solves it with this machine's sandbox and generator from its last recorded attempt,"
                        + " records every attempt, and repeats.",
                "Meanwhile it runs queued single executions (e.g. the samples of 'codeagent eval --queue') on every"
                        + " execution place this machine has (sandbox.maxConcurrent), recording each result for its submitter.",
                "Any number of workers on any machines may share one database."},
        usageHelpAutoWidth = true,
        footerHeading = "%nExit status:%n",
        footer = {"  0  stopped (SIGTERM, Ctrl-C) or, with --exit-when-idle, nothing left", "  2  bad usage or config (e.g. a store that keeps no queue)"})
final class WorkerCommand implements Callable<Integer> {

    /** How long a stop waits for the run in hand to record its end. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    @ParentCommand
    CodeAgentCli cli;

    @Spec
    CommandSpec spec;

    @Option(names = "--exit-when-idle", description = "Stop once no run is waiting, instead of waiting for more.")
    boolean exitWhenIdle;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "Serve this worker's metrics (Prometheus text) at"
            + " http://HOST:PORT/metrics; 0 picks a free port, named on stderr.")
    Integer metricsPort;

    @Option(names = "--metrics-host", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "The address the metrics listen on (default ${DEFAULT-VALUE}: this machine only).")
    String metricsHost;

    @Override
    public Integer call() {
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
            throw new UsageException("--metrics-port: " + metricsPort + " is not a port (0 to 65535)");
        }
        // runs other people's code: strict isolation unless the config says best-effort
        CodeAgentConfig config = cli.configForService(Map.of());
        PrintWriter err = spec.commandLine().getErr();
        // counted down once the agent is closed too: a stop waits for the store to let go of this worker (its owner
        // row deleted, its claims handed back), not just for the loops to end
        CountDownLatch done = new CountDownLatch(1);
        try (CodeAgent agent = cli.agent(config)) {
            if (agent.workQueue().isEmpty()) {
                throw new UsageException("store.kind " + config.store().kind()
                        + " keeps no queue for other processes; 'codeagent worker' needs store.kind: postgres");
            }
            // built before the first claim: a worker whose sandbox cannot run here refuses to start
            RunWorker worker = agent.worker();
            if (!worker.isolation().missing().isEmpty()) {
                // best-effort was asked for explicitly (a worker is strict by default): say once what every run lacks
                err.println("codeagent: warning: worker running with sandbox.isolation: best-effort: every run lacks "
                        + String.join(", ", worker.isolation().sortedMissing()));
            }
            WorkerMetrics metrics = null;
            if (metricsPort != null) {
                try {
                    metrics = WorkerMetrics.start(metricsHost, metricsPort, agent.meters());
                } catch (java.io.IOException | RuntimeException e) {
                    throw new UsageException("--metrics-port: cannot listen on " + metricsHost + ":" + metricsPort + ": "
                            + e.getMessage());
                }
            }
            Thread stopper = new Thread(() -> {
                // SIGTERM or Ctrl-C: the run in hand ends ERROR saying the worker stopped, and is not lost
                worker.stop();
                try {
                    done.await(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "codeagent-worker-stop");
            Runtime.getRuntime().addShutdownHook(stopper);
            err.println("codeagent: worker " + ProcessHandle.current().pid() + " waiting for queued runs ("
                    + worker.runsWaiting() + " waiting) and executions (" + worker.executionsWaiting() + " waiting, "
                    + worker.places() + " at once)" + (metrics == null ? ""
                    : "; metrics at http://" + metricsHost + ":" + metrics.port() + "/metrics"));
            err.flush();
            try {
                RunWorker.Worked worked = worker.work(exitWhenIdle);
                err.println("codeagent: worker stopped after " + worked.runs() + " runs and " + worked.executions()
                        + " executions");
                err.flush();
            } finally {
                if (metrics != null) {
                    metrics.close();
                }
                try {
                    Runtime.getRuntime().removeShutdownHook(stopper);
                } catch (IllegalStateException e) {
                    // already shutting down
                }
            }
        } finally {
            done.countDown();
        }
        return ExitStatus.OK;
    }

    /**
     * Refuses, in the words of what the user typed, a command that sends executions to the workers when the store in
     * use keeps no queue for them, before the composition's queue sandbox would say it in its own.
     *
     * @param flag whether {@code --queue} was typed (else {@code sandbox.kind: queue} was set)
     * @throws UsageException when the configured store keeps no queue for other processes
     */
    static void requireExecutionQueue(CodeAgent agent, boolean flag) {
        if (agent.executionQueue().isEmpty()) {
            throw new UsageException(CodeAgentCli.queueSource(flag) + ": store.kind " + agent.config().store().kind()
                    + " keeps no queue for other processes; running on workers needs store.kind: postgres");
        }
    }
}
