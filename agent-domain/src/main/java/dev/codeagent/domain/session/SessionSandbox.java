package dev.codeagent.domain.session;

import dev.codeagent.domain.execution.SandboxUnavailableException;

/**
 * A sandbox tier that can host {@link Session}s: each session gets a sandbox of its own, with the tier's
 * isolation, holding the session's limits for the session's whole life.
 */
public interface SessionSandbox {

    /** The tier name: {@code "process"} or {@code "docker"}. */
    String tier();

    /**
     * Opens a session: starts its sandbox and its kernel, and returns when the kernel answers.
     *
     * @throws SandboxUnavailableException when this host cannot run a kernel (no ipykernel, no isolation the
     *     tier needs) or the sandbox is closed; the message says what is missing, in one line
     */
    Session open(SessionLimits limits);
}
