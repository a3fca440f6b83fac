package dev.codeagent.application.run;

import dev.codeagent.domain.solving.Run;
import java.util.Objects;

/**
 * Who asks about runs, as a door names them: the {@linkplain Run#owner owner} the runs they start are recorded
 * with, and whether they are an operator. A caller sees and cancels its own runs only; any other run, one of
 * another caller or one that belongs to no one, is to it as one that does not exist. An operator sees them all.
 * Every door (HTTP, CLI, and those to come) names its caller this way and asks {@link VisibleRuns}.
 *
 * @param owner what the caller's runs are recorded with ({@code key:NAME}, {@code local:USER}); null only for an
 *     operator whose runs belong to no one (an HTTP server with auth off, where callers are not told apart)
 * @param operator whether the caller sees every run
 */
public record Caller(String owner, boolean operator) {

    public Caller {
        if (owner == null && !operator) {
            throw new IllegalArgumentException("a caller who is not an operator needs an owner name");
        }
        // the run's own rule, so that a caller's name can always be recorded
        Run.checkOwner(owner);
    }

    /** A caller who sees their own runs. */
    public static Caller owning(String owner) {
        return new Caller(Objects.requireNonNull(owner, "owner"), false);
    }

    /** The holder of the API key named {@code name}: their runs are recorded as {@code key:NAME}. */
    public static Caller apiKey(String name, boolean operator) {
        return new Caller("key:" + Objects.requireNonNull(name, "name"), operator);
    }

    /**
     * The user this process runs as, {@code local:USER}: the JDK takes the name from the process's uid (not from
     * {@code $USER}, which anyone can set).
     */
    public static Caller localUser() {
        return owning("local:" + System.getProperty("user.name"));
    }

    /** The same caller, as an operator (a local user asking for every run with {@code --all}). */
    public Caller asOperator() {
        return new Caller(owner, true);
    }

    /** Whether this caller may see (and cancel) the run. */
    public boolean sees(Run run) {
        return operator || (owner != null && owner.equals(run.owner()));
    }
}
