package dev.codeagent.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.LiveExecution;
import io.javalin.Javalin;
import io.javalin.websocket.WsContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /api/v2/connect}: Piston's WebSocket protocol (its {@code api/src/api/v2.js}). The client sends
 * {@code init} (the fields of {@code /api/v2/execute}) within a second; the server answers {@code runtime}, then for
 * each stage {@code stage}, the stage's output as {@code data} events ({@code stdout}/{@code stderr}) and
 * {@code exit} ({@code code}, {@code signal}); while the program runs the client may send {@code data} on
 * {@code stdin} (the program's only stdin: init's {@code stdin} is not written, as in Piston; data sent before the
 * run stage starts is kept for it) and a {@code signal} (a name, {@code SIGINT}); at the end the server closes with
 * 4999 "Job Completed".
 * Errors close with Piston's codes: 4000 already initialised, 4001 no init within a second, 4002 an error (after an
 * {@code error} message), 4003 not yet initialised, 4004 data on another stream than stdin, 4005 an unknown signal.
 *
 * <p>The run stage runs live ({@link ExecuteCode#start}); a compiled language's compile stage runs first as an
 * ordinary execution, and its output is sent when it ends. The session holds one execution place for its whole life
 * (queued as {@code /api/v2/execute} is); a client that goes away cancels its program.
 */
final class PistonConnect implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PistonConnect.class);
    static final String PATH = "/api/v2/connect";
    /** Stdin a client may send before its program starts (during a compile): kept in memory until then. */
    static final int MAX_EARLY_STDIN = 1 << 20;
    private static final Map<String, Integer> SIGNALS = Map.ofEntries(
            Map.entry("SIGHUP", 1), Map.entry("SIGINT", 2), Map.entry("SIGQUIT", 3), Map.entry("SIGILL", 4),
            Map.entry("SIGTRAP", 5), Map.entry("SIGABRT", 6), Map.entry("SIGBUS", 7), Map.entry("SIGFPE", 8),
            Map.entry("SIGKILL", 9), Map.entry("SIGUSR1", 10), Map.entry("SIGSEGV", 11), Map.entry("SIGUSR2", 12),
            Map.entry("SIGPIPE", 13), Map.entry("SIGALRM", 14), Map.entry("SIGTERM", 15), Map.entry("SIGSTKFLT", 16),
            Map.entry("SIGCHLD", 17), Map.entry("SIGCONT", 18), Map.entry("SIGSTOP", 19), Map.entry("SIGTSTP", 20),
            Map.entry("SIGTTIN", 21), Map.entry("SIGTTOU", 22), Map.entry("SIGURG", 23), Map.entry("SIGXCPU", 24),
            Map.entry("SIGXFSZ", 25), Map.entry("SIGVTALRM", 26), Map.entry("SIGPROF", 27), Map.entry("SIGWINCH", 28),
            Map.entry("SIGIO", 29), Map.entry("SIGPWR", 30), Map.entry("SIGSYS", 31));

    private final ExecutionGate gate;
    private final ExecuteCode executeCode;
    private final PistonApi piston;
    private final RequestGuard guard;
    private final long maxMessageBytes;
    private final ExecutorService sessions = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "piston-connect");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "piston-connect-timer");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Session> bySession = new ConcurrentHashMap<>();

    /**
     * @param maxMessageBytes the largest message a client may send (http.maxBodyBytes: an init carries what the body
     *     of /api/v2/execute carries; Jetty's own default, 64 KiB, would refuse a program /execute takes)
     */
    PistonConnect(ExecutionGate gate, ExecuteCode executeCode, PistonApi piston, RequestGuard guard, long maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
        this.gate = gate;
        this.executeCode = executeCode;
        this.piston = piston;
        this.guard = guard;
    }

    /** One socket's job: nothing until init, then the live program. */
    private static final class Session {
        volatile boolean initialised;
        volatile LiveExecution live;
        volatile boolean closed;
        final StringBuilder early = new StringBuilder();
    }

    void register(Javalin app) {
        // the upgrade is an HTTP request: the same key, group and rate limit as /api/v2/execute
        app.wsBeforeUpgrade(PATH, ctx -> {
            try {
                guard.before(ctx);
            } catch (ProblemException p) {
                // Javalin answers a refused upgrade with the status alone: the problem is written here, and thrown on
                // to stop the upgrade
                if (p.type() == ProblemException.Type.UNAUTHORIZED) {
                    ctx.res().setHeader("WWW-Authenticate", "Bearer realm=\"codeagent\"");
                }
                Problems.write(ctx.res(), p, ctx.path(), true);
                throw p;
            }
        });
        app.ws(PATH, ws -> {
            ws.onConnect(ctx -> {
                ctx.session.setIdleTimeout(java.time.Duration.ofMinutes(10));
                ctx.session.setMaxTextMessageSize(maxMessageBytes);
                Session s = new Session();
                bySession.put(ctx.sessionId(), s);
                timers.schedule(() -> {
                    if (!s.initialised && !s.closed) {
                        close(ctx, 4001, "Initialization Timeout");
                    }
                }, 1, TimeUnit.SECONDS);
            });
            ws.onMessage(ctx -> message(ctx, bySession.get(ctx.sessionId()), ctx.message()));
            ws.onClose(ctx -> {
                Session s = bySession.remove(ctx.sessionId());
                if (s != null) {
                    s.closed = true;
                    LiveExecution live = s.live;
                    if (live != null) {
                        live.cancel();
                    }
                }
            });
            ws.onError(ctx -> log.debug("piston connect: {}", ctx.error() == null ? "error" : ctx.error().toString()));
        });
    }

    private void message(WsContext ctx, Session s, String text) {
        if (s == null) {
            return;
        }
        JsonNode msg;
        try {
            msg = Views.MAPPER.readTree(text);
        } catch (Exception e) {
            fail(ctx, "Invalid JSON: " + e.getMessage());
            return;
        }
        String type = msg.path("type").asText("");
        switch (type) {
            case "init" -> {
                if (s.initialised) {
                    close(ctx, 4000, "Already Initialized");
                    return;
                }
                s.initialised = true;
                PistonApi.ExecuteBody body;
                ExecutionRequest request;
                try {
                    ObjectNode fields = ((ObjectNode) msg).deepCopy();
                    fields.remove("type");
                    // as /api/v2/execute reads its body: fields Piston clients send that are not ours are ignored
                    body = Views.MAPPER.readerFor(PistonApi.ExecuteBody.class)
                            .without(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                            .treeToValue(fields, PistonApi.ExecuteBody.class);
                    request = piston.request(body);
                } catch (ProblemException e) {
                    fail(ctx, e.getMessage());
                    return;
                } catch (Exception e) {
                    fail(ctx, "Invalid init message: " + e.getMessage());
                    return;
                }
                sessions.execute(() -> job(ctx, s, request));
            }
            case "data" -> {
                if (!s.initialised) {
                    close(ctx, 4003, "Not yet initialized");
                } else if (!"stdin".equals(msg.path("stream").asText())) {
                    close(ctx, 4004, "Can only write to stdin");
                } else if (!write(s, msg.path("data").asText(""))) {
                    fail(ctx, "stdin sent before the program started is limited to " + MAX_EARLY_STDIN + " bytes");
                }
            }
            case "signal" -> {
                if (!s.initialised) {
                    close(ctx, 4003, "Not yet initialized");
                    return;
                }
                Integer number = SIGNALS.get(msg.path("signal").asText(""));
                if (number == null) {
                    close(ctx, 4005, "Invalid signal");
                    return;
                }
                LiveExecution live = s.live;
                if (live != null) {
                    live.signal(number);
                }
            }
            default -> {
                // Piston ignores other types
            }
        }
    }

    /**
     * Stdin before the program started is kept (up to {@link #MAX_EARLY_STDIN}) and written when it starts.
     *
     * @return false when the early stdin would pass its cap
     */
    private static boolean write(Session s, String data) {
        synchronized (s.early) {
            LiveExecution live = s.live;
            if (live == null) {
                if (s.early.length() + data.length() > MAX_EARLY_STDIN) {
                    return false;
                }
                s.early.append(data);
                return true;
            }
        }
        try {
            // blocks while the program does not read (a full pipe): until it reads, ends or its wall limit ends it
            s.live.write(data);
        } catch (IllegalStateException closed) {
            // stdin was closed: dropped, as a pipe drops it
        }
        return true;
    }

    private void job(WsContext ctx, Session s, ExecutionRequest request) {
        try {
            send(ctx, JsonNodeFactory.instance.objectNode().put("type", "runtime")
                    .put("language", piston.runtimeName(request.program().language()))
                    .put("version", piston.version(request.program().language())));
            gate.hold(ctx.attribute(RequestGuard.CALLER), () -> {
                run(ctx, s, request);
                return null;
            });
            close(ctx, 4999, "Job Completed");
        } catch (ProblemException e) {
            fail(ctx, e.getMessage());
        } catch (ExecutionCancelledException e) {
            if (!s.closed) {
                fail(ctx, "the execution was stopped: " + e.getMessage());
            }
        } catch (RuntimeException e) {
            log.warn("piston connect: the job failed: {}", e.toString());
            fail(ctx, "Internal error: " + e.getMessage());
        }
    }

    private void run(WsContext ctx, Session s, ExecutionRequest request) {
        // as Piston: on a socket the program's stdin is only what the client sends as data, not init's stdin
        ExecutionRequest live = new ExecutionRequest(request.program(), "", request.args(), request.limits(), null,
                request.compileLimits());
        boolean compiled = LanguageProfile.of(request.program().language()).compiled();
        boolean[] ran = {!compiled};
        if (compiled) {
            send(ctx, stage("compile"));
        } else {
            send(ctx, stage("run"));
        }
        LiveExecution.Listener listener = new LiveExecution.Listener() {
            @Override
            public void output(int stream, String text) {
                data(ctx, stream == LiveExecution.Listener.STDOUT ? "stdout" : "stderr", text);
            }

            @Override
            public void compiled(Execution compile, boolean built) {
                data(ctx, "stdout", compile.stdout().text());
                data(ctx, "stderr", compile.stderr().text());
                send(ctx, exit("compile", compile));
                if (built) {
                    ran[0] = true;
                    send(ctx, stage("run"));
                }
            }
        };
        LiveExecution running;
        try {
            // a compiled language's compile stage runs first, inside this call (the executor's sandbox compiles)
            running = executeCode.start(live, listener);
        } catch (UnsupportedOperationException e) {
            // a tier that runs nothing live (the process tier without its supervisor): said, not run another way
            throw ProblemException.invalid("language", e.getMessage());
        }
        String early;
        synchronized (s.early) {
            s.live = running;
            early = s.early.toString();
        }
        if (!early.isEmpty()) {
            running.write(early);
        }
        if (s.closed) {
            running.cancel();
        }
        Execution e = running.await();
        if (!ran[0]) {
            // nothing was built: the compile stage's exit said so, and there is no run stage
            return;
        }
        gate.counted(e, "piston-connect");
        send(ctx, exit("run", e));
    }

    private static ObjectNode stage(String name) {
        return JsonNodeFactory.instance.objectNode().put("type", "stage").put("stage", name);
    }

    /** Piston's exit event: the stage's code and signal (a name), as its own result gives them. */
    private ObjectNode exit(String stage, Execution e) {
        ObjectNode n = JsonNodeFactory.instance.objectNode().put("type", "exit").put("stage", stage);
        ObjectNode shape = PistonStages.stageView(e);
        n.set("code", shape.get("code"));
        n.set("signal", shape.get("signal"));
        if (shape.hasNonNull("message")) {
            n.set("error", shape.get("message"));
        }
        return n;
    }

    private static void data(WsContext ctx, String stream, String text) {
        if (!text.isEmpty()) {
            send(ctx, JsonNodeFactory.instance.objectNode().put("type", "data").put("stream", stream).put("data", text));
        }
    }

    private static void send(WsContext ctx, ObjectNode message) {
        try {
            synchronized (ctx.session) {
                if (ctx.session.isOpen()) {
                    ctx.send(Views.MAPPER.writeValueAsString(message));
                }
            }
        } catch (Exception gone) {
            log.debug("piston connect: could not send: {}", gone.toString());
        }
    }

    /** As Piston: the reason over the socket first (a close reason is limited to 123 bytes), then 4002. */
    private static void fail(WsContext ctx, String message) {
        send(ctx, JsonNodeFactory.instance.objectNode().put("type", "error").put("message", message));
        close(ctx, 4002, "Notified Error");
    }

    private static void close(WsContext ctx, int code, String reason) {
        try {
            synchronized (ctx.session) {
                if (ctx.session.isOpen()) {
                    ctx.closeSession(code, reason);
                }
            }
        } catch (Exception gone) {
            log.debug("piston connect: could not close: {}", gone.toString());
        }
    }

    /** Stops the sessions' threads (the server is stopping: their programs were cancelled through the gate). */
    @Override
    public void close() {
        sessions.shutdownNow();
        timers.shutdownNow();
    }
}
