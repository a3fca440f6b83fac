package dev.codeagent.domain.session;

import java.util.List;
import java.util.Objects;

/** One output of a cell, in the order the kernel produced them. */
public sealed interface CellOutput {

    /** A text stand-in for a model's feedback (see {@link MimeBundle#standIn()}): never base64. */
    String standIn();

    /**
     * Text the cell wrote to one of its streams.
     *
     * @param name {@code stdout} or {@code stderr}
     */
    record Stream(String name, String text) implements CellOutput {
        public Stream {
            Objects.requireNonNull(text, "text");
            if (!"stdout".equals(name) && !"stderr".equals(name)) {
                throw new IllegalArgumentException("stream name must be stdout or stderr, was " + name);
            }
        }

        @Override
        public String standIn() {
            return text;
        }
    }

    /** Something the cell displayed ({@code display(...)}, a chart shown). */
    record DisplayData(MimeBundle data) implements CellOutput {
        public DisplayData {
            Objects.requireNonNull(data, "data");
        }

        @Override
        public String standIn() {
            return data.standIn();
        }
    }

    /**
     * The value of the cell's last expression.
     *
     * @param executionCount the cell's execution count; at least 1
     */
    record ExecuteResult(int executionCount, MimeBundle data) implements CellOutput {
        public ExecuteResult {
            Objects.requireNonNull(data, "data");
            if (executionCount < 1) {
                throw new IllegalArgumentException("executionCount must be at least 1, was " + executionCount);
            }
        }

        @Override
        public String standIn() {
            return data.standIn();
        }
    }

    /**
     * The exception the cell raised.
     *
     * @param name the exception's class name ({@code ZeroDivisionError})
     * @param value its message
     * @param traceback the formatted traceback lines, as the kernel sent them
     */
    record Error(String name, String value, List<String> traceback) implements CellOutput {
        public Error {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            traceback = List.copyOf(traceback);
            if (name.isBlank()) {
                throw new IllegalArgumentException("error name must not be blank");
            }
        }

        @Override
        public String standIn() {
            return name + ": " + value;
        }
    }
}
