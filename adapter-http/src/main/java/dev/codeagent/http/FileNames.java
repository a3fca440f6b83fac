package dev.codeagent.http;

import java.util.Collection;
import java.util.Set;

/**
 * Checks the names of a request's extra files before they reach the domain or the sandbox: a bounded
 * number of files, bounded name length and depth, plain characters only, and no name that is both a
 * file and a directory. Names that fail here would otherwise fail inside the sandbox (a 200 with a
 * sandbox error after retries) or make the domain's pattern match recurse too deep (a 500).
 * Checked without regular expressions, so no name can make the check itself expensive.
 */
final class FileNames {

    static final int MAX_FILES = 1000;
    /** The longest path segment, as most file systems allow (NAME_MAX). */
    static final int MAX_SEGMENT_CHARS = 255;
    static final int MAX_NAME_CHARS = 1024;
    static final int MAX_DEPTH = 16;

    private FileNames() {
    }

    /** What is wrong with the set of names as a whole (count, file-directory clashes), or null. */
    static String problem(Collection<String> names) {
        if (names.size() > MAX_FILES) {
            return "at most " + MAX_FILES + " files, got " + names.size();
        }
        Set<String> all = Set.copyOf(names);
        for (String name : names) {
            String p = problem(name);
            if (p != null) {
                return p;
            }
            for (int slash = name.indexOf('/'); slash >= 0; slash = name.indexOf('/', slash + 1)) {
                String dir = name.substring(0, slash);
                if (all.contains(dir)) {
                    return "'" + JsonBodies.abbreviate(dir, 60) + "' is both a file and the directory of '"
                            + JsonBodies.abbreviate(name, 60) + "'";
                }
            }
        }
        return null;
    }

    /** What is wrong with one name, or null when it is a plain relative path. */
    static String problem(String name) {
        String shown = "file name '" + JsonBodies.abbreviate(printable(name), 60) + "'";
        if (name.isEmpty()) {
            return "a file name is empty";
        }
        if (name.length() > MAX_NAME_CHARS) {
            return shown + " is longer than " + MAX_NAME_CHARS + " characters";
        }
        int depth = 1;
        int segment = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/') {
                if (segment == 0) {
                    return shown + " has an empty path segment or starts with '/'";
                }
                depth++;
                segment = 0;
                continue;
            }
            boolean plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.';
            if (!plain) {
                return shown + " may use only letters, digits, '_', '-', '.' and '/'";
            }
            if (c == '.' && segment == 0) {
                return shown + " has a segment starting with '.' (hidden files and '..' are not allowed)";
            }
            if (++segment > MAX_SEGMENT_CHARS) {
                return shown + " has a segment longer than " + MAX_SEGMENT_CHARS + " characters";
            }
        }
        if (segment == 0) {
            return shown + " ends with '/'";
        }
        if (depth > MAX_DEPTH) {
            return shown + " is more than " + MAX_DEPTH + " directories deep";
        }
        return null;
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), 80));
        for (int i = 0; i < s.length() && b.length() < 80; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7f || Character.isSurrogate(c) ? '?' : c);
        }
        return b.toString();
    }
}
