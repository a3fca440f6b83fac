package dev.codeagent.jupyter;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.channels.JupyterSocket;
import org.dflib.jjava.jupyter.channels.ShellChannel;
import org.dflib.jjava.jupyter.channels.ShellHandler;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.channels.StdinChannel;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.dflib.jjava.jupyter.messages.HMACGenerator;
import org.dflib.jjava.jupyter.messages.Header;
import org.dflib.jjava.jupyter.messages.KernelTimestamp;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.MessageContext;
import org.dflib.jjava.jupyter.messages.MessageType;
import org.dflib.jjava.jupyter.messages.adapters.HistoryRequestAdapter;
import org.dflib.jjava.jupyter.messages.publish.PublishStatus;
import org.dflib.jjava.jupyter.messages.request.HistoryRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZMQ;

/**
 * jjava-jupyter's connection with the shell and control channels replaced by ones that survive any message.
 *
 * <p>The library's channel thread parses a message outside its error handling: one request with a field of the wrong
 * type ({@code cursor_pos: "x"}), out of int range ({@code 10^12}), a garbled header or a bad signature ends the
 * thread, and every later request (the next {@code 1+1}) waits forever. A handler that throws is only logged, so its
 * request is never answered either. Here each message is read whole, checked and answered on its own:
 * <ul>
 *   <li>not a signed Jupyter message (no delimiter, frames missing, a wrong HMAC): dropped and logged, never answered,
 *       as ipykernel does (a peer without the key learns nothing, not even that the kernel read it);</li>
 *   <li>signed but malformed, too large, unknown, on the wrong channel, or refused by {@link RequestRules}: an error
 *       reply of the request's reply type ({@code status: error}, {@code ename}, {@code evalue});</li>
 *   <li>a handler that throws or does not answer: the same error reply, so no request is left waiting.</li>
 * </ul>
 * The heartbeat, iopub and stdin channels stay the library's: none of them parses what a client sends it.
 */
final class GuardedConnection extends JupyterConnection {

    private static final Logger log = LoggerFactory.getLogger(GuardedConnection.class);

    /** A signed message larger than this is answered with an error and not acted on; a notebook cell is far smaller. */
    static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

    /**
     * Past this the message is not even kept to check its signature: dropped unanswered. ZMQ enforces it per frame
     * (the peer is disconnected and reconnects), the channel over all frames of one message.
     */
    static final int MAX_KEPT_BYTES = 64 * 1024 * 1024;

    private static final byte[] DELIMITER = "<IDS|MSG>".getBytes(StandardCharsets.US_ASCII);

    /** Binds request content as the library's own socket does (its Gson is private). */
    private static final Gson CONTENT = new GsonBuilder()
            .registerTypeAdapter(HistoryRequest.class, HistoryRequestAdapter.INSTANCE)
            .create();

    private final KernelConnectionProperties props;
    private final ZMQ.Context context = ZMQ.context(1);
    private final Channel guardedShell;
    private final Channel guardedControl;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param executionCount the kernel's count, which an execute_reply carries even when it is an error
     */
    GuardedConnection(KernelConnectionProperties props, IntSupplier executionCount) throws GeneralSecurityException {
        super(props);
        this.props = props;
        HMACGenerator hmac = props.createHMACGenerator();
        this.guardedShell = new Channel(context, hmac, false, this, executionCount);
        this.guardedControl = new Channel(context, hmac, true, this, executionCount);
    }

    @Override
    public void connect() {
        // the library's connect() would bind its own shell and control channels: these are bound instead
        heartbeat.bind(props);
        guardedShell.bind(props);
        guardedControl.bind(props);
        stdin.bind(props);
        iopub.bind(props);
        iopub.sendMessage(new Message<>(null, PublishStatus.MESSAGE_TYPE, PublishStatus.STARTING));
    }

    @Override
    public ShellReplyEnvironment prepareReplyEnv(ShellChannel shell, MessageContext context) {
        return new Tracked(shell, stdin, iopub, context);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        guardedShell.close();
        guardedControl.close();
        context.close();
        super.close(); // the library's sockets, its two unbound channels among them, and its context
    }

