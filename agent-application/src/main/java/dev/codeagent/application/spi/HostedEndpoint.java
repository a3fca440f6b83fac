package dev.codeagent.application.spi;

import java.util.Optional;

/**
 * An endpoint one front door serves inside another door's HTTP server: the MCP door's Streamable HTTP at {@code /mcp}
 * in {@code codeagent serve}. Adapters never depend on each other, so this is how they meet: the endpoint's door
 * contributes it to the composition ({@code Multibinder.newSetBinder(binder(), HostedEndpoint.class)}) and whichever
 * door has an HTTP server takes the set and serves each one.
 *
 * <p>The contract. The host authenticates every request under {@link #path()} before the endpoint sees it, exactly as
 * it does its own routes: no key 401, a key whose groups do not include {@link #group()} 403, its rate limits 429,
 * while it stops 503, each answered by the host. A request that passes reaches the endpoint with who called as a
 * {@link dev.codeagent.application.run.Caller} ({@code key:NAME}, or an operator without an owner when the host runs without auth); a servlet host
 * puts it in the request attribute {@link #CALLER_ATTRIBUTE}. The endpoint decides nothing about keys and trusts
 * that attribute alone.
 *
 * <p>No server API appears here (the application does not depend on the servlet API): the endpoint offers its
 * handler as the types it has, and a host asks for the one it can serve ({@code handler(jakarta.servlet.Servlet.class)});
 * a host that finds none it can serve refuses to start, naming the endpoint.
 */
public interface HostedEndpoint extends AutoCloseable {

    /**
     * Where a servlet host puts the request's {@link dev.codeagent.application.run.Caller} (its class's name, spelled
     * out: the service interfaces here name no use case's types).
     */
    String CALLER_ATTRIBUTE = "dev.codeagent.application.run.Caller";

    /** The exact path served, e.g. {@code /mcp}. */
    String path();

    /** The API key group a key must name (or name no group at all) to reach {@link #path()}: e.g. {@code mcp}. */
    String group();

    /** The handler as a {@code type} the host serves, or empty when the endpoint has none of that type. */
    <T> Optional<T> handler(Class<T> type);

    /** Ends what the endpoint holds (its sessions' kernels); the host calls it when it stops. */
    @Override
    void close();
}
