package dev.codeagent.sandbox.process;

import dev.codeagent.kit.sandbox.BridgeSession;
import dev.codeagent.kit.sandbox.EndingChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.ExecutorService;

/**
 * A session's sandbox as its {@link BridgeSession} sees it: the kernel bridge's stdin and stdout, the tail of its
 * stderr, and a way to end it all. The bridge runs in a bubblewrap sandbox of its own under a pool uid of its own,
 * in a control group holding the session's memory and processes for its whole life, under the tier's seccomp
 * filter, with no network; {@link #destroy()} kills the group, sweeps the uid and removes the session's directory.
 */
final class SessionChannel extends EndingChannel {

    private final Process process;
    private final Runnable release;

    SessionChannel(Process process, ExecutorService threads, Runnable release) {
        this.process = process;
        this.release = release;
        threads.submit(this::drainStderr);
    }

    @Override
    public InputStream frames() {
        return process.getInputStream();
    }

    @Override
    public OutputStream commands() {
        return process.getOutputStream();
    }

    @Override
    protected void release() {
        release.run();
    }

    /** Keeps the last bytes of the bridge's stderr (the kernel's complaints) so the pipe never fills. */
    private void drainStderr() {
        byte[] buf = new byte[8192];
        try (InputStream err = process.getErrorStream()) {
            int n;
            while ((n = err.read(buf)) > 0) {
                tail.accept(buf, 0, n);
            }
        } catch (IOException e) {
            // the bridge has ended
        }
    }
}
