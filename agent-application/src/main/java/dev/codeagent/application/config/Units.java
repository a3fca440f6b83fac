package dev.codeagent.application.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints the human units used in config, flags and HTTP: durations like {@code 500ms},
 * {@code 5s}, {@code 2m}, {@code 1h} (a bare number is milliseconds) and sizes like {@code 256m},
 * {@code 64k}, {@code 1g}, {@code 512MiB} (a bare number is bytes).
 */
public final class Units {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?");

    private Units() {
    }

    /** @throws IllegalArgumentException naming the text and the accepted forms */
    public static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (use e.g. 500ms, 5s, 2m, 1h)");
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        double millis;
        switch (unit) {
            case "s":
                millis = n * 1000;
                break;
            case "m":
                millis = n * 60_000;
                break;
            case "h":
                millis = n * 3_600_000;
                break;
            default:
                millis = n;
        }
        if (millis > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("'" + text + "' is too long a duration");
        }
        return Duration.ofMillis(Math.round(millis));
    }

    /** @throws IllegalArgumentException naming the text and the accepted forms */
    public static long parseBytes(String text) {
        Matcher m = SIZE.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size (use e.g. 65536, 64k, 256m, 1g)");
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "b" : m.group(2);
        long factor;
        switch (unit.charAt(0)) {
            case 'k':
                factor = 1024L;
                break;
            case 'm':
                factor = 1024L * 1024;
                break;
            case 'g':
                factor = 1024L * 1024 * 1024;
                break;
            default:
                factor = 1;
        }
        double bytes = n * factor;
        if (bytes > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("'" + text + "' is too large a size");
        }
        return Math.round(bytes);
    }

    /** The shortest exact form: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}. */
    public static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms != 0 && ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    /** The shortest exact form: {@code 256m}, {@code 64k}, {@code 1g}, or plain bytes. */
    public static String formatBytes(long bytes) {
        long g = 1024L * 1024 * 1024;
        long m = 1024L * 1024;
        if (bytes != 0 && bytes % g == 0) {
            return bytes / g + "g";
        }
        if (bytes != 0 && bytes % m == 0) {
            return bytes / m + "m";
        }
        if (bytes != 0 && bytes % 1024 == 0) {
            return bytes / 1024 + "k";
        }
        return Long.toString(bytes);
    }
}
