package dev.codeagent.domain.solving;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** Where a run stands. Every status but RUNNING is final. */
public enum RunStatus {
    RUNNING,
    /** An attempt was accepted. */
    SOLVED,
    /** The attempt budget was spent without an accepted attempt. */
    FAILED,
    /** The run could not go on (generator refused, sandbox down, process died); see its reason. */
    ERROR,
    /** Someone cancelled it. */
    CANCELLED;

    public boolean isFinal() {
        return this != RUNNING;
    }

    /**
     * The statuses a person typed: a comma list, any case ({@code solved,FAILED}); empty parts are skipped (a form sends
     * {@code SOLVED,}), and none at all, or a null or blank text, is every status (an empty set). Every door that
     * filters by status reads it here, so all say the same of a wrong name.
     *
     * @throws IllegalArgumentException naming the first unknown status (cut at 40 characters, control characters shown
     *     as {@code ?}) and the statuses there are
     */
    public static Set<RunStatus> parseList(String text) {
        if (text == null || text.isBlank()) {
            return Set.of();
        }
        Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
        for (String part : text.split(",", -1)) {
            String name = part.strip();
            if (name.isEmpty()) {
                continue;
            }
            try {
                statuses.add(valueOf(name.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                // shown on a terminal or in a JSON problem: no control character of the typist's gets through
                String cut = name.length() > 40 ? name.substring(0, 40) + "…" : name;
                String shown = cut.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
                throw new IllegalArgumentException("no status '" + shown + "'; use "
                        + Arrays.stream(values()).map(RunStatus::name).collect(Collectors.joining(", "))
                        + ", several separated by commas", e);
            }
        }
        return Collections.unmodifiableSet(statuses);
    }
}
