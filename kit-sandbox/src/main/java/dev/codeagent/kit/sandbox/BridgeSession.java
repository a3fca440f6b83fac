package dev.codeagent.kit.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.session.StartedAhead;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.MimeBundle;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionEndedException;
import dev.codeagent.domain.session.SessionFileException;
import dev.codeagent.domain.session.SessionFiles;
import dev.codeagent.domain.session.SessionLimits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Session} driven through the kernel bridge ({@link #script()}), the same in every tier: the tier
 * starts the bridge in a sandbox of its own and hands over the bridge's stdin and stdout as a {@link Channel}.
 *
 * <p>Frames are JSON lines. The bridge echoes a nonce this class chose at random and sent on the bridge's
 * stdin; a frame without it is not the bridge's (a cell trying to forge a result) and is dropped and counted.
 * A bridge that stays silent past a cell's timeout, its grace and a restart's allowance is killed: the cell
 * ends {@link CellStatus#KERNEL_DIED} and the session ends. Idle timeout and maximum lifetime are watched by
 * a daemon thread per session.
 *
 * <p>One class of ~540 lines: the session's calls, the frame reader and the watchdog share one bridge's state (its
 * nonce, the queue of frames read, whether a cell is under way, whether and why it ended); the other end of the
 * protocol is {@code kernel_bridge.py}.
 */
public final class BridgeSession implements Session, StartedAhead {

    /** What a tier gives a bridge session. */
    public interface Channel {
        /** The bridge's stdout: frames. */
        InputStream frames();

        /** The bridge's stdin: commands. */
        OutputStream commands();

        /** The last bytes the bridge wrote to stderr, for a message when it fails; may be empty. */
        String diagnostics();

        /**
         * Kills the sandbox: the bridge, its kernel and every process they started are gone and every file
         * they wrote is removed when this returns. Idempotent, callable from any thread.
         */
        void destroy();
    }

    /** How long an interrupted cell has to stop before the kernel is restarted. */
    public static final Duration GRACE = Duration.ofSeconds(2);
    /** How long a kernel may take to start or restart (as long as a pool waits for a session it starts). */
    public static final Duration START = StartedAhead.START;
    private static final Logger log = LoggerFactory.getLogger(BridgeSession.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final JsonNode ENDED = JSON.createObjectNode().put("type", "ended");

    private final String id;
    private final SessionLimits limits;
    private final Channel channel;
    private final byte[] nonce;
    private final long maxFrameBytes;
    private final BlockingQueue<JsonNode> frames = new LinkedBlockingQueue<>();
    private final AtomicBoolean busy = new AtomicBoolean();
    private final AtomicReference<String> endReason = new AtomicReference<>();
    private final AtomicInteger restarts = new AtomicInteger();
    private final AtomicInteger cells = new AtomicInteger();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong lastActivity = new AtomicLong(System.nanoTime());
    private final AtomicLong openedAt = new AtomicLong(System.nanoTime());
    private final AtomicLong nextId = new AtomicLong();

    private BridgeSession(String id, SessionLimits limits, Channel channel) {
        this.id = id;
        this.limits = limits;
        this.channel = channel;
        byte[] n = new byte[16];
        RANDOM.nextBytes(n);
        this.nonce = HexFormat.of().formatHex(n).getBytes(StandardCharsets.US_ASCII);
        // a result frame holds at most a cell's capped outputs, JSON-escaped (up to 6 bytes per byte), plus headroom;
        // a file frame at most a file's bytes in base64
        this.maxFrameBytes = Math.max(6 * limits.maxOutputBytesPerCell() + 1024 * 1024, SessionFiles.MAX_BYTES / 3 * 4 + 64 * 1024);
    }

    /**
     * Says hello to a started bridge and waits until its kernel answers.
     *
     * @throws SandboxUnavailableException when the kernel does not start; the channel is destroyed
     */
    public static BridgeSession start(String id, SessionLimits limits, Channel channel) {
        BridgeSession s = new BridgeSession(Objects.requireNonNull(id, "id"), Objects.requireNonNull(limits, "limits"),
                Objects.requireNonNull(channel, "channel"));
        Thread reader = new Thread(s::readFrames, "session-" + id + "-frames");
        reader.setDaemon(true);
        reader.start();
        ObjectNode hello = JSON.createObjectNode().put("op", "hello")
                .put("nonce", new String(s.nonce, StandardCharsets.US_ASCII))
                .put("max_output", limits.maxOutputBytesPerCell()).put("max_image", limits.maxImageBytes())
                .put("grace_ms", GRACE.toMillis());
        try {
            s.send(hello);
            JsonNode ready = s.await(f -> "ready".equals(f.path("type").asText()), START);
            if (ready == null || ready == ENDED) {
                throw new SandboxUnavailableException("the session's kernel did not start" + s.failure());
            }
        } catch (RuntimeException e) {
            s.end("the kernel did not start");
            throw e instanceof SandboxUnavailableException ? e
                    : new SandboxUnavailableException("the session's kernel did not start: " + e.getMessage(), e);
        }
        Thread watchdog = new Thread(s::watch, "session-" + id + "-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        return s;
    }

    /** The bridge's Python source, run by {@code python3 -I} inside the sandbox. */
    public static String script() {
        try (InputStream in = BridgeSession.class.getResourceAsStream("kernel_bridge.py")) {
            if (in == null) {
                throw new IllegalStateException("kernel_bridge.py is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public SessionLimits limits() {
        return limits;
    }

    @Override
    public CellResult execute(Cell cell) {
        return run(cell, null);
    }

    @Override
    public CellResult execute(Cell cell, java.util.function.Consumer<CellOutput> onOutput) {
        return run(cell, Objects.requireNonNull(onOutput, "onOutput"));
    }

    private CellResult run(Cell cell, java.util.function.Consumer<CellOutput> onOutput) {
        Objects.requireNonNull(cell, "cell");
        requireLive();
        if (!busy.compareAndSet(false, true)) {
            throw new IllegalStateException("a cell of session " + id + " is already running");
        }
        long started = System.nanoTime();
        try {
            if (cells.incrementAndGet() > limits.maxCells()) {
                end("the session ran its " + limits.maxCells() + " cells (maxCells)");
                throw new SessionEndedException(endReason.get());
            }
            long cid = nextId.incrementAndGet();
            send(JSON.createObjectNode().put("op", "execute").put("id", cid).put("code", cell.source())
                    .put("timeout_ms", limits.cellTimeout().toMillis()).put("stream", onOutput != null));
            Duration patience = limits.cellTimeout().plus(GRACE).plus(START);
            JsonNode f = await(r -> {
                if (onOutput != null && "output".equals(r.path("type").asText()) && r.path("id").asLong() == cid) {
                    live(r.path("output"), onOutput);
                    return false;
                }
                return "result".equals(r.path("type").asText()) && r.path("id").asLong() == cid;
            }, patience);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            if (f == null) {
                end("the session's sandbox stopped answering and was killed");
                return died(took);
            }
            if (f == ENDED) {
                return died(took);
            }
            CellResult r;
            try {
                r = result(f, took);
            } catch (IllegalArgumentException malformed) {
                end("the session's bridge sent a malformed result (" + malformed.getMessage() + ") and was killed");
                return died(took);
            }
            if (f.path("restarted").asBoolean(false)) {
                restarts.incrementAndGet();
            }
            return r;
        } finally {
            lastActivity.set(System.nanoTime());
            busy.set(false);
        }
    }

    private CellResult died(Duration took) {
        String why = endReason.get() == null ? "the session's sandbox ended" : endReason.get();
        return new CellResult(CellStatus.KERNEL_DIED, 0, took, true, List.of(), why);
    }

    @Override
    public void interrupt() {
        if (busy.get() && endReason.get() == null) {
            send(JSON.createObjectNode().put("op", "interrupt"));
        }
    }

    @Override
    public void restart() {
        requireLive();
        if (!busy.compareAndSet(false, true)) {
            throw new IllegalStateException("a cell of session " + id + " is running: interrupt it first");
        }
        try {
            long rid = nextId.incrementAndGet();
            send(JSON.createObjectNode().put("op", "restart").put("id", rid));
            JsonNode f = await(r -> "restarted".equals(r.path("type").asText()) && r.path("id").asLong() == rid, START);
            if (f == null || f == ENDED) {
                end("the kernel did not restart" + failure());
                throw new SessionEndedException(endReason.get());
            }
            restarts.incrementAndGet();
        } finally {
            lastActivity.set(System.nanoTime());
            busy.set(false);
        }
    }

    @Override
    public void writeFile(String path, byte[] content) {
        SessionFiles.requireRelative(path);
        Objects.requireNonNull(content, "content");
        if (content.length > SessionFiles.MAX_BYTES) {
            throw new SessionFileException(SessionFileException.Reason.TOO_LARGE, path + ": " + content.length
                    + " bytes; a session's file may have at most " + SessionFiles.MAX_BYTES);
        }
        fileOp(JSON.createObjectNode().put("op", "write_file").put("path", path)
                .put("data", java.util.Base64.getEncoder().encodeToString(content)), path);
    }

    @Override
    public byte[] readFile(String path, long maxBytes) {
        SessionFiles.requireRelative(path);
        long max = Math.min(Math.max(0, maxBytes), SessionFiles.MAX_BYTES);
        JsonNode f = fileOp(JSON.createObjectNode().put("op", "read_file").put("path", path).put("max", max), path);
        try {
            return java.util.Base64.getDecoder().decode(f.path("data").asText(""));
        } catch (IllegalArgumentException e) {
            end("the session's bridge sent a malformed file (" + e.getMessage() + ") and was killed");
            throw new SessionEndedException(endReason.get());
        }
    }

    /** Sends a file command, waits for its answer; an answer with an error becomes a {@link SessionFileException}. */
    private JsonNode fileOp(ObjectNode command, String path) {
        requireLive();
        if (!busy.compareAndSet(false, true)) {
            throw new IllegalStateException("a cell of session " + id + " is running: files wait until it ends");
        }
        try {
            long fid = nextId.incrementAndGet();
            send(command.put("id", fid));
            JsonNode f = await(r -> "file".equals(r.path("type").asText()) && r.path("id").asLong() == fid, START);
            if (f == null) {
                end("the session's sandbox stopped answering and was killed");
            }
            if (f == null || f == ENDED) {
                throw new SessionEndedException("session " + id + " has ended: " + endReason.get());
            }
            String error = f.path("error").asText("");
            if (!error.isEmpty()) {
                SessionFileException.Reason reason = switch (error) {
                    case "invalid" -> SessionFileException.Reason.INVALID;
                    case "not_found" -> SessionFileException.Reason.NOT_FOUND;
                    case "too_large" -> SessionFileException.Reason.TOO_LARGE;
                    default -> SessionFileException.Reason.FAILED;
                };
                throw new SessionFileException(reason, path + ": " + f.path("message").asText(error));
            }
            return f;
        } finally {
            lastActivity.set(System.nanoTime());
            busy.set(false);
        }
    }

    @Override
    public int restarts() {
        return restarts.get();
    }

    @Override
    public Optional<String> endReason() {
        return Optional.ofNullable(endReason.get());
    }

    /**
     * Starts the session's clocks again (idle time, lifetime): a session started ahead of need (the application's
     * {@code PooledSessions}) is its user's from when it is handed out.
     */
    @Override
    public void handedOut() {
        long now = System.nanoTime();
        openedAt.set(now);
        lastActivity.set(now);
    }

    /** Frames dropped because they did not carry this session's nonce; for tests and diagnostics. */
    public long rejectedFrames() {
        return rejected.get();
    }

    @Override
    public void close() {
        end("the session was closed");
    }

    private void requireLive() {
        String why = endReason.get();
        if (why != null) {
            throw new SessionEndedException("session " + id + " has ended: " + why);
        }
    }

    /** Ends the session once, with the first reason given; kills the sandbox and wakes a waiting cell. */
    private void end(String reason) {
        if (endReason.compareAndSet(null, reason)) {
            try {
                channel.destroy();
            } finally {
                frames.add(ENDED);
            }
        }
    }

    private void watch() {
        while (endReason.get() == null) {
            long now = System.nanoTime();
            if (now - openedAt.get() >= limits.maxLifetime().toNanos()) {
                end("the session reached its maximum lifetime of " + limits.maxLifetime().toSeconds() + " s");
            } else if (!busy.get() && now - lastActivity.get() >= limits.idleTimeout().toNanos()) {
                end("the session was idle for " + limits.idleTimeout().toSeconds() + " s");
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private String failure() {
        String d = channel.diagnostics().strip();
        if (d.isEmpty()) {
            return "";
        }
        String[] lines = d.split("\n");
        return ": " + lines[lines.length - 1];
    }

    private synchronized void send(JsonNode command) {
        try {
            OutputStream out = channel.commands();
            out.write(JSON.writeValueAsBytes(command));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            // the bridge is gone; the reader sees its end and the waiting call reports it
            log.debug("session {}: bridge stdin closed: {}", id, e.getMessage());
        }
    }

    private interface Match {
        boolean test(JsonNode frame);
    }

    /** The first frame matching, or {@link #ENDED}, or null when none came in time. Earlier stale frames are dropped. */
    private JsonNode await(Match match, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            JsonNode f;
            try {
                f = frames.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                end("the session was cancelled");
                return ENDED;
            }
            if (f == null) {
                return null;
            }
            if (f == ENDED) {
                frames.add(ENDED);
                return ENDED;
            }
            if ("failed".equals(f.path("type").asText())) {
                log.warn("session {}: the bridge reported: {}", id, f.path("message").asText());
            }
            if (match.test(f)) {
                return f;
            }
        }
    }

    private void readFrames() {
        try (InputStream in = channel.frames()) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            int n;
            boolean oversize = false;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] != '\n') {
                        if (line.size() < maxFrameBytes) {
                            line.write(buf[i]);
                        } else {
                            oversize = true;
                        }
                        continue;
                    }
                    if (oversize) {
                        rejected.incrementAndGet();
                        log.warn("session {}: dropped a frame longer than {} bytes", id, maxFrameBytes);
                    } else {
                        accept(line.toByteArray());
                    }
                    line.reset();
                    oversize = false;
                }
            }
        } catch (IOException e) {
            log.debug("session {}: bridge stdout closed: {}", id, e.getMessage());
        }
        end("the session's sandbox ended unexpectedly" + failure());
    }

    private void accept(byte[] line) {
        JsonNode f;
        try {
            f = JSON.readTree(line);
        } catch (IOException e) {
            f = null;
        }
        String n = f == null ? "" : f.path("nonce").asText("");
        if (f == null || !f.isObject() || !MessageDigest.isEqual(n.getBytes(StandardCharsets.US_ASCII), nonce)) {
            rejected.incrementAndGet();
            log.warn("session {}: dropped a frame without the session's nonce (forged or corrupt)", id);
            return;
        }
        frames.add(f);
    }

    /** One output as it came; a malformed one is dropped (the result, checked whole, decides about the bridge). */
    private void live(JsonNode o, java.util.function.Consumer<CellOutput> onOutput) {
        CellOutput out;
        try {
            out = output(o);
        } catch (IllegalArgumentException malformed) {
            log.warn("session {}: dropped a malformed output frame: {}", id, malformed.getMessage());
            return;
        }
        try {
            onOutput.accept(out);
        } catch (RuntimeException e) {
            log.debug("session {}: an output listener failed: {}", id, e.toString());
        }
    }

    private static CellOutput output(JsonNode o) {
        switch (o.path("type").asText()) {
            case "stream":
                return new CellOutput.Stream(o.path("name").asText(), o.path("text").asText());
            case "display_data":
                return new CellOutput.DisplayData(bundle(o.path("data")));
            case "execute_result":
                return new CellOutput.ExecuteResult(Math.max(1, o.path("execution_count").asInt()), bundle(o.path("data")));
            case "error":
                List<String> tb = new ArrayList<>();
                o.path("traceback").forEach(t -> tb.add(t.asText()));
                String name = o.path("ename").asText();
                return new CellOutput.Error(name.isBlank() ? "Error" : name, o.path("evalue").asText(), tb);
            default:
                throw new IllegalArgumentException("unknown output type " + o.path("type").asText());
        }
    }

    private static CellResult result(JsonNode f, Duration took) {
        List<CellOutput> outputs = new ArrayList<>();
        for (JsonNode o : f.path("outputs")) {
            outputs.add(output(o));
        }
        CellStatus status = CellStatus.valueOf(f.path("status").asText().toUpperCase(java.util.Locale.ROOT));
        boolean lost = f.path("state_lost").asBoolean(false) || status == CellStatus.KERNEL_DIED;
        return new CellResult(status, Math.max(0, f.path("execution_count").asInt()), took, lost, outputs,
                f.path("message").asText(""));
    }

    private static MimeBundle bundle(JsonNode data) {
        Map<String, String> m = new LinkedHashMap<>();
        data.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
        return new MimeBundle(m);
    }

    @Override
    public String toString() {
        return "BridgeSession[" + id + (endReason.get() == null ? ", live" : ", ended: " + endReason.get()) + "]";
    }
}
