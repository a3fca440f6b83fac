package dev.codeagent.application.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The views of the fixtures, written by a default {@code ObjectMapper}, are the golden files. The doors' tests
 * compare their own output with the same files; this one pins the files to the view records themselves.
 * To regenerate after a deliberate change: {@code -Dview.goldens.write=src/test/resources/dev/codeagent/application/view/golden}
 * (then read the diff: every changed line is a change to what clients parse).
 */
class ViewGoldenTest {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private static Map<String, Object> views() {
        return Map.of(
                Goldens.SOLVED_RUN, RunView.of(ViewFixtures.solvedRun()),
                Goldens.CANCELLED_RUN, RunView.of(ViewFixtures.cancelledRun()),
                Goldens.RUN_SUMMARY, RunSummaryView.of(ViewFixtures.solvedRun()),
                Goldens.EXECUTION_OK, ExecutionView.of(ViewFixtures.okExecution()),
                Goldens.EXECUTION_COMPILE_ERROR, ExecutionView.of(ViewFixtures.compileErrorExecution()));
    }

    @Test
    void theViewsOfTheFixturesAreTheGoldenFiles() throws IOException {
        String writeTo = System.getProperty("view.goldens.write");
        for (Map.Entry<String, Object> v : views().entrySet()) {
            if (writeTo != null) {
                Files.writeString(Path.of(writeTo).resolve(v.getKey()), MAPPER.writeValueAsString(v.getValue()) + "\n");
            }
        }
        for (Map.Entry<String, Object> v : views().entrySet()) {
            Goldens.assertMatches(v.getKey(), MAPPER.valueToTree(v.getValue()));
        }
    }

    @Test
    void theGoldenFilesHoldEveryKindOfFactTheViewsCarry() {
        JsonNode solved = Goldens.read(Goldens.SOLVED_RUN);
        assertThat(solved.get("attempts")).extracting(a -> a.get("verdict").get("kind").asText())
                .containsExactly("RUNTIME_ERROR", "WRONG_ANSWER", "ACCEPTED");
        assertThat(solved.at("/attempts/0/verdict/error/frames/0/codeLine").asInt()).isEqualTo(3);
        assertThat(solved.at("/attempts/1/verdict/difference/expected").asText()).isEqualTo("2");
        assertThat(solved.at("/attempts/1/verdict/difference/actual").asText()).isEqualTo("1");
        assertThat(solved.at("/attempts/2/placement/tier").asText()).isEqualTo("process");
        assertThat(solved.get("owner").asText()).isEqualTo("key:alice");
        JsonNode cancelled = Goldens.read(Goldens.CANCELLED_RUN);
        assertThat(cancelled.at("/attempts/0/verdict/kind").asText()).isEqualTo("CANCELLED");
        assertThat(cancelled.at("/attempts/0/execution").isNull()).isTrue();
        assertThat(cancelled.at("/attempts/0/placement").isNull()).isTrue();
        JsonNode compile = Goldens.read(Goldens.EXECUTION_COMPILE_ERROR);
        assertThat(compile.at("/compile/outcome").asText()).as("the compiler's exit 1 reads as a compile error")
                .isEqualTo("COMPILATION_ERROR");
        assertThat(Goldens.read(Goldens.EXECUTION_OK).get("compile").isNull()).isTrue();
    }

    @Test
    void aRenamedFieldFailsTheComparison() {
        com.fasterxml.jackson.databind.node.ObjectNode drifted = MAPPER.valueToTree(RunView.of(ViewFixtures.solvedRun()));
        com.fasterxml.jackson.databind.node.ObjectNode attempt = (com.fasterxml.jackson.databind.node.ObjectNode)
                drifted.get("attempts").get(0);
        attempt.set("generationMs", attempt.remove("generationTimeMs"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Goldens.assertMatches(Goldens.SOLVED_RUN, drifted))
                .isInstanceOf(AssertionError.class).hasMessageContaining("generationMs");
    }

    @Test
    void normalisingBlanksWhatChangesBetweenRunsAndKeepsTheRest() {
        JsonNode n = Goldens.normalised(Goldens.read(Goldens.SOLVED_RUN));
        assertThat(n.get("id").asText()).isEqualTo("<id>");
        assertThat(n.at("/attempts/0/execution/wallTimeMs").asText()).isEqualTo("<wallTimeMs>");
        assertThat(n.at("/attempts/0/placement/host").asText()).isEqualTo("<host>");
        assertThat(n.get("status").asText()).isEqualTo("SOLVED");
        assertThat(n.get("endedAt").asText()).isEqualTo("<endedAt>");
    }
}
