package dev.codeagent.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The web console: {@code /} is its page, {@code /console/...} its scripts and styles, read from the console-web
 * module's files on the classpath (no CDN, no files on disk). The console is a client of this same API; these routes
 * hand out static files only, open to anyone like {@code /health}, since they hold no data: the key the console signs in
 * with goes with each API call, and the API decides what the key may see.
 *
 * <p>Every page answer carries a Content-Security-Policy that allows scripts, styles and connections of this origin
 * only (no inline script, no {@code eval}), images of this origin or {@code data:} (a session's plots), no plugins, no
 * framing: a program's output that got into the page as markup would still run nothing. No CORS header is ever sent,
 * so another origin's page cannot read the API with a key a browser holds.
 */
final class ConsoleRoutes {

    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self';"
            + " img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"
            + " frame-ancestors 'none'";
    private static final String ROOT = "dev/codeagent/console/";
    /** ECharts, from its WebJar: the console's charts and the eval report's use the same copy. */
    private static final String ECHARTS = "META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";
    /** Lower-case names in folders, one extension: no {@code ..}, no encoded separators, nothing outside the folder. */
    private static final Pattern FILE = Pattern.compile("([a-z0-9_-]+/)*[a-z0-9_-]+(\\.[a-z0-9_-]+)*\\.(js|css|html|svg|png)");
    private static final Map<String, String> TYPES = Map.of("js", "text/javascript; charset=utf-8", "css",
            "text/css; charset=utf-8", "html", "text/html; charset=utf-8", "svg", "image/svg+xml", "png", "image/png");

    private final Map<String, byte[]> files = new ConcurrentHashMap<>();

    void register(Javalin app) {
        app.get("/", ctx -> serve(ctx, "index.html"));
        app.get("/console/vendor/echarts.min.js", ctx -> send(ctx, "js", read(ECHARTS)));
        app.get("/console/<path>", ctx -> serve(ctx, ctx.pathParam("path")));
    }

    private void serve(Context ctx, String path) {
        if (!FILE.matcher(path).matches()) {
            throw new ProblemException(ProblemException.Type.NOT_FOUND, "no such console file");
        }
        send(ctx, path.substring(path.lastIndexOf('.') + 1), read(ROOT + path));
    }

    private void send(Context ctx, String extension, Optional<byte[]> body) {
        byte[] bytes = body.orElseThrow(() -> new ProblemException(ProblemException.Type.NOT_FOUND, "no such console file"));
        ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Cross-Origin-Opener-Policy", "same-origin");
        ctx.contentType(TYPES.get(extension));
        ctx.result(bytes);
    }

    private Optional<byte[]> read(String resource) {
        // the jar does not change while the server runs: each file is read once; a name that is not there is not kept,
        // so asking for made-up names cannot fill the memory
        byte[] cached = files.get(resource);
        if (cached != null) {
            return Optional.of(cached);
        }
        try (InputStream in = ConsoleRoutes.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] bytes = in.readAllBytes();
            files.put(resource, bytes);
            return Optional.of(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the console's " + resource, e);
        }
    }
}
