package dev.codeagent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.application.view.Goldens;
import dev.codeagent.application.view.ViewFixtures;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * What {@code --json} prints (the text, read back as a script would) is the shared golden file of each view: the
 * HTTP door's test compares its answers with the same files, so the two doors cannot drift apart.
 */
class JsonGoldenTest {

    private static JsonNode printed(com.fasterxml.jackson.databind.node.ObjectNode node) throws IOException {
        return Json.MAPPER.readTree(Json.write(node));
    }

    @Test
    void solveAndRunsShowPrintTheRunView() throws IOException {
        Goldens.assertMatches(Goldens.SOLVED_RUN, printed(Json.run(ViewFixtures.solvedRun())));
        Goldens.assertMatches(Goldens.CANCELLED_RUN, printed(Json.run(ViewFixtures.cancelledRun())));
    }

    @Test
    void runsPrintsTheSummaryView() throws IOException {
        Goldens.assertMatches(Goldens.RUN_SUMMARY, printed(Json.runSummary(ViewFixtures.solvedRun())));
    }

    @Test
    void execPrintsTheExecutionView() throws IOException {
        Goldens.assertMatches(Goldens.EXECUTION_OK, printed(Json.execution(ViewFixtures.okExecution())));
        Goldens.assertMatches(Goldens.EXECUTION_COMPILE_ERROR,
                printed(Json.execution(ViewFixtures.compileErrorExecution())));
    }
}
