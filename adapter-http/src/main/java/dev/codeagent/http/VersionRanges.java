package dev.codeagent.http;

import java.util.Optional;
import java.util.regex.Pattern;
import org.semver4j.Semver;

/**
 * npm semver ranges, as Piston matches a request's {@code version} against its runtimes
 * ({@code semver.satisfies}): {@code *}, {@code 3.x}, {@code >=3.8}, {@code ^3.10}, {@code ~3.11},
 * {@code 3.x || 4.x}, {@code <4}, {@code 3.8 - 3.11}. semver4j does the matching; it silently drops
 * what it cannot parse ({@code >=3 || rm -rf} would mean {@code >=3}), so the text is first checked
 * against npm's range grammar here and refused whole when any part of it is not a range.
 */
final class VersionRanges {

    /** A selector longer than this is not a version anyone means. */
    static final int MAX_CHARS = 128;

    private static final String XR = "(?:[xX*]|0|[1-9][0-9]{0,8})";
    private static final String QUALIFIER = "(?:-[0-9A-Za-z.-]{1,32})?(?:\\+[0-9A-Za-z.-]{1,32})?";
    // nested optional groups, no unbounded repetition of groups: the regex cannot recurse deeply
    private static final Pattern PARTIAL = Pattern.compile("v?" + XR + "(?:\\." + XR + "(?:\\." + XR + QUALIFIER + ")?)?");
    private static final Pattern OPERATOR = Pattern.compile("^(>=|<=|>|<|=|~>|~|\\^)");
    private static final Pattern OPERATOR_SPACE = Pattern.compile("(>=|<=|>|<|=|~>|~|\\^)\\s+");

    private VersionRanges() {
    }

    /** Whether {@code version} satisfies {@code range}; a range that is not npm's grammar satisfies nothing. */
    static boolean satisfies(String version, String range) {
        Optional<String> normal = normalize(range);
        Semver v = Semver.coerce(version);
        return normal.isPresent() && v != null && v.satisfies(normal.get());
    }

    /** The range in the form semver4j reads, or empty when it is not an npm range. */
    static Optional<String> normalize(String range) {
        if (range == null || range.length() > MAX_CHARS) {
            return Optional.empty();
        }
        String text = range.trim();
        if (text.isEmpty() || text.equals("latest")) {
            return Optional.of("*");
        }
        StringBuilder out = new StringBuilder();
        // split with a limit of -1 so that "3 ||" keeps its empty alternative, which npm reads as "*"
        for (String alternative : text.split("\\|\\|", -1)) {
            String a = alternative.trim();
            String normal = a.contains(" - ") ? hyphen(a) : comparators(a);
            if (normal == null) {
                return Optional.empty();
            }
            out.append(out.length() == 0 ? "" : " || ").append(normal);
        }
        return Optional.of(out.toString());
    }

    private static String hyphen(String a) {
        String[] ends = a.split(" - ", -1);
        if (ends.length != 2 || !PARTIAL.matcher(ends[0].trim()).matches() || !PARTIAL.matcher(ends[1].trim()).matches()) {
            return null;
        }
        return ends[0].trim() + " - " + ends[1].trim();
    }

    private static String comparators(String a) {
        if (a.isEmpty()) {
            return "*";
        }
        StringBuilder out = new StringBuilder();
        for (String simple : OPERATOR_SPACE.matcher(a).replaceAll("$1").split("\\s+")) {
            var op = OPERATOR.matcher(simple);
            String operator = op.find() ? op.group(1) : "";
            String partial = simple.substring(operator.length());
            if (!PARTIAL.matcher(partial).matches()) {
                return null;
            }
            boolean wildcard = partial.startsWith("x") || partial.startsWith("X") || partial.startsWith("*");
            if (wildcard && !operator.isEmpty()) {
                // "<x" and friends: legal npm, meaningless here, and semver4j reads them differently
                return null;
            }
            out.append(out.length() == 0 ? "" : " ").append(wildcard ? "*" : operator + partial);
        }
        return out.toString();
    }
}
