package dev.codeagent.cli.eval;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.eval.EvaluationDetails;
import dev.codeagent.application.eval.EvaluationException;
import dev.codeagent.application.host.ReplacedFile;
import dev.codeagent.application.view.EvaluationReportView;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code codeagent eval --report FILE}: the evaluation as one HTML page that opens from disk with no network. The
 * page's JSON is {@link EvaluationReportView} (the console shows the same JSON with the same script); this class
 * inlines it, {@code report.js}, {@code report.css} and ECharts into {@code report.html} from console-web.
 *
 * <p>Safe by construction: the data goes in a {@code application/json} script element with every {@code <}, {@code >}
 * and {@code &} escaped, so no string in it (a sample's {@code </script>}) can end the element; the script renders
 * every string as text; and the page's Content Security Policy runs only the two inlined scripts, by their hashes.
 */
public final class HtmlReport {

    private static final String PAGES = "dev/codeagent/console/report/";
    /** The WebJar's path; its version is console-web's echarts dependency. */
    static final String ECHARTS = "META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern SLOT = Pattern.compile("\\{\\{([A-Z]+)}}");
    /** What would end an inlined script or style element early, or start an HTML comment inside a script. */
    private static final Pattern ENDS_ELEMENT = Pattern.compile("(?i)</(script|style)|<!--");

    private HtmlReport() {
    }

    /**
     * Refuses, before a long evaluation starts, a report that could not be written at its end: a name that is a
     * directory, a directory that is missing or not writable.
     *
     * @return the target
     * @throws EvaluationException naming the path and what to do
     */
    public static Path checkWritable(Path target) {
        Path abs = target.toAbsolutePath();
        Path dir = abs.getParent();
        if (Files.isDirectory(abs)) {
            throw new EvaluationException("--report " + target + ": is a directory (give a file name, e.g. report.html)");
        }
        if (dir == null || !Files.isDirectory(dir)) {
            throw new EvaluationException("--report " + target + ": no such directory " + dir + " (make it first)");
        }
        if (!Files.isWritable(dir)) {
            throw new EvaluationException("--report " + target + ": cannot write in " + dir);
        }
        return target;
    }

    /**
     * Writes the report whole or not at all: into a file of ours beside the target (made with the umask's mode: a
     * report is a document to share), then renamed over it.
     *
     * @return the target
     * @throws EvaluationException naming the path when it cannot be written
     */
    public static Path write(Path target, EvaluationDetails details) {
        String html = html(json(details, Instant.now()));
        try {
            // a report is for reading: 0644, as a plain write would have made it
            return ReplacedFile.write(target, html.getBytes(StandardCharsets.UTF_8),
                    PosixFilePermissions.fromString("rw-r--r--"));
        } catch (IOException e) {
            throw new EvaluationException(target + ": cannot write the report (--report): " + reason(e), e);
        }
    }

    private static String reason(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such directory " + Path.of(((java.nio.file.NoSuchFileException) e).getFile()).getParent();
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** The report's JSON: the application's view, and when this file was written. */
    static ObjectNode json(EvaluationDetails details, Instant now) {
        ObjectNode o = MAPPER.valueToTree(EvaluationReportView.of(details));
        o.put("createdAt", now.truncatedTo(ChronoUnit.SECONDS).toString());
        return o;
    }

    /** The page: report.html with everything inlined and a policy that allows exactly what it inlines. */
    static String html(ObjectNode json) {
        String echarts = resource(ECHARTS);
        String script = resource(PAGES + "report.js");
        String style = resource(PAGES + "report.css");
        String data = scriptSafe(json);
        for (Map.Entry<String, String> inlined : Map.of("echarts.min.js", echarts, "report.js", script, "report.css", style)
                .entrySet()) {
            if (ENDS_ELEMENT.matcher(inlined.getValue()).find()) {
                // a defect of this build's files, not of the user's data: the data is escaped
                throw new IllegalStateException(inlined.getKey() + " cannot be inlined: it contains </script, </style or <!--");
            }
        }
        String csp = "default-src 'none'; script-src " + hash(echarts) + " " + hash(script) + "; style-src " + hash(style)
                + "; img-src data:; base-uri 'none'; form-action 'none'";
        String title = "Evaluation report: " + json.path("subject").asText();
        Map<String, String> slots = Map.of("CSP", csp, "TITLE", escapeHtml(title), "STYLE", style, "DATA", data,
                "ECHARTS", echarts, "SCRIPT", script);
        // one pass: what is inserted is never scanned for slots again
        Matcher m = SLOT.matcher(resource(PAGES + "report.html"));
        StringBuilder page = new StringBuilder(echarts.length() + data.length() + 64 * 1024);
        while (m.find()) {
            String value = slots.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException("report.html: unknown slot " + m.group());
            }
            m.appendReplacement(page, Matcher.quoteReplacement(value));
        }
        m.appendTail(page);
        return page.toString();
    }

    /**
     * JSON that can sit inside a script element: {@code <}, {@code >} and {@code &} occur in JSON only inside strings,
     * where their escapes mean the same to {@code JSON.parse}; without them no {@code </script>} or {@code <!--} of a
     * sample can reach the HTML parser.
     */
    static String scriptSafe(ObjectNode json) {
        try {
            return MAPPER.writeValueAsString(json).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026");
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The CSP source of an inlined element's exact text. */
    static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return "'sha256-" + Base64.getEncoder().encodeToString(digest) + "'";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    private static String escapeHtml(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not on the classpath (console-web is part of the CLI)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
