package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.store.sqlite.SqliteRunLog;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The web console in a real browser (Debian's chromium, headless, through Selenium) against a real server composed as
 * {@code codeagent serve} composes it (the process tier, a SQLite store holding 10,000 runs), on a real socket. The
 * model is a generator that answers by the task's words: wrong on attempt 1 and right on attempt 2, slow, or hostile.
 *
 * <p>Every test ends by checking that nothing ran that should not have ({@link ConsoleBrowser#assertNothingRan}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserIT {

    static final String OTHER_KEY = "other-tenant-test-key-1357924680";
    static final int STORED_RUNS = 10_000;
    /** Script, handlers, javascript: links, SVG script: each would set the flag (or break the CSP) if it ever ran. */
    static final String HOSTILE = "<script>window." + ConsoleBrowser.FLAG + "=1</script>"
            + "<img src=x onerror=\"window." + ConsoleBrowser.FLAG + "=2\">"
            + "<a href=\"javascript:window." + ConsoleBrowser.FLAG + "=3\" id=hostile-link>click</a>"
            + "<svg onload=\"window." + ConsoleBrowser.FLAG + "=4\"><script>window." + ConsoleBrowser.FLAG + "=5</script></svg>"
            + "<iframe srcdoc=\"<script>parent." + ConsoleBrowser.FLAG + "=6</script>\"></iframe>";
    static final Path SHOTS = Path.of("target", "console-screenshots");

    @TempDir
    static Path dir;
    TestServer server;
    ConsoleBrowser browser;
    String axe;
    String solvedRun;

    @BeforeAll
    void start() throws Exception {
        boolean here = Files.isExecutable(ConsoleBrowser.CHROMIUM) && Files.isExecutable(ConsoleBrowser.CHROMEDRIVER);
        if (System.getenv("CI") != null) {
            assertThat(here).as("CI installs chromium and chromium-driver (.ci/run)").isTrue();
        }
        assumeTrue(here, "chromium and chromium-driver are not installed");
        Path store = dir.resolve("runs.db");
        long seeded = seed(store);
        server = TestServer.builder()
                .set("store.kind", "sqlite")
                .set("store.sqlite.path", store.toString())
                .set("http.auth.keys", "admin:" + ApiKeys.sha256Hex(TestServer.ADMIN_KEY) + ",other:"
                        + ApiKeys.sha256Hex(OTHER_KEY))
                .generator(ConsoleBrowserIT::reply)
                .start();
        System.out.printf("console test: %d runs written to the store in %d ms%n", STORED_RUNS, seeded);
        axe = Files.readString(NodeTools.install("axe", "axe", "axe-core/axe.min.js")
                .resolve("node_modules/axe-core/axe.min.js"));
        browser = new ConsoleBrowser(SHOTS);
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
    void nothingRan(org.junit.jupiter.api.TestInfo test) throws IOException {
        if (browser != null) {
            // what the page was at the end, for whoever reads a failure
            browser.dump(test.getTestMethod().map(java.lang.reflect.Method::getName).orElse("test"));
            browser.assertNothingRan();
        }
    }

    /** The model: it answers by what the task says. */
    static String reply(GenerationRequest request) {
        String prompt = request.task().prompt();
        int attempt = request.attemptNumber();
        if (prompt.startsWith("Print the answer")) {
            String index = attempt == 1 ? "2" : "1";
            return "Here it is:\n```python\ndef answer():\n    values = [6, 7]\n    return values[0] * values[" + index
                    + "]\n\n\nprint(answer())\n```\n";
        }
        if (prompt.startsWith("Slowly")) {
            sleep(2500);
            return "```python\nimport time\ntime.sleep(1)\nprint(" + (attempt == 1 ? "41" : "42") + ")\n```";
        }
        if (prompt.startsWith("Never ending")) {
            return "```python\nimport time\ntime.sleep(60)\n```";
        }
        if (prompt.startsWith("Hostile")) {
            // the payloads in the reply, the code (a comment), stdout and stderr
            String quoted = HOSTILE.replace("\\", "\\\\").replace("\"", "\\\"");
            return HOSTILE + "\n```python\n# " + HOSTILE + "\nimport sys\nprint(\"" + quoted + "\")\n"
                    + "print(\"" + quoted + "\", file=sys.stderr)\nraise ValueError(\"" + quoted + "\")\n```";
        }
        return "```python\nprint('hello')\n```";
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * 10,000 ended runs of the admin key: one written by the store itself, then copied in one statement (its columns
     * read from the table, so the copies are whatever the store writes). @return how long it took, in ms
     */
    static long seed(Path store) throws Exception {
        long t0 = System.nanoTime();
        try (SqliteRunLog log = SqliteRunLog.open(store)) {
            var task = new dev.codeagent.domain.solving.Task("Stored run, one of many", dev.codeagent.domain.execution.Language.PYTHON,
                    null, "1\n", null, dev.codeagent.domain.execution.ResourceLimits.defaults(), 3);
            java.time.Instant at = java.time.Instant.parse("2026-01-01T00:00:00Z");
            log.started(dev.codeagent.domain.solving.Run.started("seed", task, at, "key:admin"));
            log.ended("seed", dev.codeagent.domain.solving.RunStatus.FAILED, at.plusSeconds(3), null);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + store); Statement s = c.createStatement()) {
            List<String> columns = new ArrayList<>();
            try (ResultSet r = s.executeQuery("PRAGMA table_info(runs)")) {
                while (r.next()) {
                    columns.add(r.getString("name"));
                }
            }
            String names = String.join(", ", columns);
            String values = String.join(", ", columns.stream().map(column -> switch (column) {
                case "id" -> "printf('stored-%05d', n.i)";
                case "started_at" -> "strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+' || n.i || ' seconds')";
                case "ended_at" -> "strftime('%Y-%m-%dT%H:%M:%SZ', ended_at, '+' || n.i || ' seconds')";
                // CANCELLED is rare (every 250th run): the status filter must fill a page from the whole store
                case "status" -> "CASE WHEN n.i % 250 = 0 THEN 'CANCELLED'"
                        + " ELSE CASE n.i % 3 WHEN 0 THEN 'SOLVED' WHEN 1 THEN 'FAILED' ELSE 'ERROR' END END";
                default -> column;
            }).toList());
            s.executeUpdate("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " + (STORED_RUNS - 1)
                    + ") INSERT INTO runs (" + names + ") SELECT " + values + " FROM runs, n WHERE runs.id = 'seed'");
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM runs")) {
                assertThat(r.next() && r.getInt(1) == STORED_RUNS).as("runs in the store").isTrue();
            }
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    // ---------------------------------------------------------------- helpers

    String startRun(String key, String json) {
        HttpResponse<String> r = server.post("/v1/runs", key, json);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return TestServer.json(r).get("id").asText();
    }

    JsonNode awaitEnd(String id) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            JsonNode run = TestServer.json(server.get("/v1/runs/" + id, TestServer.ADMIN_KEY));
            if (!run.get("status").asText().equals("RUNNING")) {
                return run;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("run " + id + " did not end");
    }

    void open(String fragment) {
        browser.driver.get(server.base.resolve("/" + fragment).toString());
    }

    void signIn(String key) {
        open("#/sign-in");
        browser.js("sessionStorage.clear()");
        browser.driver.navigate().refresh();
        WebElement input = browser.awaitVisible(By.id("api-key"));
        input.clear();
        input.sendKeys(key, Keys.ENTER);
        browser.awaitVisible(By.id("runs-title"));
    }

    void assertAccessible(String page) {
        assertThat(browser.seriousAccessibilityViolations(axe)).as("axe-core on the " + page + " page").isEmpty();
    }

    String text(By by) {
        return browser.awaitVisible(by).getText();
    }

    // ---------------------------------------------------------------- the tests

    @Test
    @Order(1)
    void theServerHandsOutTheConsoleWithAStrictPolicyAndNoCors() {
        HttpResponse<String> page = server.send(server.request("/").header("Origin", "https://evil.example").GET().build());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/html"));
        String csp = page.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(csp).contains("default-src 'self'", "script-src 'self'", "frame-ancestors 'none'")
                .doesNotContain("unsafe-inline", "unsafe-eval");
        assertThat(page.body()).contains("<script type=\"module\" src=\"/console/app.js\"></script>")
                .doesNotContain("<script>").doesNotContain("http://").doesNotContain("https://");
        assertThat(page.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        HttpResponse<String> api = server.send(server.request("/v1/runs").header("Origin", "https://evil.example")
                .header("Authorization", "Bearer " + TestServer.ADMIN_KEY).GET().build());
        assertThat(api.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        HttpResponse<String> preflight = server.send(server.request("/v1/runs").header("Origin", "https://evil.example")
                .header("Access-Control-Request-Method", "POST").method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build());
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        assertThat(server.get("/console/app.js", null).headers().firstValue("Content-Type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("text/javascript"));
        assertThat(server.get("/console/vendor/echarts.min.js", null).statusCode()).isEqualTo(200);
        assertThat(server.get("/console/../openapi.json", null).statusCode()).isEqualTo(404);
        assertThat(server.get("/console/nothing-here.js", null).statusCode()).isEqualTo(404);
    }

    @Test
    @Order(2)
    void aWrongKeyIsRefusedAndTheRightOneSignsIn() throws IOException {
        open("");
        WebElement input = browser.awaitVisible(By.id("api-key"));
        assertAccessible("sign-in");
        browser.screenshot("sign-in");
        input.sendKeys("not-a-key", Keys.ENTER);
        assertThat(text(By.cssSelector("#sign-in-status .problem"))).contains("not valid");
        assertThat(browser.js("return sessionStorage.getItem('codeagent.apiKey')")).isNull();
        signIn(TestServer.ADMIN_KEY);
        assertThat(browser.js("return sessionStorage.getItem('codeagent.apiKey')")).isEqualTo(TestServer.ADMIN_KEY);
        assertThat(browser.js("return localStorage.length")).isEqualTo(0L);
    }

    @Test
    @Order(3)
    void aRunSolvedOnAttemptTwoShowsTheDiffAndTheErrorLine() throws Exception {
        solvedRun = startRun(TestServer.ADMIN_KEY, "{\"prompt\":\"Print the answer to everything\",\"expectedOutput\":\"42\\n\","
                + "\"maxAttempts\":3}");
        assertThat(awaitEnd(solvedRun).get("status").asText()).isEqualTo("SOLVED");
        signIn(TestServer.ADMIN_KEY);
        WebElement link = browser.awaitVisible(By.cssSelector("tr[data-run='" + solvedRun + "'] a"));
        assertThat(browser.driver.findElement(By.cssSelector("tr[data-run='" + solvedRun + "']")).getText())
                .contains("SOLVED", "Print the answer to everything", "python", "2 / 3", "process on");
        assertAccessible("runs");
        browser.screenshot("runs");
        link.click();
        browser.awaitVisible(By.id("attempt-2"));
        assertThat(text(By.cssSelector("#run-head .run-status"))).contains("SOLVED");
        assertThat(text(By.cssSelector("#attempt-1 h3"))).contains("RUNTIME_ERROR");
        assertThat(text(By.cssSelector("#attempt-2 h3"))).contains("ACCEPTED");
        WebElement errorLine = browser.driver.findElement(By.cssSelector("#attempt-1 .error-line"));
        assertThat(errorLine.getAttribute("data-line")).isEqualTo("3");
        assertThat(errorLine.getText()).contains("return values[0] * values[2]");
        assertThat(text(By.cssSelector("#attempt-1 .error-summary"))).contains("IndexError");
        assertThat(browser.driver.findElements(By.cssSelector("#attempt-2 .error-line"))).isEmpty();
        assertThat(browser.driver.findElements(By.cssSelector("#attempt-1 .diff"))).isEmpty();
        assertThat(browser.driver.findElements(By.cssSelector("#attempt-2 .diff-del")).stream().map(WebElement::getText))
                .hasSize(1).allSatisfy(t -> assertThat(t).contains("return values[0] * values[2]"));
        assertThat(browser.driver.findElements(By.cssSelector("#attempt-2 .diff-add")).stream().map(WebElement::getText))
                .hasSize(1).allSatisfy(t -> assertThat(t).contains("return values[0] * values[1]"));
        assertThat(text(By.cssSelector("#attempt-1 .feedback"))).contains("IndexError");
        assertThat(text(By.cssSelector("#attempt-1 .stream-stderr"))).contains("IndexError: list index out of range");
        assertThat(text(By.cssSelector("#attempt-2 .stream-stdout"))).isEqualTo("42");
        assertThat(text(By.cssSelector("#attempt-2 dl.facts"))).contains("Wall time", "process");
        assertAccessible("run");
        browser.screenshot("run");
        // both attempts in one picture: a taller window, scrolled to them
        browser.driver.manage().window().setSize(new org.openqa.selenium.Dimension(1400, 2000));
        browser.js("document.getElementById('attempts-title').scrollIntoView()");
        browser.screenshot("run-attempts");
        browser.driver.manage().window().setSize(new org.openqa.selenium.Dimension(1400, 1000));
    }

    @Test
    @Order(4)
    void aLiveRunUpdatesUntilItEnds() throws Exception {
        String id = startRun(TestServer.ADMIN_KEY, "{\"prompt\":\"Slowly print 42\",\"expectedOutput\":\"42\\n\",\"maxAttempts\":3}");
        open("#/runs/" + id);
        assertThat(text(By.cssSelector("#run-head .run-status"))).contains("RUNNING");
        browser.awaitVisible(By.id("cancel-run"));
        // the code arrives over the event stream before the attempt is judged
        browser.await(Duration.ofSeconds(30), d -> d.findElement(By.id("run-live")).getText().contains("time.sleep(1)"));
        browser.screenshot("run-live");
        browser.await(Duration.ofSeconds(60), d -> d.findElement(By.cssSelector("#run-head .run-status")).getText()
                .contains("SOLVED"));
        assertThat(browser.driver.findElements(By.cssSelector(".attempt[id^='attempt-']"))).hasSize(2);
        assertThat(text(By.id("run-live"))).contains("SOLVED");
        assertThat(browser.driver.findElements(By.id("cancel-run"))).isEmpty();
    }

    @Test
    @Order(5)
    void aRunningRunCanBeCancelled() throws Exception {
        String id = startRun(TestServer.ADMIN_KEY, "{\"prompt\":\"Never ending loop\",\"expectedOutput\":\"1\\n\","
                + "\"limits\":{\"timeoutMs\":50000},\"maxAttempts\":1}");
        open("#/runs/" + id);
        browser.await(Duration.ofSeconds(30), d -> d.findElement(By.id("run-live")).getText().contains("time.sleep(60)"));
        browser.awaitVisible(By.id("cancel-run")).click();
        browser.await(Duration.ofSeconds(30), d -> d.findElement(By.cssSelector("#run-head .run-status")).getText()
                .contains("CANCELLED"));
        assertThat(TestServer.json(server.get("/v1/runs/" + id, TestServer.ADMIN_KEY)).get("status").asText())
                .isEqualTo("CANCELLED");
    }

    @Test
    @Order(6)
    void thePlaygroundRunsCodeAndShowsWhatHappened() throws Exception {
        open("#/playground");
        WebElement code = browser.awaitVisible(By.id("pg-code"));
        browser.await(Duration.ofSeconds(10), d -> d.findElements(By.cssSelector("#pg-language option")).size() > 1);
        code.clear();
        code.sendKeys("import sys\nprint('sum', sum(int(x) for x in sys.stdin.read().split()))\nsys.exit(3)\n");
        browser.driver.findElement(By.id("pg-stdin")).sendKeys("1 2 3 4");
        browser.driver.findElement(By.id("pg-run")).click();
        browser.await(Duration.ofSeconds(30), d -> d.findElement(By.id("pg-result")).getText().contains("RUNTIME_ERROR"));
        String result = text(By.id("pg-result"));
        assertThat(result).contains("sum 10", "Exit code", "3", "isolation in force");
        assertThat(result).contains(TestServer.json(server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"code\":\"print(1)\"}")).get("isolation").get(0).asText());
        assertAccessible("playground");
        browser.screenshot("playground");
        // a compiled language shows its compile stage
        new Select(browser.driver.findElement(By.id("pg-language"))).selectByValue("c");
        code.clear();
        code.sendKeys("#include <stdio.h>\nint main(void) { printf(\"from C\\n\"); return 0; }\n");
        browser.driver.findElement(By.id("pg-run")).click();
        browser.await(Duration.ofSeconds(60), d -> d.findElements(By.cssSelector("#pg-result .stage")).size() == 2);
        assertThat(text(By.cssSelector("#pg-result .stage[aria-label='Compile stage']"))).contains("OK");
        assertThat(text(By.cssSelector("#pg-result .stage[aria-label='Run stage']"))).contains("from C");
        browser.screenshot("playground-compiled");
    }

    @Test
    @Order(7)
    void aSessionRunsTwoCellsWithAPlotAndDownloadsTheNotebook() throws Exception {
        open("#/sessions");
        browser.awaitVisible(By.id("open-session")).click();
        WebElement first = browser.awaitVisible(By.id("cell-1"));
        first.sendKeys("import matplotlib\nimport matplotlib.pyplot as plt\nxs = list(range(10))\nprint('points', len(xs))\n");
        browser.driver.findElement(By.cssSelector("form[data-cell='1'] .run-cell")).click();
        browser.await(Duration.ofSeconds(90), d -> d.findElement(By.cssSelector("form[data-cell='1'] .cell-outputs"))
                .getText().contains("points 10"));
        browser.driver.findElement(By.id("add-cell")).click();
        WebElement second = browser.awaitVisible(By.id("cell-2"));
        second.sendKeys("plt.plot(xs, [x * x for x in xs])\nplt.title('squares')\nplt.show()\n");
        browser.driver.findElement(By.cssSelector("form[data-cell='2'] .run-cell")).click();
        WebElement image = browser.await(Duration.ofSeconds(90), d -> {
            var found = d.findElements(By.cssSelector("form[data-cell='2'] .cell-outputs img"));
            return found.isEmpty() ? null : found.get(0);
        });
        browser.await(Duration.ofSeconds(10), d -> (Boolean) browser.js("return arguments[0].complete && arguments[0].naturalWidth > 100", image));
        assertThat(image.getAttribute("src")).startsWith("data:image/png;base64,");
        assertThat(browser.driver.findElement(By.cssSelector("form[data-cell='2'] .cell-status")).getText()).contains("OK");
        assertAccessible("session");
        browser.screenshot("session");
        // the notebook as the API gives it (the download button asks for the same path with the key in the header)
        String notebook = (String) ((org.openqa.selenium.JavascriptExecutor) browser.driver).executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "import('/console/api.js').then(m => { const original = URL.createObjectURL;"
                        + " URL.createObjectURL = b => { b.text().then(done); return original(b); };"
                        + " document.getElementById('download-notebook').click(); });");
        JsonNode ipynb = Views.MAPPER.readTree(notebook);
        assertThat(ipynb.get("nbformat").asInt()).isEqualTo(4);
        assertThat(ipynb.get("cells")).hasSize(2);
    }

    @Test
    @Order(8)
    void hostileOutputIsShownAsTextAndRunsNothing() throws Exception {
        String id = startRun(TestServer.ADMIN_KEY, "{\"prompt\":\"Hostile " + HOSTILE.replace("\"", "\\\"")
                + "\",\"expectedOutput\":\"1\\n\",\"maxAttempts\":1}");
        awaitEnd(id);
        open("#/runs/" + id);
        browser.awaitVisible(By.id("attempt-1"));
        browser.driver.findElement(By.cssSelector("#attempt-1 details summary")).click();
        assertThat(text(By.cssSelector("#attempt-1 .stream-stdout"))).contains("<script>window." + ConsoleBrowser.FLAG);
        assertThat(text(By.cssSelector("#attempt-1 .reply"))).contains("<svg onload=");
        assertThat(text(By.cssSelector(".prompt"))).contains("<iframe srcdoc=");
        assertThat(browser.liveMarkup()).as("elements that could run script on the run page").isEmpty();
        open("#/runs");
        browser.awaitVisible(By.cssSelector("tr[data-run='" + id + "']"));
        assertThat(browser.liveMarkup()).as("on the runs page").isEmpty();
        // a session's rich output: HTML through the server's sanitizer, and SVG (which it removes)
        open("#/sessions");
        browser.awaitVisible(By.id("add-cell")).click();
        WebElement cell = browser.awaitVisible(By.id("cell-3"));
        String quoted = HOSTILE.replace("\\", "\\\\").replace("'", "\\'");
        cell.sendKeys("from IPython.display import HTML, SVG, display\nprint('" + quoted + "')\n"
                + "display(HTML('<b id=\"bold\">bold</b>" + quoted + "'))\n"
                + "display(SVG('<svg xmlns=\"http://www.w3.org/2000/svg\"><script>window." + ConsoleBrowser.FLAG
                + "=7</script></svg>'))\n");
        browser.driver.findElement(By.cssSelector("form[data-cell='3'] .run-cell")).click();
        browser.await(Duration.ofSeconds(60), d -> d.findElement(By.cssSelector("form[data-cell='3'] .cell-outputs"))
                .getText().contains("bold"));
        assertThat(browser.driver.findElements(By.cssSelector("form[data-cell='3'] .html-output b"))).isNotEmpty();
        assertThat(text(By.cssSelector("form[data-cell='3'] .stream-stdout"))).contains("<img src=x onerror=");
        assertThat(browser.liveMarkup()).as("elements that could run script on the session page").isEmpty();
        // the playground prints it too
        open("#/playground");
        WebElement code = browser.awaitVisible(By.id("pg-code"));
        code.clear();
        code.sendKeys("print('" + quoted + "')\n");
        browser.driver.findElement(By.id("pg-run")).click();
        browser.await(Duration.ofSeconds(30), d -> d.findElement(By.id("pg-result")).getText().contains("onerror"));
        assertThat(browser.liveMarkup()).as("on the playground page").isEmpty();
        browser.screenshot("hostile-output");
    }

    @Test
    @Order(9)
    void aKeySeesOnlyItsOwnRuns() {
        String mine = startRun(OTHER_KEY, "{\"prompt\":\"say hello\",\"expectedOutput\":\"hello\\n\",\"maxAttempts\":1}");
        signIn(OTHER_KEY);
        browser.awaitVisible(By.cssSelector("tr[data-run='" + mine + "']"));
        assertThat(browser.driver.findElements(By.cssSelector("tbody tr"))).hasSize(1);
        open("#/runs/" + solvedRun);
        assertThat(text(By.cssSelector("main .problem"))).contains("no run with id");
    }

    @Test
    @Order(10)
    void theKeyboardReachesEverythingAndTheStatusFilterPages() {
        signIn(TestServer.ADMIN_KEY);
        browser.awaitVisible(By.cssSelector("tr[data-run='" + solvedRun + "']"));
        // from the top of the page, Tab alone reaches the first run's link; Enter opens it
        browser.js("document.activeElement.blur(); window.scrollTo(0, 0)");
        WebElement body = browser.driver.findElement(By.tagName("body"));
        String reached = null;
        List<String> path = new ArrayList<>();
        for (int i = 0; i < 30 && reached == null; i++) {
            (i == 0 ? body : browser.driver.switchTo().activeElement()).sendKeys(Keys.TAB);
            WebElement focused = browser.driver.switchTo().activeElement();
            path.add(focused.getTagName() + ":" + focused.getText().lines().findFirst().orElse(""));
            if (focused.getAttribute("href") != null && focused.getAttribute("href").endsWith("#/runs/" + solvedRun)) {
                reached = focused.getAttribute("href");
            }
        }
        assertThat(reached).as("Tab order: " + path).isNotNull();
        assertThat(path).as("Tab order").anyMatch(p -> p.startsWith("select"));
        WebElement runLink = browser.driver.switchTo().activeElement();
        // a page starts with the focus on its content; Shift+Tab goes back up to the sections
        browser.js("document.getElementById('main').focus()");
        List<String> back = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            browser.driver.switchTo().activeElement().sendKeys(Keys.SHIFT, Keys.TAB);
            back.add(browser.driver.switchTo().activeElement().getText());
        }
        assertThat(back).as("Shift+Tab from the content").contains("Sessions", "Playground", "Runs");
        browser.js("arguments[0].focus()", runLink);
        browser.driver.switchTo().activeElement().sendKeys(Keys.ENTER);
        browser.awaitVisible(By.id("attempt-2"));
        // filtered by status: a status rare among the 10,000 runs (1 in 250: 8 of the newest 2,000) still fills a page,
        // every row has it, and the next page goes on from the last one, as the API pages them
        List<String> cancelled = new ArrayList<>();
        TestServer.json(server.get("/v1/runs?status=CANCELLED&limit=100", TestServer.ADMIN_KEY)).get("runs")
                .forEach(r -> cancelled.add(r.get("id").asText()));
        assertThat(cancelled).hasSizeGreaterThan(20);
        open("#/runs?status=CANCELLED");
        browser.awaitVisible(By.cssSelector("table.runs"));
        List<WebElement> rows = browser.driver.findElements(By.cssSelector("tbody tr"));
        assertThat(rows).hasSize(20).allSatisfy(r -> assertThat(r.getText()).contains("CANCELLED"));
        List<String> first = rows.stream().map(r -> r.getAttribute("data-run")).toList();
        assertThat(first).isEqualTo(cancelled.subList(0, 20));
        browser.driver.findElement(By.id("older-runs")).click();
        browser.await(Duration.ofSeconds(10), d -> !d.findElements(By.cssSelector("tbody tr")).isEmpty()
                && !first.contains(d.findElements(By.cssSelector("tbody tr")).get(0).getAttribute("data-run")));
        List<String> second = browser.driver.findElements(By.cssSelector("tbody tr")).stream()
                .map(r -> r.getAttribute("data-run")).toList();
        assertThat(second).isEqualTo(cancelled.subList(20, Math.min(40, cancelled.size())))
                .doesNotContainAnyElementsOf(first);
        assertThat(browser.driver.findElements(By.cssSelector("tbody tr")))
                .allSatisfy(r -> assertThat(r.getText()).contains("CANCELLED"));
    }

    @Test
    @Order(11)
    void firstPaintOfTheRunsPageWithTenThousandRuns() throws Exception {
        signIn(TestServer.ADMIN_KEY);
        List<Double> painted = new ArrayList<>();
        List<Double> contentful = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            browser.driver.navigate().refresh();
            browser.await(Duration.ofSeconds(30), d -> (Boolean) browser.js(
                    "return performance.getEntriesByName('runs-painted').length > 0"));
            painted.add(((Number) browser.js("return performance.getEntriesByName('runs-painted')[0].startTime")).doubleValue());
            contentful.add(((Number) browser.js("const p = performance.getEntriesByName('first-contentful-paint');"
                    + " return p.length ? p[0].startTime : -1")).doubleValue());
        }
        assertThat(browser.driver.findElements(By.cssSelector("tbody tr"))).hasSize(20);
        String report = String.format(Locale.ROOT, "runs page with %d runs in the store (SQLite): first contentful paint %s ms,"
                + " the list painted %s ms after navigation start (5 loads; median %.0f ms)%n", STORED_RUNS + 5,
                contentful.stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList(),
                painted.stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList(),
                painted.stream().sorted().toList().get(2));
        System.out.print(report);
        Files.writeString(SHOTS.resolve("first-paint.txt"), report);
    }
}
