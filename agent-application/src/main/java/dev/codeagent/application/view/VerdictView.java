package dev.codeagent.application.view;

import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Frame;
import dev.codeagent.domain.solving.OutputDifference;
import dev.codeagent.domain.solving.Verdict;
import java.util.List;

/**
 * The judge's decision on an attempt: an object, not a bare kind, so the error and the output difference sit with it.
 *
 * @param kind ACCEPTED, WRONG_ANSWER, … CANCELLED ({@link Verdict.Kind})
 * @param message one line saying why; empty for ACCEPTED
 * @param error the parsed error where the program raised one, else null
 * @param difference the first output difference of a WRONG_ANSWER against an expected output, else null
 */
public record VerdictView(String kind, String message, ErrorView error, DifferenceView difference) {

    public static VerdictView of(Verdict v) {
        return new VerdictView(v.kind().name(), v.message(), ErrorView.of(v.error()), DifferenceView.of(v.difference()));
    }

    /** An error the program raised, located in the model's code where it could be. */
    public record ErrorView(String type, String message, Integer line, String sourceLine, String summary,
            List<FrameView> frames) {

        public ErrorView {
            frames = List.copyOf(frames);
        }

        static ErrorView of(ErrorReport e) {
            return e == null ? null : new ErrorView(e.type(), e.message(), e.line(), e.sourceLine(), e.summary(),
                    e.frames().stream().map(FrameView::of).toList());
        }
    }

    /** One frame of a traceback; {@code codeLine} is its line in the model's code, null when it is not there. */
    public record FrameView(String file, int line, String function, String sourceLine, Integer codeLine) {

        static FrameView of(Frame f) {
            return new FrameView(f.file(), f.line(), f.function(), f.sourceLine(), f.codeLine());
        }
    }

    /** Where the output first differs from the expected output. */
    public record DifferenceView(int line, String expected, String actual, String summary) {

        static DifferenceView of(OutputDifference d) {
            return d == null ? null : new DifferenceView(d.line(), d.expected(), d.actual(), d.summary());
        }
    }
}
