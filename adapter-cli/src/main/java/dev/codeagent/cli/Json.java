package dev.codeagent.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.view.ExecutionView;
import dev.codeagent.application.view.RunSummaryView;
import dev.codeagent.application.view.RunView;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.solving.Run;
import java.io.UncheckedIOException;

/**
 * The JSON the CLI prints with {@code --json}: the application's views ({@code application.view}), the same
 * fields the HTTP API answers with, so a script reads one shape from either door.
 */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    static String write(Object node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code codeagent exec --json}: an {@link ExecutionView}. */
    static ObjectNode execution(Execution e) {
        return MAPPER.valueToTree(ExecutionView.of(e));
    }

    /** {@code codeagent solve --json} and {@code runs show --json}: a {@link RunView}. */
    static ObjectNode run(Run run) {
        return MAPPER.valueToTree(RunView.of(run));
    }

    /** One element of {@code codeagent runs --json}: a {@link RunSummaryView}. */
    static ObjectNode runSummary(Run run) {
        return MAPPER.valueToTree(RunSummaryView.of(run));
    }
}
