package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.LiveExecution;
import dev.codeagent.kit.sandbox.LiveOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process tier's {@link LiveExecution}: an ordinary supervised cold run ({@link ColdLaunches#cold}) on a thread of its
 * own, whose stdin is left open after the job and whose output pumps also hand each chunk here.
 *
 * <p>What is held back: the supervisor reports the program's wait status on stderr behind a NUL byte and a nonce
 * once everything of the run is dead. So stderr is passed on live up to the first NUL byte of a chunk; from there on
 * it waits for the end, when the report has been taken off and the rest of the program's own stderr is sent. (A
 * program that writes NUL bytes to stderr has the rest of its stderr come at its end.)
 */
final class LiveChild implements LiveExecution {

    private static final Logger log = LoggerFactory.getLogger(LiveChild.class);

    private final LiveOutput output;
    private final CompletableFuture<OutputStream> stdin = new CompletableFuture<>();
    /** Guards what of stderr was passed on. */
    private final Object errLock = new Object();
    private volatile boolean stdinClosed;
    private volatile ChildGroup group;
    private FutureTask<Execution> task;
    private boolean errHeld;
    /** Characters of stderr streamed before its first NUL byte, counted as the result's text counts them. */
    private long errStreamed;

    LiveChild(Listener listener, long maxOutputBytes) {
        this.output = new LiveOutput(listener, maxOutputBytes);
    }

    /** Starts {@code body} (the cold run that feeds this object) on a thread of its own. */
    LiveChild start(java.util.concurrent.Callable<Execution> body) {
        task = new FutureTask<>(body);
        Thread t = new Thread(task, "process-sandbox-live");
        t.setDaemon(true);
        t.start();
        return this;
    }

    /** Called by the run once its group exists and its stdin is open. */
    void opened(ChildGroup runGroup, OutputStream programStdin) {
        this.group = runGroup;
        stdin.complete(programStdin);
        if (stdinClosed) {
            close(programStdin);
        }
    }

    /** A chunk one of the run's pumps read (stream: ArrivalOrder's numbering). */
    void chunk(int stream, byte[] b, int off, int len) {
        if (stream == dev.codeagent.kit.sandbox.ArrivalOrder.STDOUT) {
            output.pass(Listener.STDOUT, b, off, len);
            return;
        }
        synchronized (errLock) {
            if (errHeld) {
                return;
            }
            int upto = len;
            for (int i = off; i < off + len; i++) {
                if (b[i] == 0) {
                    upto = i - off;
                    errHeld = true;
                    break;
                }
            }
            errStreamed += output.pass(Listener.STDERR, b, off, upto);
        }
    }

    @Override
    public void write(String text) {
        if (stdinClosed) {
            throw new IllegalStateException("stdin is closed");
        }
        try {
            OutputStream os = stdin.get(30, TimeUnit.SECONDS);
            synchronized (os) {
                os.write(text.getBytes(StandardCharsets.UTF_8));
                os.flush();
            }
        } catch (IOException programStoppedReading) {
            // the program closed its stdin or ended: what it does not read is its business
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | java.util.concurrent.TimeoutException notStarted) {
            log.debug("live run: stdin never opened: {}", notStarted.toString());
        }
    }

    @Override
    public void closeStdin() {
        stdinClosed = true;
        OutputStream os = stdin.getNow(null);
        if (os != null) {
            close(os);
        }
    }

    @Override
    public boolean signal(int signal) {
        if (signal < 1 || signal > 64) {
            throw new IllegalArgumentException("not a signal: " + signal);
        }
        ChildGroup g = group;
        if (g == null || task.isDone()) {
            return false;
        }
        boolean sent = false;
        for (long pid : g.pids()) {
            // the sandbox's init (the supervisor, pid 1 inside) stays: it reports how the program ended
            if (isProgramProcess(pid)) {
                sent |= kill(signal, pid);
            }
        }
        return sent;
    }

    @Override
    public void cancel() {
        task.cancel(true);
    }

    @Override
    public Execution await() {
        Execution e = LiveOutput.await(task);
        output.end(Listener.STDOUT, new byte[0], 0, 0);
        synchronized (errLock) {
            if (errHeld && e != null) {
                // the rest in the result's characters, counted as they were streamed: the program's bytes and the
                // result's text differ in length (a malformed byte is one U+FFFD, three bytes of UTF-8)
                String all = e.stderr().text();
                output.endWith(Listener.STDERR, all.substring((int) Math.min(errStreamed, all.length())));
            } else {
                output.end(Listener.STDERR, new byte[0], 0, 0);
            }
        }
        return e;
    }

    /** How deep this JVM's own pid namespace is: its processes' NSpid lines have this many ids. */
    private static final int OWN_DEPTH = nsPids("self").length;

    /**
     * Whether a process of the run's group is the program's: inside the sandbox's pid namespace (one level below
     * this JVM's: bubblewrap's own processes are not) and not its init, the supervisor (pid 1 there).
     */
    private static boolean isProgramProcess(long pid) {
        String[] ids = nsPids(Long.toString(pid));
        return ids.length > OWN_DEPTH && !ids[ids.length - 1].equals("1");
    }

    private static String[] nsPids(String pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
                if (line.startsWith("NSpid:")) {
                    return line.substring("NSpid:".length()).trim().split("\\s+");
                }
            }
        } catch (IOException gone) {
            // ended meanwhile
        }
        return new String[0];
    }

    private static boolean kill(int signal, long pid) {
        try {
            Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void close(OutputStream os) {
        try {
            os.close();
        } catch (IOException ignored) {
            // the pipe's other end is gone
        }
    }
}
