package dev.codeagent.cli;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.work.ProcessQueuedRuns;
import dev.codeagent.application.work.WorkQueue;
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
        description = {"Work runs queued in a shared store (store.kind: postgres) until stopped: claim one, solve it with",
                "this machine's sandbox and generator from its last recorded attempt, record every attempt, repeat.",
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

    @Override
    public Integer call() {
        CodeAgentConfig config = cli.config(Map.of());
        PrintWriter err = spec.commandLine().getErr();
        try (CodeAgent agent = cli.agent(config)) {
            WorkQueue queue = agent.workQueue().orElseThrow(() -> new UsageException("store.kind " + config.store().kind()
                    + " keeps no queue for other processes; 'codeagent worker' needs store.kind: postgres"));
            ProcessQueuedRuns worker = new ProcessQueuedRuns(queue, agent.solveTask(), Duration.ofSeconds(5));
            Thread me = Thread.currentThread();
            CountDownLatch done = new CountDownLatch(1);
            Thread stopper = new Thread(() -> {
                // SIGTERM or Ctrl-C: the run in hand ends ERROR saying the worker stopped, and is not lost
                me.interrupt();
                try {
                    done.await(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "codeagent-worker-stop");
            Runtime.getRuntime().addShutdownHook(stopper);
            err.println("codeagent: worker " + ProcessHandle.current().pid() + " waiting for queued runs ("
                    + queue.depth() + " waiting)");
            err.flush();
            try {
                int worked = exitWhenIdle ? worker.drain(event -> { }) : worker.run(() -> false, event -> { });
                err.println("codeagent: worker stopped after " + worked + " runs");
                err.flush();
            } finally {
                done.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(stopper);
                } catch (IllegalStateException e) {
                    // already shutting down
                }
            }
        }
        return ExitStatus.OK;
    }
}
