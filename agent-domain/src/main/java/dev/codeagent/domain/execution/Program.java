package dev.codeagent.domain.execution;

import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Source code to run: the main source in a language, plus optional extra files placed beside it
 * in the work directory (file name to content).
 *
 * @param language what the source is written in
 * @param source the main source; never contains a NUL character
 * @param files extra files by plain relative name ({@code data.txt}, {@code pkg/util.py}); no {@code ..},
 *     no absolute paths
 * @param mainFile the name the main source runs under, by the same rules, or null for {@code main} plus
 *     the language's extension; a caller that names its files (Piston's {@code files[0]}) keeps the name
 * @param binaryFiles extra files whose bytes are not text, by the same naming rules, each as the standard
 *     base64 of its bytes (RFC 4648, no line breaks); written byte for byte (Piston's base64 and hex files)
 */
public record Program(Language language, String source, Map<String, String> files, String mainFile,
        Map<String, String> binaryFiles) {


    public Program {
        Objects.requireNonNull(language, "language");
        Objects.requireNonNull(source, "source");
        if (source.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("source contains a NUL byte at offset " + source.indexOf('\0'));
        }
        files = Map.copyOf(new TreeMap<>(Objects.requireNonNull(files, "files")));
        mainFile = mainFile == null ? "main" + language.extension() : mainFile;
        if (!plain(mainFile)) {
            throw new IllegalArgumentException("file name '" + mainFile + "' is not a plain relative path");
        }
        for (var e : files.entrySet()) {
            String name = e.getKey();
            if (!plain(name)) {
                throw new IllegalArgumentException("file name '" + name + "' is not a plain relative path");
            }
            if (name.equals(mainFile)) {
                throw new IllegalArgumentException("file name '" + name + "' clashes with the main source");
            }
            Objects.requireNonNull(e.getValue(), "content of " + name);
        }
        binaryFiles = Map.copyOf(new TreeMap<>(Objects.requireNonNull(binaryFiles, "binaryFiles")));
        for (var e : binaryFiles.entrySet()) {
            String name = e.getKey();
            if (!plain(name)) {
                throw new IllegalArgumentException("file name '" + name + "' is not a plain relative path");
            }
            if (name.equals(mainFile) || files.containsKey(name)) {
                throw new IllegalArgumentException("file name '" + name + "' is given twice");
            }
            try {
                Base64.getDecoder().decode(Objects.requireNonNull(e.getValue(), "content of " + name));
            } catch (IllegalArgumentException notBase64) {
                throw new IllegalArgumentException("content of binary file '" + name + "' is not base64: " + notBase64.getMessage());
            }
        }
    }

    public Program(Language language, String source, Map<String, String> files, String mainFile) {
        this(language, source, files, mainFile, Map.of());
    }

    private static boolean plain(String name) {
        return plainRelativePath(name) && !name.startsWith(".") && !name.contains("/.") && !name.contains("..");
    }

    /** Segments of [A-Za-z0-9_.-] joined by single slashes; a loop, not a regex, so a deep path cannot overflow the stack. */
    private static boolean plainRelativePath(String name) {
        if (name.isEmpty() || name.length() > 1024 || name.startsWith("/") || name.endsWith("/")) {
            return false;
        }
        char previous = '/';
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
            if (c == '/' ? previous == '/' : !plain) {
                return false;
            }
            previous = c;
        }
        return true;
    }

    public Program(Language language, String source) {
        this(language, source, Map.of());
    }

    public Program(Language language, String source, Map<String, String> files) {
        this(language, source, files, null);
    }

    /** The name the main source gets in the work directory ({@code main.py} unless the caller named it). */
    public String mainFileName() {
        return mainFile;
    }

    /** Size of the main source plus the extra files: text in UTF-8 bytes, binary files their own bytes. */
    public long sizeBytes() {
        long size = utf8Length(source);
        for (var e : files.entrySet()) {
            size += utf8Length(e.getValue());
        }
        for (String b64 : binaryFiles.values()) {
            size += decodedLength(b64);
        }
        return size;
    }

    private static long decodedLength(String b64) {
        int padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
        return (long) b64.length() / 4 * 3 - padding + (b64.length() % 4 == 0 ? 0 : (b64.length() % 4) - 1);
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
