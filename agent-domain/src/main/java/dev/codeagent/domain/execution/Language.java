package dev.codeagent.domain.execution;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a program is written in. Each sandbox says which of these it can run. C, C++, Java, Go and Rust are
 * compiled first ({@link LanguageProfile#compiled()}); the others run from their source.
 */
public enum Language {
    PYTHON("python", ".py"),
    JAVASCRIPT("javascript", ".js"),
    BASH("bash", ".sh"),
    C("c", ".c"),
    CPP("cpp", ".cpp"),
    JAVA("java", ".java"),
    GO("go", ".go"),
    RUST("rust", ".rs");

    private final String id;
    private final String extension;

    Language(String id, String extension) {
        this.id = id;
        this.extension = extension;
    }

    /** The lower-case name used in config, on the command line and over HTTP ({@code "python"}). */
    public String id() {
        return id;
    }

    /** The file-name extension of a source file, with its dot ({@code ".py"}). */
    public String extension() {
        return extension;
    }

    /**
     * The language with that id, case-insensitively; also accepts common aliases (py, js, node, sh, python3, c++,
     * gcc, g++, golang, rs).
     */
    public static Optional<Language> fromId(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String n = name.trim().toLowerCase(Locale.ROOT);
        switch (n) {
            case "py":
            case "python3":
                return Optional.of(PYTHON);
            case "js":
            case "node":
            case "nodejs":
                return Optional.of(JAVASCRIPT);
            case "sh":
                return Optional.of(BASH);
            case "gcc":
                return Optional.of(C);
            case "c++":
            case "g++":
            case "cxx":
                return Optional.of(CPP);
            case "golang":
                return Optional.of(GO);
            case "rs":
                return Optional.of(RUST);
            default:
                return Arrays.stream(values()).filter(l -> l.id.equals(n)).findFirst();
        }
    }

    /** The language whose extension a file name ends with ({@code .cc} and {@code .cxx} are C++ too). */
    public static Optional<Language> fromFileName(String fileName) {
        String lower = fileName.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".cc") || lower.endsWith(".cxx")) {
            return Optional.of(CPP);
        }
        return Arrays.stream(values()).filter(l -> lower.endsWith(l.extension)).findFirst();
    }

    /** The ids of all languages, comma-separated, for error messages. */
    public static String knownIds() {
        return Arrays.stream(values()).map(Language::id).collect(Collectors.joining(", "));
    }
}
