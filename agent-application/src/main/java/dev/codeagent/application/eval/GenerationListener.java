package dev.codeagent.application.eval;

import dev.codeagent.domain.solving.Run;

/** Hears each generated sample as its run ends, one call at a time. Must be quick; exceptions are logged and ignored. */
@FunctionalInterface
public interface GenerationListener {

    GenerationListener NONE = (sample, run, done, total) -> { };

    /**
     * @param sample the sample taken from the run
     * @param run the agent-loop run that produced it
     * @param done runs finished so far
     * @param total runs in all
     */
    void generated(Sample sample, Run run, int done, int total);
}
