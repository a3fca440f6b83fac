package dev.codeagent.application.command;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The errors of one request, collected so that the user hears of every wrong field at once. */
public final class FieldErrors {

    private final List<FieldError> errors = new ArrayList<>();

    public void add(String field, String message) {
        errors.add(new FieldError(field, message));
    }

    public boolean isEmpty() {
        return errors.isEmpty();
    }

    /** In the order they were found: the fields in the order a request lists them. */
    public List<FieldError> list() {
        return List.copyOf(errors);
    }

    /** The first error as one line, with how many more there are: what a command line has room for. */
    public String firstLine() {
        return firstLine(FieldError::describe);
    }

    /** {@link #firstLine()} with the first error worded by {@code render}. */
    public String firstLine(Function<FieldError, String> render) {
        if (errors.isEmpty()) {
            return "";
        }
        String first = render.apply(errors.get(0));
        return errors.size() == 1 ? first : first + " (and " + (errors.size() - 1) + " more)";
    }

    @Override
    public String toString() {
        return errors.toString();
    }
}
