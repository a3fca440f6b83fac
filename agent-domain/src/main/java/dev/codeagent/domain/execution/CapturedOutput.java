package dev.codeagent.domain.execution;

import java.util.Objects;

/**
 * What was kept of one output stream.
 *
 * @param text the kept bytes decoded as UTF-8 (malformed bytes replaced by U+FFFD)
 * @param truncated whether the stream produced more than was kept
 */
public record CapturedOutput(String text, boolean truncated) {

    public static final CapturedOutput EMPTY = new CapturedOutput("", false);

    public CapturedOutput {
        Objects.requireNonNull(text, "text");
    }
}
