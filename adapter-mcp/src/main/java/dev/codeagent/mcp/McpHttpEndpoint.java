package dev.codeagent.mcp;

import dev.codeagent.application.run.Caller;
import dev.codeagent.application.spi.HostedEndpoint;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.servlet.ReadListener;
import jakarta.servlet.Servlet;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MCP server over Streamable HTTP at {@code /mcp}, for a door that hosts it ({@code codeagent serve}): the SDK's
 * servlet transport and the same tools as over stdio. The host checks the API key (group {@code mcp}) and passes the
 * caller; here each MCP session belongs to the caller that opened it, and a request naming a session of another
 * caller is answered as one naming no session at all (404), so a session id is neither usable nor an oracle for
 * anyone else. A session's kernel ends with the session's {@code DELETE}, or at its idle time.
 */
final class McpHttpEndpoint implements HostedEndpoint {

    static final String PATH = "/mcp";
    static final String GROUP = "mcp";
    private static final String SESSION_HEADER = "Mcp-Session-Id";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Calls calls;
    private final McpTools tools;
    private final HttpServletStreamableServerTransportProvider transport;
    private final McpSyncServer server;
    /** Each session's owner, recorded when the transport hands out its id. */
    private final Map<String, String> owners = new ConcurrentHashMap<>();
    private final Servlet servlet = new Owned();

    McpHttpEndpoint(McpTools.Parts parts) {
        McpConfig mcp = McpConfig.from(parts.config());
        this.calls = new Calls(mcp.maxCallsPerSession());
        this.tools = new McpTools(parts, calls);
        this.transport = HttpServletStreamableServerTransportProvider.builder().jsonMapper(McpJsonDefaults.getMapper())
                .mcpEndpoint(PATH).maxRequestSize(McpMain.MAX_MESSAGE_BYTES)
                .contextExtractor(request -> request.getAttribute(CALLER_ATTRIBUTE) instanceof Caller c
                        ? McpTransportContext.create(Map.of(McpTools.CALLER, c)) : McpTransportContext.EMPTY)
                .build();
        this.server = McpMain.server(transport, tools);
    }

    @Override
    public String path() {
        return PATH;
    }

    @Override
    public String group() {
        return GROUP;
    }

    @Override
    public <T> Optional<T> handler(Class<T> type) {
        return type.isInstance(servlet) ? Optional.of(type.cast(servlet)) : Optional.empty();
    }

    @Override
    public void close() {
        server.closeGracefully();
        tools.close();
    }

    /** Who a request's session must belong to: the caller's owner name (every caller alike when auth is off). */
    private static String owner(HttpServletRequest request) {
        return request.getAttribute(CALLER_ATTRIBUTE) instanceof Caller c && c.owner() != null ? c.owner() : "";
    }

    /** The transport, with each session kept to the caller that opened it. */
    private final class Owned extends HttpServlet {

        @Override
        public void init(ServletConfig config) throws ServletException {
            super.init(config);
            transport.init(config);
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
            String owner = owner(req);
            String session = req.getHeader(SESSION_HEADER);
            if (session == null) {
                // a new session (initialize): its id is recorded as the caller's before the client can read it
                transport.service(req, new HttpServletResponseWrapper(resp) {
                    @Override
                    public void setHeader(String name, String value) {
                        claim(name, value);
                        super.setHeader(name, value);
                    }

                    @Override
                    public void addHeader(String name, String value) {
                        claim(name, value);
                        super.addHeader(name, value);
                    }

                    private void claim(String name, String value) {
                        if (SESSION_HEADER.equalsIgnoreCase(name) && value != null) {
                            owners.putIfAbsent(value, owner);
                        }
                    }
                });
                return;
            }
            if (!owner.equals(owners.get(session))) {
                // another caller's session, or none: the same answer, the spec's for an unknown session
                resp.setStatus(404);
                resp.setContentType("application/json");
                resp.getOutputStream().write(("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32001,\"message\":\"Session not"
                        + " found: start a new one with initialize\"},\"id\":null}").getBytes(StandardCharsets.UTF_8));
                return;
            }
            if ("POST".equals(req.getMethod())) {
                byte[] body = req.getInputStream().readNBytes(McpMain.MAX_MESSAGE_BYTES + 1);
                if (body.length > McpMain.MAX_MESSAGE_BYTES) {
                    resp.setStatus(413);
                    resp.setContentType("application/json");
                    resp.getOutputStream().write(("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"a message"
                            + " is at most " + McpMain.MAX_MESSAGE_BYTES + " bytes\"},\"id\":null}").getBytes(StandardCharsets.UTF_8));
                    return;
                }
                byte[] routed = route(session, body);
                if (routed == null) {
                    // a cancellation, delivered here: the SDK has no handler for it
                    resp.setStatus(202);
                    return;
                }
                transport.service(new Body(req, routed), resp);
                return;
            }
            transport.service(req, resp);
            if ("DELETE".equals(req.getMethod()) && resp.getStatus() < 300) {
                owners.remove(session);
                tools.endSession(session);
            }
        }

        @Override
        public void destroy() {
            transport.destroy();
        }
    }

    /**
     * What the SDK does not do for a tool call, as {@link StdioWire} does over stdio: a {@code notifications/cancelled}
     * goes to the call it names (then null: nothing left for the SDK), and each {@code tools/call} carries its id in
     * {@code _meta} so its call can be found. Ids are the client's, unique within its session only: a call is known by
     * session and id. Anything else, JSON or not, goes to the SDK as it came, to be answered there.
     */
    private byte[] route(String session, byte[] body) {
        JsonNode message;
        try {
            message = JSON.readTree(body);
        } catch (IOException e) {
            return body;
        }
        if (message == null || !message.isObject()) {
            return body;
        }
        String method = message.path("method").asText("");
        JsonNode params = message.get("params");
        if (method.equals("notifications/cancelled") && !message.has("id")) {
            JsonNode cancelled = message.path("params").path("requestId");
            if (!cancelled.isMissingNode() && !cancelled.isNull()) {
                calls.cancel(session + "/" + cancelled.asText(), message.path("params").path("reason").asText(null));
            }
            return null;
        }
        JsonNode id = message.get("id");
        if (method.equals("tools/call") && id != null && (id.isTextual() || id.isIntegralNumber()) && params instanceof ObjectNode p) {
            JsonNode meta = p.get("_meta");
            ObjectNode tagged = meta instanceof ObjectNode m ? m : p.putObject("_meta");
            tagged.put(Calls.REQUEST_ID, session + "/" + id.asText());
            return message.toString().getBytes(StandardCharsets.UTF_8);
        }
        return body;
    }

    /** A request whose body was read, and is read again from here. */
    private static final class Body extends HttpServletRequestWrapper {
        private final byte[] body;

        Body(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("the body was read already");
                }
            };
        }

        @Override
        public BufferedReader getReader() {
            return new BufferedReader(new InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
        }

        @Override
        public int getContentLength() {
            return body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }
    }
}
