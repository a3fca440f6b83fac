package dev.codeagent.application.submit;

import dev.codeagent.application.eval.ProblemFormat;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * An evaluation a door was sent: problems and samples as the CLI's {@code eval} reads them from its two files, each line
 * an object here (HumanEval, MBPP or IO problems; samples {@code {"task_id", "completion"}}, any number per problem).
 * The server judges the samples; it does not generate them.
 *
 * @param subject what is evaluated, in the caller's words; null or blank: said from the counts
 * @param format the problems' format, or null to tell it from their fields
 * @param problems the problem objects
 * @param samples the sample objects
 */
public record EvaluationRequest(String subject, ProblemFormat format, List<JsonNode> problems, List<JsonNode> samples) {

    public EvaluationRequest {
        problems = List.copyOf(Objects.requireNonNull(problems, "problems"));
        samples = List.copyOf(Objects.requireNonNull(samples, "samples"));
    }
}
