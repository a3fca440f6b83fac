package dev.codeagent.domain.session;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One output in several representations, keyed by MIME type, as Jupyter sends them: text types as text,
 * binary ones ({@code image/png}) as base64. At least one representation.
 *
 * @param data representation by MIME type ({@code type/subtype})
 */
public record MimeBundle(Map<String, String> data) {

    public static final String TEXT_PLAIN = "text/plain";
    public static final String IMAGE_PNG = "image/png";
    private static final Pattern MIME = Pattern.compile("[a-z0-9][a-z0-9.+-]*/[a-zA-Z0-9][a-zA-Z0-9.+_-]*");
    /** How much of a text representation {@link #standIn()} keeps. */
    static final int STAND_IN_CHARS = 200;

    public MimeBundle {
        Objects.requireNonNull(data, "data");
        if (data.isEmpty()) {
            throw new IllegalArgumentException("a MIME bundle needs at least one representation");
        }
        for (Map.Entry<String, String> e : data.entrySet()) {
            if (e.getKey() == null || !MIME.matcher(e.getKey()).matches()) {
                throw new IllegalArgumentException("not a MIME type: " + e.getKey());
            }
            Objects.requireNonNull(e.getValue(), () -> "representation of " + e.getKey());
        }
        data = java.util.Collections.unmodifiableMap(new TreeMap<>(data));
    }

    /** A bundle with one representation. */
    public static MimeBundle of(String mimeType, String value) {
        return new MimeBundle(Map.of(mimeType, value));
    }

    /**
     * A short text stand-in for what a model is told: the plain text (shortened) when there is one, else the
     * MIME types and sizes. Never the base64 of an image, which would flood a model's context for nothing.
     */
    public String standIn() {
        StringBuilder s = new StringBuilder();
        for (Map.Entry<String, String> e : data.entrySet()) {
            if (!e.getKey().equals(TEXT_PLAIN)) {
                s.append(s.length() == 0 ? "[" : ", ").append(e.getKey()).append(", ").append(e.getValue().length())
                        .append(" chars");
            }
        }
        if (s.length() > 0) {
            s.append(']');
        }
        String text = data.get(TEXT_PLAIN);
        if (text != null) {
            String shortText = text.length() > STAND_IN_CHARS ? text.substring(0, STAND_IN_CHARS) + "…" : text;
            return s.length() == 0 ? shortText : shortText + " " + s;
        }
        return s.toString();
    }
}
