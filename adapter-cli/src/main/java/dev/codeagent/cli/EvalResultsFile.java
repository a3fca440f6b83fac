package dev.codeagent.cli;

import dev.codeagent.application.eval.EvaluationException;
import dev.codeagent.application.eval.ResultLines;
import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * Where {@code eval} keeps one line per judged sample: {@code --out FILE}, else, for given samples, next to them as
 * human-eval does ({@code samples.jsonl} → {@code samples.jsonl_results.jsonl}), so that every failure is written
 * somewhere and an interrupted evaluation leaves what it judged. The reference self-test (no {@code --samples}) keeps
 * none unless asked: it would write into the dataset's directory.
 */
final class EvalResultsFile {

    /** human-eval's suffix for the results of {@code samples.jsonl}. */
    static final String SUFFIX = "_results.jsonl";

    private EvalResultsFile() {
    }

    /** {@code samples.jsonl_results.jsonl} beside {@code samples.jsonl}. */
    static Path besides(Path samples) {
        return samples.resolveSibling(samples.getFileName() + SUFFIX);
    }

    /**
     * Opens the results file.
     *
     * @param out {@code --out}, or null
     * @param samples {@code --samples}, or null
     * @param err where a default file that cannot be written is said to be skipped (one line; the evaluation goes on)
     * @throws UsageException when {@code --out} cannot be written
     */
    static ResultLines open(Path out, Path samples, PrintWriter err) {
        if (out != null) {
            try {
                return ResultLines.open(out);
            } catch (EvaluationException e) {
                throw new UsageException(out + ": cannot write (--out): " + e.getCause().getMessage());
            }
        }
        if (samples == null) {
            return ResultLines.none();
        }
        Path beside = besides(samples);
        try {
            // a name anyone can predict, maybe in /tmp: replaced by a file of ours, never written through
            return ResultLines.replace(beside);
        } catch (EvaluationException e) {
            err.println("codeagent: cannot write the results beside the samples (" + beside + ": "
                    + e.getCause().getMessage() + "); give --out FILE to keep them");
            err.flush();
            return ResultLines.none();
        }
    }
}
