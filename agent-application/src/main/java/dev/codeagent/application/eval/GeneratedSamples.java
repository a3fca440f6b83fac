package dev.codeagent.application.eval;

import java.util.List;

/**
 * Samples written by a code generator.
 *
 * @param samples the final code of each run (after repair, when the loop had attempts to spare)
 * @param firstAttempts the code of each run's first attempt, in the same order: what the model
 *     wrote without feedback, to compare pass@1 with and without the debug loop
 * @param repairedRuns runs that needed more than one attempt
 */
public record GeneratedSamples(List<Sample> samples, List<Sample> firstAttempts, int repairedRuns) {

    public GeneratedSamples {
        samples = List.copyOf(samples);
        firstAttempts = List.copyOf(firstAttempts);
        if (samples.size() != firstAttempts.size()) {
            throw new IllegalArgumentException("one first attempt per sample: " + samples.size() + " vs " + firstAttempts.size());
        }
    }
}
