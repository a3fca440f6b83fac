package dev.codeagent.application.eval;

/**
 * Hears each sample's result as soon as it is judged, in completion order, one call at a time
 * (calls never overlap). Must be quick; an exception from it is logged and ignored.
 */
@FunctionalInterface
public interface EvaluationListener {

    EvaluationListener NONE = (result, progress) -> { };

    void finished(SampleResult result, EvaluationProgress progress);
}
