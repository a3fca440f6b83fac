package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * The console's Evaluations page in a real headless chromium: an evaluation judged on the process sandbox is listed,
 * its page draws the report with the report file's own script (report.js), a failing cell opens its code and message,
 * and a sample whose code, output and message are markup runs nothing (see {@link ConsoleBrowser#assertNothingRan}).
 * Screenshots under target/console-screenshots.
 */
@Tag("slow")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EvaluationBrowserIT {

    TestServer server;
    ConsoleBrowser browser;
    String axe;

    @BeforeAll
    void start() throws Exception {
        ConsoleBrowser.assumeInstalled();
        server = TestServer.builder().start();
        axe = ConsoleBrowser.axe();
        browser = new ConsoleBrowser(ConsoleBrowserIT.SHOTS);
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void nothingRan(org.junit.jupiter.api.TestInfo test) throws Exception {
        if (browser != null) {
            browser.endOfTest(test);
        }
    }

    @Test
    void theEvaluationPageShowsTheReportAndAFailingCellsCodeAsText() throws Exception {
        ObjectNode body = EvaluationsIT.tinyEvaluation();
        // a third sample of the first problem: markup in its code, its output and its error's message
        String quoted = ConsoleBrowserIT.HOSTILE.replace("\\", "\\\\").replace("\"", "\\\"");
        ((ArrayNode) body.get("samples")).addObject().put("task_id", "Tiny/0").put("completion",
                "    # " + ConsoleBrowserIT.HOSTILE + "\n    print(\"" + quoted + "\")\n    raise ValueError(\"" + quoted + "\")\n");
        body.put("subject", "Hostile " + ConsoleBrowserIT.HOSTILE);
        HttpResponse<String> posted = server.post("/v1/evaluations", TestServer.ADMIN_KEY, body.toString());
        assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
        String id = TestServer.json(posted).get("id").asText();
        JsonNode done = EvaluationsIT.awaitDone(server, TestServer.ADMIN_KEY, id);
        assertThat(done.get("status").asText()).as(done.toString()).isEqualTo("DONE");

        signIn();
        browser.driver.findElement(By.cssSelector("#nav a[href='#/evaluations']")).click();
        WebElement row = browser.awaitVisible(By.cssSelector("tr[data-evaluation='" + id + "']"));
        assertThat(row.getText()).contains("DONE", "5 / 5", "41.7%").contains("<script>");
        assertThat(browser.liveMarkup()).as("elements that could run script on the evaluations page").isEmpty();
        assertThat(browser.seriousAccessibilityViolations(axe)).as("axe-core on the evaluations page").isEmpty();
        browser.screenshot("evaluations");
        row.findElement(By.tagName("a")).click();

        // the report's grid: 2 problems, 3 + 2 samples, the failing ones coloured by verdict; pass@1 is (1/3 + 1/2) / 2
        browser.awaitVisible(By.cssSelector("#evaluation-report .ca-grid"));
        List<WebElement> cells = browser.driver.findElements(By.cssSelector("#evaluation-report button.ca-cell"));
        assertThat(cells).hasSize(5);
        assertThat(browser.driver.findElement(By.cssSelector(".ca-tile[data-k='1'] .ca-tile-value")).getText())
                .isEqualTo("41.7%");
        assertThat(browser.driver.findElements(By.cssSelector("#evaluation-report canvas"))).as("the charts").isNotEmpty();
        WebElement wrong = browser.driver.findElement(By.cssSelector("button.ca-cell[data-verdict='WRONG_ANSWER']"));
        wrong.click();
        WebElement code = browser.awaitVisible(By.id("ca-detail-code"));
        assertThat(code.getText()).contains("return x - 1");
        assertThat(browser.driver.findElement(By.id("ca-detail-title")).getText()).contains("Tiny/0");
        assertThat(browser.seriousAccessibilityViolations(axe)).as("axe-core on the evaluation page").isEmpty();
        browser.screenshot("evaluation-failing-cell");

        // the hostile sample: its markup is text in the code and the message, and nothing of it runs
        browser.driver.findElement(By.cssSelector("button.ca-cell[data-problem='0'][data-sample='2']")).click();
        browser.await(Duration.ofSeconds(10), d -> d.findElement(By.id("ca-detail-code")).getText().contains("<svg onload="));
        assertThat(browser.driver.findElement(By.id("ca-detail-message")).getText()).contains("<img src=x onerror=");
        assertThat(browser.driver.findElement(By.cssSelector(".ca-subject")).getText()).contains("<a href=\"javascript:");
        assertThat(browser.liveMarkup()).as("elements that could run script on the evaluation page").isEmpty();
        browser.screenshot("evaluation-hostile-sample");

        // forgetting it: back to the list, without it
        browser.driver.findElement(By.id("forget-evaluation")).click();
        browser.awaitVisible(By.id("evaluations-title"));
        browser.await(Duration.ofSeconds(10), d -> d.findElements(By.cssSelector("tr[data-evaluation='" + id + "']")).isEmpty());
        assertThat(server.get("/v1/evaluations/" + id, TestServer.ADMIN_KEY).statusCode()).isEqualTo(404);
    }

    private void signIn() {
        browser.driver.get(server.base.resolve("/#/sign-in").toString());
        browser.js("sessionStorage.clear()");
        browser.driver.navigate().refresh();
        WebElement input = browser.awaitVisible(By.id("api-key"));
        input.clear();
        input.sendKeys(TestServer.ADMIN_KEY, Keys.ENTER);
        browser.awaitVisible(By.id("runs-title"));
    }
}
