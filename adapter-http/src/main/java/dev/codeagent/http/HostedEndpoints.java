package dev.codeagent.http;

import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.spi.HostedEndpoint;
import jakarta.servlet.Servlet;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What other doors serve in this server ({@link HostedEndpoint}: the MCP door's {@code /mcp}), each behind the same
 * key check as the API's own routes, and the same refusal of other origins ({@link CrossSite}: here any request with
 * a foreign Origin, not only a mutating one). An endpoint's servlet is mapped at its exact path beside Javalin's, so
 * Javalin's before-handlers never see its requests: the check runs here, in front of it, and answers 401/403/421/429/503
 * with the same problem documents; a request that passes carries its {@code Caller} in {@link HostedEndpoint#CALLER_ATTRIBUTE}.
 */
final class HostedEndpoints implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HostedEndpoints.class);

    private final List<HostedEndpoint> endpoints;
    private final RequestGuard guard;
    private final ApiMetrics metrics;

    /** @throws ConfigException when an endpoint has no servlet, or two want one path */
    HostedEndpoints(Set<HostedEndpoint> endpoints, RequestGuard guard, ApiMetrics metrics) {
        List<HostedEndpoint> sorted = new ArrayList<>(endpoints);
        sorted.sort(java.util.Comparator.comparing(HostedEndpoint::path));
        for (int i = 0; i < sorted.size(); i++) {
            HostedEndpoint e = sorted.get(i);
            if (e.handler(Servlet.class).isEmpty()) {
                throw new ConfigException("the endpoint " + e.path() + " offers no servlet; this HTTP server serves servlets only");
            }
            if (i > 0 && sorted.get(i - 1).path().equals(e.path())) {
                throw new ConfigException("two endpoints want the path " + e.path());
            }
            if (RequestGuard.group(e.path()) != null) {
                // the API's own namespaces stay the API's
                throw new ConfigException("the endpoint " + e.path() + " lies under the API's own paths");
            }
        }
        this.endpoints = List.copyOf(sorted);
        this.guard = guard;
        this.metrics = metrics;
    }

    /** Maps each endpoint's servlet, guarded, at its path. */
    void mount(ServletContextHandler context) {
        for (HostedEndpoint e : endpoints) {
            ServletHolder holder = new ServletHolder(new Guarded(e, guard, metrics));
            // the SDK's transport answers from other threads (server-sent events)
            holder.setAsyncSupported(true);
            context.addServlet(holder, e.path());
        }
    }

    /** Paths served, for the list of routes. */
    List<String> paths() {
        return endpoints.stream().map(HostedEndpoint::path).toList();
    }

    @Override
    public void close() {
        for (HostedEndpoint e : endpoints) {
            try {
                e.close();
            } catch (RuntimeException x) {
                log.warn("closing the endpoint {}: {}", e.path(), x.getMessage());
            }
        }
    }

    /** The key check in front of one endpoint's servlet. */
    private static final class Guarded extends HttpServlet {

        private final transient HostedEndpoint endpoint;
        private final transient Servlet servlet;
        private final transient RequestGuard guard;
        private final transient ApiMetrics metrics;

        Guarded(HostedEndpoint endpoint, RequestGuard guard, ApiMetrics metrics) {
            this.endpoint = endpoint;
            this.servlet = endpoint.handler(Servlet.class).orElseThrow();
            this.guard = guard;
            this.metrics = metrics;
        }

        @Override
        public void init(ServletConfig config) throws ServletException {
            super.init(config);
            servlet.init(config);
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
            long started = System.nanoTime();
            resp.setHeader("X-Request-Id", RequestGuard.newRequestId());
            resp.setHeader("X-Content-Type-Options", "nosniff");
            resp.setHeader("Cache-Control", "no-store");
            try {
                // MCP's specification: a server MUST validate Origin; any request, a GET's event stream too
                guard.crossSite(new CrossSite.Seen(req.getMethod(), req.getHeader("Host"), req.getHeader("Origin"),
                        req.getHeader("Sec-Fetch-Site"), RequestGuard.upgrade(req.getHeader("Upgrade")), true));
                if (guard.stopping()) {
                    throw ProblemException.retryLater(ProblemException.Type.SHUTTING_DOWN, "the server is shutting down",
                            Duration.ofSeconds(5));
                }
                var key = guard.authorize(req.getHeader("Authorization"), req.getRemoteAddr(), endpoint.group());
                req.setAttribute(HostedEndpoint.CALLER_ATTRIBUTE, RequestGuard.caller(key));
            } catch (ProblemException p) {
                Problems.write(resp, p, req.getRequestURI(), false);
                record(req, resp, started);
                return;
            }
            servlet.service(req, resp);
            record(req, resp, started);
        }

        private void record(HttpServletRequest req, HttpServletResponse resp, long started) {
            String method = req.getMethod();
            metrics.request(Set.of("GET", "POST", "DELETE").contains(method) ? method : "OTHER", endpoint.path(),
                    resp.getStatus(), System.nanoTime() - started);
        }

        @Override
        public void destroy() {
            servlet.destroy();
        }
    }
}
