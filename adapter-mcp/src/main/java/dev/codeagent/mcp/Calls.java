package dev.codeagent.mcp;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * The tool calls running now: each call's thread under its JSON-RPC id, so that {@code notifications/cancelled} can
 * stop it, and a fixed number of places per MCP session, so that a client sending many calls at once queues them
 * (first come, first served) rather than filling the sandbox.
 */
final class Calls {

    /** Where the transport puts a call's JSON-RPC id in its {@code _meta}. */
    static final String REQUEST_ID = "dev.codeagent/requestId";

    /** One running call: its thread, and why it was cancelled once it was. */
    static final class Call {
        private final Thread thread;
        private volatile String cancelled;

        Call(Thread thread) {
            this.thread = thread;
        }

        /** Why the client cancelled this call, or null while it has not. */
        String cancelled() {
            return cancelled;
        }

        void cancel(String reason) {
            cancelled = reason == null || reason.isBlank() ? "cancelled by the client" : "cancelled by the client: " + reason;
            thread.interrupt();
        }
    }

    private final int placesPerSession;
    // by the id the wire tagged the call with: the JSON-RPC id over stdio (one session), "session/id" over HTTP
    // (McpHttpEndpoint), where ids are unique within a session only
    private final Map<String, Call> running = new ConcurrentHashMap<>();
    private final Map<String, Semaphore> places = new ConcurrentHashMap<>();

    Calls(int placesPerSession) {
        this.placesPerSession = placesPerSession;
    }

    /**
     * Runs {@code body} for the call {@code requestId} (null when the transport gave none: it cannot be cancelled)
     * of MCP session {@code session}, once the session has a free place.
     *
     * @throws InterruptedException when the call was cancelled while it waited
     */
    <T> T run(String session, String requestId, java.util.function.Function<Call, T> body) throws InterruptedException {
        Semaphore mine = places.computeIfAbsent(Objects.requireNonNullElse(session, ""), s -> new Semaphore(placesPerSession, true));
        Call call = new Call(Thread.currentThread());
        if (requestId != null) {
            running.put(requestId, call);
        }
        try {
            mine.acquire();
            try {
                return body.apply(call);
            } finally {
                mine.release();
            }
        } finally {
            if (requestId != null) {
                running.remove(requestId, call);
            }
            // an interrupt meant for this call must not reach the next one on this pool thread
            Thread.interrupted();
        }
    }

    /** Cancels the call {@code requestId} if it is running; a late or unknown id is ignored, as the spec asks. */
    void cancel(String requestId, String reason) {
        Call call = running.get(requestId);
        if (call != null) {
            call.cancel(reason);
        }
    }

    /** Forgets the places of a session that ended. */
    void forget(String session) {
        places.remove(Objects.requireNonNullElse(session, ""));
    }

    /** Calls running or waiting now. */
    int running() {
        return running.size();
    }
}
