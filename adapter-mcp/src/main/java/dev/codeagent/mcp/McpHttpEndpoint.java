package dev.codeagent.mcp;

import dev.codeagent.application.run.Caller;
import dev.codeagent.application.spi.HostedEndpoint;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import jakarta.servlet.Servlet;
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

    private final McpTools tools;
    private final HttpServletStreamableServerTransportProvider transport;
    private final McpSyncServer server;
    /** Each session's owner, recorded when the transport hands out its id. */
    private final Map<String, String> owners = new ConcurrentHashMap<>();
    private final Servlet servlet = new Owned();

    McpHttpEndpoint(McpTools.Parts parts) {
        McpConfig mcp = McpConfig.from(parts.config());
        this.tools = new McpTools(parts, new Calls(mcp.maxCallsPerSession()));
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
}
