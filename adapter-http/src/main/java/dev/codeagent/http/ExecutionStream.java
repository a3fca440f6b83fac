package dev.codeagent.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.run.Caller;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.LiveExecution;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/executions} with {@code Accept: text/event-stream}: the program runs live ({@code Sandbox.start}, on
 * any tier that can) and its output goes out as server-sent events as it is written: {@code compile} once for a
 * compiled language (its compile stage, as the result's {@code compile} gives it, and {@code built}), an {@code output}
 * event ({@code stream}: {@code stdout} or {@code stderr}, {@code text}) per chunk, then {@code result} (the JSON the
 * plain request answers) or {@code failed} ({@code status}, {@code detail}). The program's stdin is the request's, then
 * end of file. A refusal before anything was sent (a 400, a full house) is an ordinary problem answer; a client that
 * goes away cancels the program the next time something is sent to it.
 */
final class ExecutionStream {

    private static final Logger log = LoggerFactory.getLogger(ExecutionStream.class);

    private final HttpServletResponse res;
    private long lastId;
    private boolean opened;
    private boolean gone;
    private final AtomicReference<LiveExecution> running = new AtomicReference<>();

    private ExecutionStream(HttpServletResponse res) {
        this.res = res;
    }

    /** Whether the request asks for the stream form. */
    static boolean wanted(String accept) {
        return accept != null && accept.contains("text/event-stream");
    }

    /** Runs {@code request} live for {@code caller}, streaming it to {@code res}; returns once the stream ended. */
    static void run(ExecutionGate gate, ExecutionRequest request, Caller caller, HttpServletResponse res) {
        new ExecutionStream(res).run(gate, request, caller);
    }

    private void run(ExecutionGate gate, ExecutionRequest request, Caller caller) {
        LiveExecution.Listener listener = new LiveExecution.Listener() {
            @Override
            public void output(int stream, String text) {
                send("output", Views.MAPPER.createObjectNode().put("stream", stream == STDOUT ? "stdout" : "stderr")
                        .put("text", text));
            }

            @Override
            public void compiled(Execution compileStage, boolean built) {
                ObjectNode n = Views.execution(compileStage);
                n.put("built", built);
                send("compile", n);
            }
        };
        Execution e;
        try {
            e = gate.hold(caller, () -> {
                LiveExecution live;
                try {
                    live = gate.start(request, listener);
                } catch (UnsupportedOperationException cannot) {
                    // said, not run another way: the client asked for output as it comes
                    throw ProblemException.invalid("Accept", cannot.getMessage()
                            + "; ask without Accept: text/event-stream for the whole result at the end");
                }
                running.set(live);
                if (isGone()) {
                    live.cancel();
                }
                live.closeStdin();
                return live.await();
            });
        } catch (ProblemException p) {
            if (!isOpened()) {
                throw p;
            }
            send("failed", Views.MAPPER.createObjectNode().put("status", p.status()).put("detail", p.getMessage()));
            return;
        }
        gate.counted(e, "api");
        send("result", Views.execution(e));
    }

    private synchronized boolean isOpened() {
        return opened;
    }

    private synchronized boolean isGone() {
        return gone;
    }

    /** One event, written and flushed at once; the stream opens with the first. */
    private synchronized void send(String event, ObjectNode data) {
        if (gone) {
            return;
        }
        try {
            if (!opened) {
                res.setStatus(200);
                res.setContentType("text/event-stream");
                res.setCharacterEncoding("UTF-8");
                res.setHeader("Cache-Control", "no-store");
                res.setHeader("X-Accel-Buffering", "no");
                opened = true;
            }
            OutputStream out = res.getOutputStream();
            // compact JSON has no raw newline: one data line carries the whole event
            out.write(("id: " + (++lastId) + "\nevent: " + event + "\ndata: " + Views.MAPPER.writeValueAsString(data) + "\n\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException clientGone) {
            log.debug("execution stream: the client went away: {}", clientGone.toString());
            gone = true;
            LiveExecution live = running.get();
            if (live != null) {
                live.cancel();
            }
        }
    }
}
