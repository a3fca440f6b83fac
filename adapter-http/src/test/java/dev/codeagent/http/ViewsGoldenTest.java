package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.view.Goldens;
import dev.codeagent.application.view.ViewFixtures;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import java.io.IOException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The API's answers (as the text a client reads) are the shared golden files of the views, the ones
 * {@code codeagent … --json} is compared with too; {@code links} is the one field only this door adds.
 */
class ViewsGoldenTest {

    private static JsonNode sent(ObjectNode body) throws IOException {
        return Views.MAPPER.readTree(Views.MAPPER.writeValueAsString(body));
    }

    /** The view without this door's own addresses, after checking they point at the run. */
    private static JsonNode unlinked(JsonNode sent, Run run) {
        assertThat(sent.at("/links/self").asText()).isEqualTo("/v1/runs/" + run.id());
        assertThat(sent.at("/links/events").asText()).isEqualTo("/v1/runs/" + run.id() + "/events");
        ((ObjectNode) sent).remove("links");
        return sent;
    }

    @Test
    void getRunAnswersTheRunView() throws IOException {
        Run solved = ViewFixtures.solvedRun();
        Goldens.assertMatches(Goldens.SOLVED_RUN, unlinked(sent(Views.run(solved)), solved));
        Run cancelled = ViewFixtures.cancelledRun();
        Goldens.assertMatches(Goldens.CANCELLED_RUN, unlinked(sent(Views.run(cancelled)), cancelled));
    }

    @Test
    void listingRunsAnswersTheSummaryView() throws IOException {
        Run solved = ViewFixtures.solvedRun();
        Goldens.assertMatches(Goldens.RUN_SUMMARY, unlinked(sent(Views.runSummary(solved)), solved));
    }

    @Test
    void postExecutionsAnswersTheExecutionView() throws IOException {
        Goldens.assertMatches(Goldens.EXECUTION_OK, sent(Views.execution(ViewFixtures.okExecution())));
        Goldens.assertMatches(Goldens.EXECUTION_COMPILE_ERROR, sent(Views.execution(ViewFixtures.compileErrorExecution())));
    }

    @Test
    void eventsCarryTheSameExecutionAndVerdictAsTheRun() throws IOException {
        Run solved = ViewFixtures.solvedRun();
        JsonNode golden = Goldens.read(Goldens.SOLVED_RUN);
        Attempt first = solved.attempts().get(0);
        JsonNode executed = sent(Views.event(new RunEvent.Executed(solved.id(), Instant.EPOCH, 1, first.execution()), 7));
        assertThat(executed.get("execution")).isEqualTo(golden.at("/attempts/0/execution"));
        JsonNode judged = sent(Views.event(new RunEvent.Judged(solved.id(), Instant.EPOCH, solved.attempts().get(1)), 8));
        assertThat(judged.get("verdict")).isEqualTo(golden.at("/attempts/1/verdict"));
        JsonNode started = sent(Views.event(new RunEvent.RunStarted(solved.id(), Instant.EPOCH, solved.task()), 6));
        assertThat(started.get("task")).isEqualTo(golden.get("task"));
    }
}
