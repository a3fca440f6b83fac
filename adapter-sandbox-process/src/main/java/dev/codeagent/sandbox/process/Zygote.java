package dev.codeagent.sandbox.process;

import dev.codeagent.application.sandbox.ChannelStreams;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM's end of {@code zygote.py}: one pre-started Python interpreter, root in a bubblewrap sandbox of its own,
 * that forks each Python program a sandbox of its own (uid, control groups, pid/mount/net/ipc/uts namespaces,
 * tmpfs, rlimits, seccomp filter — see the script) instead of starting bubblewrap, a supervisor and an interpreter.
 *
 * <p>Two wires: the zygote's stdin and stdout carry only tokens and wait statuses (it never sees a program's code,
 * input or output, so no later fork finds them in its memory); the run's own process connects to this JVM's door, a
 * Unix socket only the zygote's view holds, for the program's stdin, stdout and stderr and reads its job there. The
 * wait status comes from the run's init, which the program cannot write to; the door, like the channels and
 * the control groups, is covered before the program runs.
 */
final class Zygote implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Zygote.class);
    /** Where the door's socket is in the zygote's view. */
    static final String SANDBOX_DOOR = LaunchPlan.ZYGOTE_DIR + "/door/door";
    /** How long a run's process may take to connect its three streams (it is forked at once: a few ms). */
    private static final Duration CONNECT_WAIT = Duration.ofSeconds(10);
    /** A hello line's length: a letter, a blank, a 32-digit token and a newline. */
    private static final int HELLO = 35;

    private final Process process;
    private final OutputStream stdin;
    private final ServerSocketChannel door;
    private final Runnable release;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private volatile boolean dead;

    /** What a run is waiting for: its three connections and its wait status line. */
    private static final class Pending {
        final CompletableFuture<SocketChannel> in = new CompletableFuture<>();
        final CompletableFuture<SocketChannel> out = new CompletableFuture<>();
        final CompletableFuture<SocketChannel> err = new CompletableFuture<>();
        final CompletableFuture<String> status = new CompletableFuture<>();

        CompletableFuture<SocketChannel> stream(char kind) {
            return kind == 'I' ? in : kind == 'O' ? out : kind == 'E' ? err : null;
        }

        /** Nobody waits for a connection that has not come: the run ended, or the zygote did. */
        void fail(String why) {
            for (CompletableFuture<SocketChannel> f : List.of(in, out, err)) {
                f.completeExceptionally(new IOException(why));
            }
        }

        /** Closes the connections that came (a run that could not be started). */
        void close() {
            for (CompletableFuture<SocketChannel> f : List.of(in, out, err)) {
                if (f.isDone() && !f.isCompletedExceptionally()) {
                    Zygote.close(f.join());
                }
            }
        }
    }

    /**
     * @param process the started zygote (its command from {@link LaunchPlan#zygoteCommand})
     * @param door the bound listening socket whose path the zygote's view holds as {@value #SANDBOX_DOOR}
     * @param release what ends the zygote's sandbox for good (its processes, launcher last; its group; its directories)
     */
    Zygote(Process process, ServerSocketChannel door, ExecutorService threads, Runnable release) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.door = door;
        this.release = release;
        threads.submit(this::readStatuses);
        threads.submit(() -> drain(process.getErrorStream()));
        threads.submit(() -> accept(threads));
    }

    /** Opens the door: a Unix socket at {@code path}, which the caller binds into the zygote's view. */
    static ServerSocketChannel door(Path path) throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(path));
        return s;
    }

    /** Waits until the zygote can fork; false when it died or took longer than {@code max}. */
    boolean awaitReady(Duration max) {
        try {
            ready.get(max.toMillis(), TimeUnit.MILLISECONDS);
            return !dead;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    boolean alive() {
        return !dead && process.isAlive();
    }

    /**
     * Starts a run: the zygote forks its process, which joins {@code procsFiles}, drops to {@code uid} and waits
     * for its job. Returns the started {@link Launch}: its streams attached, its exit completed by the run's
     * init's report (the program's real wait status, as {@link Launch#report}).
     *
     * @param channel the judge channel's directory relative to the zygote's channels, or null
     * @param cpu the {@link CpuSlots} index the run is pinned to, or -1
     * @param job the supervisor's job for the program (files, argv, env, rlimits), without its stdin
     * @throws IOException when the zygote is gone or the run's process did not connect
     */
    Launch launch(LaunchSpec spec, String token, String channel, List<Path> procsFiles, int cpu, byte[] job,
            ExecutorService threads) throws IOException {
        if (!alive()) {
            throw new IOException("the zygote has ended");
        }
        Pending p = new Pending();
        pending.put(token, p);
        boolean started = false;
        try {
            String procs = procsFiles.isEmpty() ? "-" : String.join(",", procsFiles.stream().map(Path::toString).toList());
            send("R " + token + " " + spec.uid() + " " + (channel == null ? "-" : channel) + " " + procs + " "
                    + CpuSlots.wire(cpu) + "\n");
            SocketChannel in = connected(p.in, p);
            SocketChannel out = connected(p.out, p);
            SocketChannel err = connected(p.err, p);
            write(out, job);
            out.shutdownOutput();
            Launch launch = Launch.attached(spec, threads, ChannelStreams.output(in, true), ChannelStreams.input(out, true),
                    ChannelStreams.input(err, true),
                    p.status.thenApply(Zygote::report), () -> kill(token));
            p.status.whenComplete((s, t) -> pending.remove(token));
            started = true;
            return launch;
        } finally {
            if (!started) {
                kill(token);
                pending.remove(token);
                p.close();
            }
        }
    }

    /** Kills a run's whole pid namespace (the zygote kills its init). */
    void kill(String token) {
        try {
            send("K " + token + "\n");
        } catch (IOException e) {
            // the zygote is gone, and its runs' inits with it (they die with their parent's sandbox)
        }
    }

    private void send(String line) throws IOException {
        try {
            synchronized (stdin) {
                stdin.write(line.getBytes(StandardCharsets.US_ASCII));
                stdin.flush();
            }
        } catch (IOException e) {
            dead = true;
            throw new IOException("the zygote took no command: " + e.getMessage(), e);
        }
    }

    private SocketChannel connected(CompletableFuture<SocketChannel> f, Pending p) throws IOException {
        try {
            return f.get(CONNECT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while the run started");
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage());
        } catch (TimeoutException e) {
            String failure = p.status.getNow(null);
            throw new IOException(failure != null ? describe(failure)
                    : "the run's process did not connect within " + CONNECT_WAIT.toSeconds() + " s");
        }
    }

    /**
     * The run's end as {@link Child} reads it: the program's wait status, or null when its init was killed or never
     * started it (the message then in {@link Launch.Ended#failure}).
     */
    private static Launch.Ended report(String line) {
        String[] f = line.split(" ", 3);
        if (f[0].equals("S") && f.length == 3) {
            String[] es = f[2].split(" ");
            Integer exit = es[0].equals("-") ? null : Integer.valueOf(es[0]);
            Integer signal = es.length > 1 && !es[1].equals("-") ? Integer.valueOf(es[1]) : null;
            return new Launch.Ended(exit == null && signal == null ? null : new Child.Report(exit, signal), null);
        }
        return new Launch.Ended(null, f[0].equals("F") ? describe(line) : null);
    }

    private static String describe(String line) {
        String[] f = line.split(" ", 3);
        return f[0].equals("F") && f.length == 3 ? "the run could not be set up: " + f[2] : "the run ended before it started";
    }

    private void readStatuses() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.equals("READY")) {
                    ready.complete(null);
                    continue;
                }
                String[] f = line.split(" ", 3);
                Pending p = f.length >= 2 ? pending.get(f[1]) : null;
                if (p != null) {
                    p.status.complete(line);
                    // a run that ended before connecting everything
                    p.fail(describe(line));
                }
            }
        } catch (IOException e) {
            log.debug("process sandbox: the zygote's stdout: {}", e.toString());
        } finally {
            dead = true;
            ready.complete(null);
            pending.values().forEach(p -> {
                p.status.complete("X");
                p.fail("the zygote has ended");
            });
        }
    }

    /** Takes the runs' connections: each says which stream of which run it is in its first line. */
    private void accept(ExecutorService threads) {
        while (!dead) {
            SocketChannel c;
            try {
                c = door.accept();
            } catch (IOException e) {
                return;
            }
            threads.submit(() -> hello(c));
        }
    }

    /** A connection's first line: {@code "I " + token + "\n"} (or O, E), always {@value #HELLO} bytes: read whole at once. */
    private void hello(SocketChannel c) {
        try {
            ByteBuffer line = ByteBuffer.allocate(HELLO);
            while (line.hasRemaining() && c.read(line) > 0) {
                // until the whole line is in: nothing follows it before this side answers
            }
            String[] f = new String(line.array(), 0, line.position(), StandardCharsets.US_ASCII).split("[ \n]");
            Pending p = !line.hasRemaining() && f.length == 2 && f[0].length() == 1 ? pending.get(f[1]) : null;
            CompletableFuture<SocketChannel> slot = p == null ? null : p.stream(f[0].charAt(0));
            // a slot is filled once: a second connection for it is refused
            if (slot != null && slot.complete(c)) {
                return;
            }
        } catch (IOException e) {
            // a connection that said nothing useful
        }
        close(c);
    }

    private static void write(SocketChannel c, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    private static void close(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing
        }
    }

    private static void drain(InputStream err) {
        JudgeServer.eachLine(err, line -> log.warn("process sandbox: zygote: {}", line));
    }

    @Override
    public void close() {
        dead = true;
        try {
            stdin.close();
        } catch (IOException e) {
            // it has ended already
        }
        try {
            door.close();
        } catch (IOException e) {
            // closing
        }
        release.run();
    }
}
