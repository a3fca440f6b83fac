package dev.codeagent.domain.execution;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Source code to run: the main source in a language, plus optional extra files placed beside it
 * in the work directory (file name to content).
 *
 * @param language what the source is written in
 * @param source the main source; never contains a NUL character
 * @param files extra files by plain relative name ({@code data.txt}, {@code pkg/util.py}); no {@code ..},
 *     no absolute paths
 */
public record Program(Language language, String source, Map<String, String> files) {

    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*");

    public Program {
        Objects.requireNonNull(language, "language");
        Objects.requireNonNull(source, "source");
        if (source.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("source contains a NUL byte at offset " + source.indexOf('\0'));
        }
        files = Map.copyOf(new TreeMap<>(Objects.requireNonNull(files, "files")));
        for (var e : files.entrySet()) {
            String name = e.getKey();
            if (!SAFE_NAME.matcher(name).matches() || name.startsWith(".") || name.contains("/.") || name.contains("..")) {
                throw new IllegalArgumentException("file name '" + name + "' is not a plain relative path");
            }
            if (name.equals(mainFileName(language))) {
                throw new IllegalArgumentException("file name '" + name + "' clashes with the main source");
            }
            Objects.requireNonNull(e.getValue(), "content of " + name);
        }
    }

    public Program(Language language, String source) {
        this(language, source, Map.of());
    }

    /** The name the main source gets in the work directory ({@code main.py}). */
    public String mainFileName() {
        return mainFileName(language);
    }

    private static String mainFileName(Language language) {
        return "main" + language.extension();
    }

    /** Size of the main source plus the extra files, in UTF-8 bytes. */
    public long sizeBytes() {
        long size = utf8Length(source);
        for (var e : files.entrySet()) {
            size += utf8Length(e.getValue());
        }
        return size;
    }

    private static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
