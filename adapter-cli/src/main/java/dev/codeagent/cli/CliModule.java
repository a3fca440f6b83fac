package dev.codeagent.cli;

import com.google.inject.Provides;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.run.RecoverInterruptedRuns;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.work.SubmitQueuedRun;
import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.solving.RunLog;
import jakarta.inject.Provider;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The command line's door into the composition: the application services its commands use, so that a command maps
 * its flags onto them and renders what they return, and wires nothing itself. Listed for discovery like every
 * adapter module; it registers under no key and reads no section of its own.
 */
public final class CliModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of();
    }

    @Override
    protected void configure() {
        bind(CliServices.class).in(LazySingleton.class);
    }

    /**
     * A whole run handed to the workers ({@code sandbox.kind: queue}, {@code solve --queue}), when the store in use
     * keeps a run queue; empty otherwise. The run log is opened only when there is a queue to follow runs through.
     */
    @Provides
    Optional<SubmitQueuedRun> queuedRuns(Optional<WorkQueue> queue, Provider<RunLog> runLog, Clock clock) {
        return queue.map(q -> new SubmitQueuedRun(q, runLog.get(), clock));
    }

    /** What every door does at start: runs an earlier process left RUNNING end ERROR. */
    @Provides
    RecoverInterruptedRuns recovery(RunLog runLog) {
        return new RecoverInterruptedRuns(runLog);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CliModule;
    }

    @Override
    public int hashCode() {
        return CliModule.class.hashCode();
    }
}
