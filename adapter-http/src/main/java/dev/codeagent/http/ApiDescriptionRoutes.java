package dev.codeagent.http;

import io.javalin.http.HandlerType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /openapi.json}: the OpenAPI 3.1 description of this API, open to all like {@code /health}.
 * It is written by hand and checked against the server's registered routes and its real answers by
 * {@code ApiDescriptionIT}, so it cannot drift from the code.
 */
final class ApiDescriptionRoutes {

    static final String RESOURCE = "openapi.json";

    private final String document;

    ApiDescriptionRoutes() {
        try (InputStream in = ApiDescriptionRoutes.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the API description " + RESOURCE + " is missing from the build");
            }
            this.document = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void register(Router router) {
        router.route(HandlerType.GET, "/openapi.json", ctx -> {
            ctx.contentType("application/json");
            ctx.result(document);
        });
    }
}
