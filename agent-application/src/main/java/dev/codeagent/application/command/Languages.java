package dev.codeagent.application.command;

import dev.codeagent.domain.execution.Language;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** A language named by a request, resolved against what the sandbox behind a door can run. */
public final class Languages {

    private Languages() {
    }

    /**
     * The language with this id or alias; null with an error on {@code language} listing the supported
     * ones when it is missing, unknown or not supported here.
     */
    public static Language resolve(String id, Set<Language> supported, FieldErrors errors) {
        if (id == null) {
            errors.add("language", "required; supported: " + ids(supported));
            return null;
        }
        Language language = Language.fromId(id).orElse(null);
        if (language == null || !supported.contains(language)) {
            errors.add("language", "'" + LimitField.abbreviate(id) + "' is not supported; supported: " + ids(supported));
            return null;
        }
        return language;
    }

    /** The ids, sorted: {@code bash, javascript, python}. */
    public static String ids(Set<Language> languages) {
        return languages.stream().map(Language::id).collect(Collectors.toCollection(TreeSet::new)).stream()
                .collect(Collectors.joining(", "));
    }
}
