package dev.codeagent.http;

import dev.codeagent.application.host.HostNames;
import dev.codeagent.http.ProblemException.Type;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What a web page in the user's browser may not make of this server. The API is for programs (curl, SDKs, agents),
 * which send no {@code Origin}; a browser sends one, and a page of another origin must not run code here with a
 * "simple" request (a form or text/plain POST needs no preflight, so the absence of CORS headers does not stop it), nor
 * open a WebSocket (never subject to CORS), nor talk MCP (its specification: servers MUST validate Origin). And with
 * auth off, where no key protects the server, a page that had its own DNS name resolve to 127.0.0.1 (DNS rebinding)
 * would be same-origin to the browser and read every answer: there the {@code Host} must be a name of this machine.
 *
 * <p>The console, served by this server at {@code /}, is same-origin: its calls pass. Decides only; the caller counts
 * and answers ({@link RequestGuard#crossSite}).
 */
final class CrossSite {

    private static final Set<String> MUTATING = Set.of("POST", "PUT", "PATCH", "DELETE");
    private final boolean checkHost;
    private final String configuredHost;

    /**
     * @param checkHost whether the {@code Host} must be this machine's (auth off: nothing else stops DNS rebinding)
     * @param configuredHost {@code http.host}, a name the server may be reached by
     */
    CrossSite(boolean checkHost, String configuredHost) {
        this.checkHost = checkHost;
        this.configuredHost = HostNames.of(configuredHost);
    }

    /** One request as these rules see it. {@code alwaysOrigin}: the Origin is checked whatever the method (/mcp). */
    record Seen(String method, String host, String origin, String fetchSite, boolean upgrade, boolean alwaysOrigin) {
    }

    /** The refusal of a request, or empty when it may go on. */
    Optional<ProblemException> refusal(Seen r) {
        if (checkHost && r.host() != null && !HostNames.noPageControls(HostNames.of(r.host()), configuredHost)) {
            return Optional.of(new ProblemException(Type.UNKNOWN_HOST, "the Host '" + abbreviate(r.host()) + "' is not a name"
                    + " of this server: with http.auth.enabled=false only localhost, an IP address or http.host ("
                    + configuredHost + ") are answered, so that no web page can reach the server by a DNS name of its own"
                    + " (DNS rebinding); use one of those, or turn auth on to serve other names"));
        }
        boolean checked = r.alwaysOrigin() || r.upgrade() || MUTATING.contains(r.method().toUpperCase(Locale.ROOT));
        if (!checked) {
            // a reading request from another page gets its answer, which the browser does not show that page (no CORS
            // headers); with auth off a rebinding page, the one that could read it, was refused above
            return Optional.empty();
        }
        if (r.origin() != null) {
            if (sameOrigin(r.origin(), r.host())) {
                return Optional.empty();
            }
            return Optional.of(new ProblemException(Type.CROSS_SITE, "the request came from the web page of origin '"
                    + abbreviate(r.origin()) + "', not from this server's own pages: the API is not for cross-site use"
                    + " (programs such as curl and the SDKs send no Origin; a browser page must be served by this server)"
                    + (portDropped(r.origin(), r.host()) ? "; the Host '" + abbreviate(r.host()) + "' names no port: a proxy"
                    + " in front must pass the browser's Host on with its port (nginx: proxy_set_header Host $http_host)" : "")));
        }
        // a browser that sends no Origin still says where the request came from; 'none' is a typed address or a bookmark
        if (r.fetchSite() != null && !r.fetchSite().equalsIgnoreCase("same-origin") && !r.fetchSite().equalsIgnoreCase("none")) {
            return Optional.of(new ProblemException(Type.CROSS_SITE, "the request came from another site's web page"
                    + " (Sec-Fetch-Site: " + abbreviate(r.fetchSite()) + "): the API is not for cross-site use (programs such"
                    + " as curl and the SDKs send neither Origin nor Sec-Fetch-Site)"));
        }
        return Optional.empty();
    }

    /**
     * Whether a request the rules let through was sent by a page of another origin all the same (a reading one: an
     * {@code <img>}, a no-cors fetch), as its browser says: a foreign Origin, or a Sec-Fetch-Site that is not
     * same-origin or none. Programs send neither.
     */
    static boolean fromAnotherPage(Seen r) {
        if (r.origin() != null) {
            return !sameOrigin(r.origin(), r.host());
        }
        return r.fetchSite() != null && !r.fetchSite().equalsIgnoreCase("same-origin") && !r.fetchSite().equalsIgnoreCase("none");
    }

    /**
     * Whether {@code origin} is the server's own: the host and port the request was sent to ({@code Host}). The scheme is
     * not compared: behind a TLS proxy the page is {@code https://name} while the request reaches this server over
     * plain HTTP; an absent port is the origin's scheme's default, and a Host without one matches either default.
     */
    static boolean sameOrigin(String origin, String host) {
        if (host == null || origin.equals("null")) {
            return false;
        }
        URI o;
        try {
            o = new URI(origin);
        } catch (URISyntaxException e) {
            return false;
        }
        if (o.getScheme() == null || o.getHost() == null || (o.getPath() != null && !o.getPath().isEmpty())) {
            return false;
        }
        int originPort = o.getPort() >= 0 ? o.getPort() : o.getScheme().equalsIgnoreCase("https") ? 443 : 80;
        if (!HostNames.of(o.getHost()).equals(HostNames.of(host))) {
            return false;
        }
        int hostPort = port(host);
        return hostPort < 0 ? originPort == 80 || originPort == 443 : hostPort == originPort;
    }

    /** Whether the origin is the Host's name on a port the Host does not name: a proxy that passed the name alone. */
    private static boolean portDropped(String origin, String host) {
        if (host == null || port(host) >= 0) {
            return false;
        }
        try {
            URI o = new URI(origin);
            return o.getHost() != null && o.getPort() >= 0 && HostNames.of(o.getHost()).equals(HostNames.of(host));
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** The port a {@code Host} header names, or -1 when none (or not a number). */
    private static int port(String host) {
        String h = host.trim();
        int colon = h.lastIndexOf(':');
        if (colon < 0 || h.indexOf(']', colon) >= 0 || (!h.startsWith("[") && h.indexOf(':') != colon)) {
            return -1;
        }
        try {
            return Integer.parseInt(h.substring(colon + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String abbreviate(String header) {
        return JsonBodies.abbreviate(header, 120);
    }
}
