package dev.codeagent.sandbox.docker;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.LiveExecution;
import dev.codeagent.kit.sandbox.ArrivalOrder;
import dev.codeagent.kit.sandbox.LiveOutput;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;

/**
 * The docker tier's {@link LiveExecution}: an ordinary run ({@link DockerExecutions#run}) on a thread of its own whose
 * attach stream stays open after the payload and whose kept output is also handed here as it arrives.
 *
 * <p>What goes in: after the payload, the container's stdin carries {@link LiveFrames} that only the supervisor reads
 * (the program's stdin is a pipe the supervisor feeds): data for the program, the end of its stdin, a signal, which
 * the supervisor, pid 1, sends to every other process of the container. What comes out: only the bytes the run keeps
 * as the program's (see {@link AttachSession.Tap}); the supervisor's ack and its report behind the run's nonce never
 * reach the listener, and a program that prints a report line of its own prints output, not an end.
 */
final class LiveDocker implements LiveExecution, AttachSession.Tap {

    /** Frames not yet taken by the attach stream's writer: a writer waits (a few seconds at most) beyond this. */
    private static final int MAX_FRAMES = 1024;

    private final LiveOutput output;
    private final DockerSessionChannel.ChunkStream containerStdin = new DockerSessionChannel.ChunkStream(MAX_FRAMES);
    private volatile boolean stdinClosed;
    private FutureTask<Execution> task;
    /** Frames sent before the run put its payload in: they must follow it (the supervisor reads the payload first). */
    private final java.util.List<byte[]> early = new java.util.ArrayList<>();
    private boolean payloadSent;

    LiveDocker(Listener listener, long maxOutputBytes) {
        this.output = new LiveOutput(listener, maxOutputBytes);
    }

    /** Starts {@code body} (the run that feeds this object) on a thread of its own. */
    LiveDocker start(Callable<Execution> body) {
        task = new FutureTask<>(() -> {
            try {
                return body.call();
            } finally {
                // the attach stream's writer ends with the run
                containerStdin.end();
            }
        });
        Thread t = new Thread(task, "docker-sandbox-live");
        t.setDaemon(true);
        t.start();
        return this;
    }

    /** What the attach call writes to the container: the payload, then the frames. */
    DockerSessionChannel.ChunkStream containerStdin() {
        return containerStdin;
    }

    /** Called by the run before it attaches: the payload goes first, then what was sent meanwhile. */
    synchronized void payload(byte[] payload) {
        containerStdin.put(payload);
        early.forEach(containerStdin::put);
        early.clear();
        payloadSent = true;
    }

    /** @return false once the run is over (or its container's stdin stays full) */
    private synchronized boolean frame(byte[] frame) {
        if (!payloadSent) {
            early.add(frame);
            return true;
        }
        return containerStdin.offer(frame);
    }

    @Override
    public void kept(int stream, byte[] b, int off, int len) {
        output.pass(stream == ArrivalOrder.STDOUT ? Listener.STDOUT : Listener.STDERR, b, off, len);
    }

    @Override
    public void write(String text) {
        if (stdinClosed) {
            throw new IllegalStateException("stdin is closed");
        }
        if (!text.isEmpty()) {
            // false once the run is over: a pipe with no reader drops it
            frame(LiveFrames.data(text.getBytes(StandardCharsets.UTF_8)));
        }
    }

    @Override
    public void closeStdin() {
        if (!stdinClosed) {
            stdinClosed = true;
            frame(LiveFrames.closeStdin());
        }
    }

    @Override
    public boolean signal(int signal) {
        byte[] frame = LiveFrames.signal(signal);
        if (task.isDone()) {
            return false;
        }
        return frame(frame);
    }

    @Override
    public void cancel() {
        task.cancel(true);
    }

    @Override
    public Execution await() {
        Execution e = LiveOutput.await(task);
        output.end();
        return e;
    }
}
