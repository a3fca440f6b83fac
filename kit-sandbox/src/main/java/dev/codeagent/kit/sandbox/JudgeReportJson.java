package dev.codeagent.kit.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.execution.JudgeReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the one JSON line {@code judge.py} writes as its verdict, for every tier. Only a line from the judge's
 * own channel may be given here; anything malformed is no report at all (the caller then has none, which can
 * never be {@code ACCEPTED}). The wire form only: the SQL stores keep a report in a stored form of their own.
 */
public final class JudgeReportJson {

    /** Longer than any report judge.py writes (messages are cut at 300 and 1,000 characters, 3 calls, 20 frames). */
    public static final int MAX_LINE = 256 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper();

    private JudgeReportJson() {
    }

    /** The report in {@code line}, or empty when it is not one. */
    public static Optional<JudgeReport> parse(String line) {
        if (line == null || line.isBlank() || line.length() > MAX_LINE) {
            return Optional.empty();
        }
        try {
            return read(JSON.readTree(line));
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    /** The report in {@code n} (the same shape as judge.py's line), or empty when it is not one. */
    private static Optional<JudgeReport> read(JsonNode n) {
        try {
            if (n == null || !n.isObject() || !n.path("outcome").isTextual()) {
                return Optional.empty();
            }
            List<String> calls = new ArrayList<>();
            for (JsonNode c : n.path("calls")) {
                calls.add(c.asText());
            }
            JudgeReport.RaisedError error = null;
            JsonNode e = n.path("error");
            if (e.isObject()) {
                List<JudgeReport.ReportedFrame> frames = new ArrayList<>();
                for (JsonNode f : e.path("frames")) {
                    frames.add(new JudgeReport.ReportedFrame(f.path("file").asText(""), f.path("line").asInt(0),
                            f.path("function").asText(""), f.path("source").asText("")));
                }
                error = new JudgeReport.RaisedError(e.path("type").asText("Exception"), e.path("message").asText(""),
                        frames);
            }
            JsonNode line0 = n.path("testLine");
            return Optional.of(new JudgeReport(JudgeReport.Outcome.fromWire(n.get("outcome").asText()),
                    n.path("message").asText(""), line0.isInt() ? line0.intValue() : null,
                    n.path("testSource").isTextual() ? n.get("testSource").asText() : null, calls, error));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
