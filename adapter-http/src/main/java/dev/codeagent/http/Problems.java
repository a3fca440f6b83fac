package dev.codeagent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.http.ProblemException.Type;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/** Renders RFC 9457 problem documents, including for the errors Jetty answers itself (431, 414, bad requests). */
final class Problems {

    static final String CONTENT_TYPE = "application/problem+json";

    private Problems() {
    }

    static ObjectNode body(ProblemException p, String instance, boolean withMessage) {
        ObjectNode n = Views.MAPPER.createObjectNode();
        n.put("type", p.type().uri());
        n.put("title", p.type().title);
        n.put("status", p.status());
        n.put("detail", p.getMessage());
        if (instance != null) {
            n.put("instance", instance);
        }
        if (!p.errors().isEmpty()) {
            ArrayNode errors = n.putArray("errors");
            p.errors().forEach(e -> errors.addObject().put("field", e.field()).put("message", e.message()));
        }
        for (Map.Entry<String, Object> x : p.extensions().entrySet()) {
            n.set(x.getKey(), Views.MAPPER.valueToTree(x.getValue()));
        }
        if (withMessage) {
            // Piston clients read "message"
            n.put("message", p.getMessage());
        }
        return n;
    }

    static String json(ObjectNode n) {
        try {
            return Views.MAPPER.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            return "{\"type\":\"" + Type.INTERNAL.uri() + "\",\"status\":500}";
        }
    }

    /**
     * Writes a problem straight to the servlet response, where no Javalin handler will render it: in front of what
     * other doors serve ({@link HostedEndpoints}), and for a refused WebSocket upgrade (Javalin maps the exception
     * there but never writes the result: the client would get the status with an empty body).
     */
    static void write(jakarta.servlet.http.HttpServletResponse res, ProblemException p, String instance, boolean withMessage)
            throws java.io.IOException {
        res.setStatus(p.status());
        if (p.retryAfter() != null) {
            res.setHeader("Retry-After", Long.toString(Math.max(1, (p.retryAfter().toMillis() + 999) / 1000)));
        }
        byte[] bytes = json(body(p, instance, withMessage)).getBytes(StandardCharsets.UTF_8);
        res.setContentType(CONTENT_TYPE);
        res.setContentLength(bytes.length);
        res.getOutputStream().write(bytes);
        res.flushBuffer();
    }

    /** A problem for a status Jetty or Javalin produced on its own. */
    static ProblemException forStatus(int status, String detail) {
        switch (status) {
            case 400:
                return new ProblemException(Type.BAD_REQUEST, detail);
            case 404:
                return new ProblemException(Type.NOT_FOUND, detail);
            case 405:
                return new ProblemException(Type.METHOD_NOT_ALLOWED, detail);
            case 408:
                return new ProblemException(Type.REQUEST_TIMEOUT, detail);
            case 413:
                return new ProblemException(Type.BODY_TOO_LARGE, detail);
            case 414:
                return new ProblemException(Type.URI_TOO_LONG, detail);
            case 431:
                return new ProblemException(Type.HEADERS_TOO_LARGE, detail);
            case 500:
                return new ProblemException(Type.INTERNAL, detail);
            case 503:
                return new ProblemException(Type.OVERLOADED, detail);
            default:
                return new ProblemException(Type.OTHER, detail).withStatus(status);
        }
    }

    /** Jetty's own error answers (headers too large, malformed request line, URI too long) as problem documents. */
    static final class JettyErrorHandler extends ErrorHandler {

        @Override
        public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
            fields.put(HttpHeader.CONTENT_TYPE, CONTENT_TYPE);
            return ByteBuffer.wrap(json(body(forStatus(status, describe(status, reason)), null, false)).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void handle(String target, Request baseRequest, jakarta.servlet.http.HttpServletRequest request,
                jakarta.servlet.http.HttpServletResponse response) throws java.io.IOException {
            int status = response.getStatus();
            String reason = (String) request.getAttribute("jakarta.servlet.error.message");
            response.setContentType(CONTENT_TYPE);
            byte[] bytes = json(body(forStatus(status, describe(status, reason)), null, false)).getBytes(StandardCharsets.UTF_8);
            response.setContentLength(bytes.length);
            response.getOutputStream().write(bytes);
            baseRequest.setHandled(true);
        }

        private static String describe(int status, String reason) {
            switch (status) {
                case 431:
                    return "the request headers are too large (http.maxHeaderBytes)";
                case 414:
                    return "the request URI is too long";
                case 408:
                    return "the request did not arrive in time (http.requestTimeout)";
                case 413:
                    return "the request is too large";
                default:
                    return reason == null || reason.isBlank() ? "the request could not be read" : JsonBodies.abbreviate(reason, 200);
            }
        }
    }
}
