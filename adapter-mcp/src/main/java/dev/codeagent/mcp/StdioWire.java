package dev.codeagent.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client writes to the server's stdin, as the SDK's stdio transport reads it: one JSON-RPC message a line.
 *
 * <p>Two things the SDK (2.2) does not do are done here. It stops reading at the first line it cannot parse or that
 * is too large, so one bad line would end the session; here such a line is answered with the JSON-RPC error its
 * sender can read (parse error, invalid request, too large) and never reaches the SDK. And it has no handler for
 * {@code notifications/cancelled}, nor tells a tool which request it serves: here each {@code tools/call} carries its
 * JSON-RPC id in {@code _meta} ({@link Calls#REQUEST_ID}) and a cancellation goes to {@link Calls#cancel}.
 */
final class StdioWire extends InputStream {

    private static final Logger log = LoggerFactory.getLogger(StdioWire.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final InputStream in;
    private final OutputStream out;
    private final Calls calls;
    private final int maxLineBytes;
    private final Runnable onEnd;
    private byte[] pending = new byte[0];
    private int at;
    private boolean ended;

    /**
     * @param out the stream the SDK writes to: errors are written holding its lock, as the SDK writes its messages
     * @param maxLineBytes the largest message taken; a longer line is skipped and answered
     * @param onEnd told once when the input has ended (the client went away)
     */
    StdioWire(InputStream in, OutputStream out, Calls calls, int maxLineBytes, Runnable onEnd) {
        this.in = in;
        this.out = out;
        this.calls = calls;
        this.maxLineBytes = maxLineBytes;
        this.onEnd = onEnd;
    }

    @Override
    public int read() throws IOException {
        if (!fill()) {
            return -1;
        }
        return pending[at++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        int n = Math.min(len, pending.length - at);
        System.arraycopy(pending, at, b, off, n);
        at += n;
        return n;
    }

    /** Makes sure some accepted bytes are waiting; false at the end of the input. */
    private boolean fill() throws IOException {
        while (at >= pending.length) {
            if (ended) {
                return false;
            }
            byte[] line = nextLine();
            if (line == null) {
                ended = true;
                onEnd.run();
                return false;
            }
            byte[] accepted = accept(line);
            if (accepted != null) {
                pending = accepted;
                at = 0;
            }
        }
        return true;
    }

    /** The next line without its end, or null at the end of the input; an overlong one is answered and skipped. */
    private byte[] nextLine() throws IOException {
        while (true) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            long length = 0;
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                if (length++ < maxLineBytes) {
                    line.write(c);
                }
            }
            if (c == -1 && length == 0) {
                return null;
            }
            if (length > maxLineBytes) {
                error(null, -32600, "message of " + length + " bytes refused: at most " + maxLineBytes
                        + " bytes a message (send large code as several calls, or smaller)");
                if (c == -1) {
                    return null;
                }
                continue;
            }
            return line.toByteArray();
        }
    }

    /** The bytes to hand the SDK for one line (with its newline), or null when the line was answered here. */
    byte[] accept(byte[] line) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(line)).toString();
        } catch (CharacterCodingException e) {
            error(null, -32700, "parse error: the message is not UTF-8 (every message is one line of UTF-8 JSON)");
            return null;
        }
        if (text.isBlank()) {
            return null;
        }
        JsonNode message;
        try {
            message = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            error(null, -32700, "parse error: not JSON (" + e.getOriginalMessage() + ")");
            return null;
        }
        if (message == null || !message.isObject()) {
            error(null, -32600, "invalid request: a message is a JSON object (batches are not part of MCP since 2025-06-18)");
            return null;
        }
        JsonNode id = message.get("id");
        JsonNode method = message.get("method");
        boolean response = id != null && (message.has("result") || message.has("error"));
        if (!"2.0".equals(message.path("jsonrpc").asText(null)) || !(response || method != null && method.isTextual())
                || id != null && !(id.isTextual() || id.isIntegralNumber())) {
            error(id != null && (id.isTextual() || id.isIntegralNumber()) ? id : null, -32600,
                    "invalid request: a JSON-RPC 2.0 message needs \"jsonrpc\": \"2.0\", a string \"method\" (or a"
                            + " result or error), and an id that is a string or an integer");
            return null;
        }
        JsonNode params = message.get("params");
        if (!response && params != null && !params.isObject()) {
            // the SDK would answer with a Jackson message about constructors
            error(id, -32602, "invalid params: \"params\" of " + method.asText() + " is a JSON object");
            return null;
        }
        if (!response && "tools/call".equals(method.asText()) && params != null && params.has("arguments")
                && !params.get("arguments").isObject() && !params.get("arguments").isNull()) {
            error(id, -32602, "invalid params: the arguments of a tools/call are a JSON object of the tool's arguments");
            return null;
        }
        if (!response && "notifications/cancelled".equals(method.asText())) {
            JsonNode cancelled = message.path("params").path("requestId");
            if (!cancelled.isMissingNode() && !cancelled.isNull()) {
                calls.cancel(cancelled.asText(), message.path("params").path("reason").asText(null));
            }
            // the SDK has no handler for it and would only log that it has none
            return null;
        }
        if (!response && id != null && "tools/call".equals(method.asText()) && params != null) {
            JsonNode meta = params.get("_meta");
            ObjectNode tagged = meta != null && meta.isObject() ? (ObjectNode) meta : ((ObjectNode) params).putObject("_meta");
            tagged.put(Calls.REQUEST_ID, id.asText());
            text = message.toString();
        }
        return (text + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** Answers a message the SDK never sees. */
    private void error(JsonNode id, int code, String text) {
        ObjectNode m = JsonNodeFactory.instance.objectNode();
        m.put("jsonrpc", "2.0");
        m.set("id", id == null ? JsonNodeFactory.instance.nullNode() : id);
        m.putObject("error").put("code", code).put("message", text);
        byte[] bytes = (m + "\n").getBytes(StandardCharsets.UTF_8);
        log.warn("refused a message: {}", text);
        try {
            synchronized (out) {
                out.write(bytes);
                out.flush();
            }
        } catch (IOException e) {
            log.warn("cannot answer on stdout: {}", e.getMessage());
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
