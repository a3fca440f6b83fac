package dev.codeagent.domain.solving;

/**
 * Hears a run's progress as it happens. Called on the run's own thread; must be quick and must not
 * throw (an exception from a listener is logged and ignored by the caller).
 */
@FunctionalInterface
public interface RunListener {

    RunListener NONE = event -> { };

    void on(RunEvent event);
}