    @Override
    public void waitUntilClose() {
        super.waitUntilClose();
        guardedShell.waitUntilClose();
        guardedControl.waitUntilClose();
    }

    /** A reply environment that knows whether the handler answered. */
    private static final class Tracked extends ShellReplyEnvironment {
        private boolean replied;

        Tracked(ShellChannel shell, StdinChannel stdin, JupyterSocket iopub, MessageContext context) {
            super(shell, stdin, iopub, context);
        }

        @Override
        public void reply(Message<?> msg) {
            replied = true;
            super.reply(msg);
        }
    }

    /** A refused request: what the error reply says. */
    private record Refusal(String ename, String evalue) {
    }

    /** The shell or the control channel: reads, checks and dispatches one message at a time, on its own thread. */
    static final class Channel extends ShellChannel {
        private final boolean control;
        private final GuardedConnection connection;
        private final IntSupplier executionCount;
        private final String name;
        private volatile boolean running;
        private volatile Thread loop;

        Channel(ZMQ.Context context, HMACGenerator hmac, boolean control, GuardedConnection connection, IntSupplier executionCount) {
            super(context, hmac, control, connection);
            this.control = control;
            this.connection = connection;
            this.executionCount = executionCount;
            this.name = control ? "control" : "shell";
        }

        @Override
        public void bind(KernelConnectionProperties props) {
            setMaxMsgSize(MAX_KEPT_BYTES);
            bind(formatAddress(props.getTransport(), props.getIp(), control ? props.getControlPort() : props.getShellPort()));
            running = true;
            Thread t = new Thread(this::serve, "codeagent-" + name);
            t.setDaemon(true);
            loop = t;
            t.start();
        }

        private void serve() {
            ZMQ.Poller poller = ctx.poller(1);
            poller.register(this, ZMQ.Poller.POLLIN);
            try {
                while (running) {
                    try {
                        if (poller.poll(200) > 0 && running) {
                            List<byte[]> frames = new ArrayList<>();
                            boolean kept = receive(frames);
                            serveOne(frames, kept);
                        }
                    } catch (RuntimeException | StackOverflowError | LinkageError e) {
                        if (!running) {
                            break;
                        }
                        // one message's trouble is that message's: the channel goes on to the next
                        log.warn("the {} channel could not serve a message: {}", name, CodeAgentKernel.oneLine(e), e);
                    }
                }
            } finally {
                poller.close();
            }
        }

        /** Reads one whole message; false when it was larger than {@link #MAX_KEPT_BYTES} and its frames were dropped. */
        private synchronized boolean receive(List<byte[]> frames) {
            long total = 0;
            boolean kept = true;
            do {
                byte[] frame = recv();
                if (frame == null) {
                    break;
                }
                total += frame.length;
                if (total > MAX_KEPT_BYTES || frames.size() > 1024) {
                    kept = false;
                } else {
                    frames.add(frame);
                }
            } while (hasReceiveMore());
            return kept;
        }

