package dev.codeagent.domain.execution;

import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** A program's language is not one the sandbox can run. */
public final class UnsupportedLanguageException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final Language language;
    private final Set<Language> supported;

    public UnsupportedLanguageException(Language language, String tier, Set<Language> supported) {
        super("the " + tier + " sandbox cannot run " + language.id() + " here; it runs: "
                + new TreeSet<>(supported).stream().map(Language::id).collect(Collectors.joining(", ")));
        this.language = language;
        this.supported = Set.copyOf(supported);
    }

    public Language language() {
        return language;
    }

    public Set<Language> supported() {
        return supported;
    }
}