        private void serveOne(List<byte[]> frames, boolean kept) {
            int d = 0;
            while (d < frames.size() && !Arrays.equals(frames.get(d), DELIMITER)) {
                d++;
            }
            if (!kept || frames.size() < d + 6) {
                log.warn("{}: dropped a message that is not a whole Jupyter message{}", name,
                        kept ? "" : " (over " + (MAX_KEPT_BYTES >> 20) + " MiB)");
                return;
            }
            List<byte[]> identities = List.copyOf(frames.subList(0, d));
            byte[] signature = frames.get(d + 1);
            byte[] header = frames.get(d + 2);
            byte[] parent = frames.get(d + 3);
            byte[] metadata = frames.get(d + 4);
            byte[] content = frames.get(d + 5);
            String expected = hmacGenerator.calculateSignature(header, parent, metadata, content);
            if (expected != null && !MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), signature)) {
                log.warn("{}: dropped a message with a wrong signature", name);
                return;
            }
            // signed: the peer holds the connection key, and every request of its gets an answer from here on
            JsonElement headerJson = parse(header);
            JsonObject h = headerJson != null && headerJson.isJsonObject() ? headerJson.getAsJsonObject() : null;
            String type = h != null && h.get("msg_type") instanceof JsonPrimitive p && p.isString() ? p.getAsString() : null;
            if (type == null) {
                log.warn("{}: dropped a signed message whose header names no msg_type", name);
                return;
            }
            String replyType = RequestRules.replyType(type);
            long size = frames.subList(d + 2, frames.size()).stream().mapToLong(f -> f.length).sum();
            Refusal refusal = null;
            Message<Object> message = null;
            ShellHandler<Object> handler = null;
            if (size > MAX_MESSAGE_BYTES) {
                refusal = new Refusal("MessageTooLarge", "the message is " + (size >> 20) + " MiB; the kernel takes at most "
                        + (MAX_MESSAGE_BYTES >> 20) + " MiB");
            } else {
                refusal = headerProblem(h);
                if (refusal == null) {
                    @SuppressWarnings("unchecked")
                    MessageType<Object> mt = (MessageType<Object>) MessageType.getType(type);
                    handler = mt == MessageType.UNKNOWN ? null : connection.getHandler(mt);
                    if (handler == null) {
                        refusal = new Refusal("UnknownMessageType", "the codeagent kernel does not serve "
                                + RequestRules.abbreviate(type));
                    } else if (control && !RequestRules.CONTROL.contains(type)) {
                        refusal = new Refusal("WrongChannel", type + " belongs on the shell channel; the control channel"
                                + " serves " + String.join(", ", new java.util.TreeSet<>(RequestRules.CONTROL)));
                    } else {
                        Object typed = null;
                        JsonElement c = parse(content);
                        if (c == null || !c.isJsonObject()) {
                            refusal = new Refusal("BadRequest", type + ": the content is not a JSON object");
                        } else {
                            refusal = RequestRules.check(type, c.getAsJsonObject())
                                    .map(why -> new Refusal("BadRequest", type + ": " + why)).orElse(null);
                        }
                        if (refusal == null) {
                            try {
                                typed = CONTENT.fromJson(c, mt.getContentType());
                            } catch (RuntimeException | StackOverflowError e) {
                                refusal = new Refusal("BadRequest", type + ": " + CodeAgentKernel.oneLine(e));
                            }
                        }
                        if (refusal == null) {
                            message = new Message<>(identities, header(h, mt), null, new LinkedHashMap<>(), typed,
                                    List.copyOf(frames.subList(d + 6, frames.size())));
                        }
                    }
                }
            }
            if (refusal != null) {
                refuse(identities, h, type, replyType, refusal);
                return;
            }
            dispatch(handler, message, identities, h, type, replyType);
        }

        private void dispatch(ShellHandler<Object> handler, Message<Object> message, List<byte[]> identities, JsonObject h,
                String type, String replyType) {
            ShellReplyEnvironment env = connection.prepareReplyEnv(this, message);
            String failure = null;
            try {
                handler.handle(env, message);
            } catch (RuntimeException | LinkageError e) {
                log.warn("{}: {} failed in the kernel", name, type, e);
                failure = CodeAgentKernel.oneLine(e);
            } finally {
                try {
                    env.resolveDeferrals();
                } catch (RuntimeException e) {
                    // a handler that asked to defer and then threw: what it deferred is sent, the rest is answered below
                    log.debug("{}: deferred messages of a failed {}", name, type, e);
                }
            }
            boolean replied = env instanceof Tracked t && t.replied;
            if (replyType != null && (failure != null || !replied)) {
                refuse(identities, h, type, replyType, new Refusal("KernelError", failure != null ? type + ": " + failure
                        : "the kernel had no answer to " + type));
            }
            if (env.isMarkedForShutdown()) {
                connection.close();
            }
        }

        /** Fields of a header other than msg_type: strings when present; msg_id required. */
        private static Refusal headerProblem(JsonObject h) {
            for (String field : List.of("msg_id", "session", "username", "version", "date")) {
                JsonElement e = h.get(field);
                boolean missing = e == null || e.isJsonNull();
                if (missing ? field.equals("msg_id") : !(e instanceof JsonPrimitive p && p.isString())) {
                    return new Refusal("BadMessage", "header." + field + " must be a string, was "
                            + (missing ? "missing" : RequestRules.describe(e)));
                }
            }
            return null;
        }

        private static Header<Object> header(JsonObject h, MessageType<Object> type) {
            String date = text(h, "date");
            return new Header<>(text(h, "msg_id"), text(h, "username"), text(h, "session"),
                    date.isEmpty() ? null : new KernelTimestamp(date), type, text(h, "version"));
        }

        private static String text(JsonObject h, String field) {
            JsonElement e = h.get(field);
            return e instanceof JsonPrimitive p && p.isString() ? p.getAsString() : "";
        }

        /** Answers a request with an error of its reply type; a message that asks for no reply is only logged. */
        private void refuse(List<byte[]> identities, JsonObject request, String type, String replyType, Refusal refusal) {
            log.warn("{}: refused {}: {}: {}", name, RequestRules.abbreviate(type), refusal.ename(), refusal.evalue());
            if (replyType == null || closed) {
                return;
            }
            JsonObject parent = new JsonObject();
            for (Map.Entry<String, JsonElement> e : request.entrySet()) {
                // the request's header, as a reply's parent; a field too long to be a real one is not echoed back
                if (e.getValue() instanceof JsonPrimitive p && p.getAsString().length() <= 1024) {
                    parent.add(e.getKey(), p);
                }
            }
            JsonObject header = new JsonObject();
            header.addProperty("msg_id", UUID.randomUUID().toString());
            header.addProperty("username", Header.KERNEL_USERNAME);
            header.addProperty("session", parent.has("session") ? parent.get("session").getAsString() : "");
            header.addProperty("date", Instant.now().toString());
            header.addProperty("msg_type", replyType);
            header.addProperty("version", Header.PROTOCOL_VERISON);
            JsonObject content = new JsonObject();
            content.addProperty("status", "error");
            content.addProperty("ename", refusal.ename());
            content.addProperty("evalue", refusal.evalue());
            JsonArray traceback = new JsonArray();
            traceback.add(refusal.ename() + ": " + refusal.evalue());
            content.add("traceback", traceback);
            if (replyType.equals("execute_reply")) {
                content.addProperty("execution_count", executionCount.getAsInt());
            }
            byte[] headerRaw = header.toString().getBytes(StandardCharsets.UTF_8);
            byte[] parentRaw = parent.toString().getBytes(StandardCharsets.UTF_8);
            byte[] metadataRaw = "{}".getBytes(StandardCharsets.UTF_8);
            byte[] contentRaw = content.toString().getBytes(StandardCharsets.UTF_8);
            String signature = hmacGenerator.calculateSignature(headerRaw, parentRaw, metadataRaw, contentRaw);
            synchronized (this) { // the monitor the library's sendMessage holds: frames of two replies never interleave
                for (byte[] id : identities) {
                    sendMore(id);
                }
                sendMore(DELIMITER);
                sendMore((signature == null ? "" : signature).getBytes(StandardCharsets.US_ASCII));
                sendMore(headerRaw);
                sendMore(parentRaw);
                sendMore(metadataRaw);
                send(contentRaw);
            }
        }

        private static JsonElement parse(byte[] raw) {
            try {
                return JsonParser.parseString(new String(raw, StandardCharsets.UTF_8));
            } catch (RuntimeException | StackOverflowError garbage) {
                return null;
            }
        }

        @Override
        public void close() {
            running = false;
            Thread t = loop;
            if (t != null && t != Thread.currentThread() && t.isAlive()) {
                try {
                    // the loop leaves its poll within 200 ms; a cell still running is given a moment to answer first
                    t.join(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            super.close();
        }

        @Override
        public void waitUntilClose() {
            Thread t = loop;
            if (t != null) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
