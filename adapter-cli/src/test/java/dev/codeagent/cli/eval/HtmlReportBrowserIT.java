package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * {@code codeagent eval --report}: a real evaluation of three HumanEval problems in the process sandbox, its report
 * opened from disk (a file:// URL, no server, no network) in headless chromium: pass@k as the CLI printed it, the grid
 * coloured by each sample's verdict, a cell opening its code and failure, both charts drawn, and a sample whose code
 * tries to end the script element or add an element with a handler running nothing.
 */
@Tag("slow")
class HtmlReportBrowserIT {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final String HOSTILE = "    # </script><script>window.pwned=1</script><!-- <img src=x onerror=\"window.pwned=2\">\n"
            + "    return None\n";

    @TempDir
    Path dir;

    private ChromeDriver browser;

    @BeforeEach
    void browser() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            String why = "needs " + CHROMIUM + " and " + CHROMEDRIVER + " (apt-get install chromium chromium-driver)";
            if ("true".equals(System.getenv("CI"))) {
                fail(why);
            }
            assumeTrue(false, why);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // --no-sandbox: the tests run as root here, where chromium's own sandbox refuses to start
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1700", "--user-data-dir=" + dir.resolve("chromium-profile"));
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .withLogFile(dir.resolve("chromedriver.log").toFile()).build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    @AfterEach
    void close() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void theReportOpenedFromDiskShowsWhatTheCliPrintedAndEachCellOpensItsSample() throws IOException {
        List<JsonNode> all = EvalJson.readLines(Datasets.humanEval());
        List<JsonNode> three = all.subList(0, 3);
        Path problems = dir.resolve("problems.jsonl");
        Files.write(problems, three.stream().map(EvalJson::line).toList());
        List<String> samples = new ArrayList<>();
        for (JsonNode p : three) {
            String id = p.get("task_id").asText();
            samples.add(sample(id, p.get("canonical_solution").asText()));
            samples.add(sample(id, "    return 1 / 0\n"));
            samples.add(sample(id, id.equals("HumanEval/2") ? "    while True:\n        pass\n" : HOSTILE));
        }
        Path samplesFile = Files.write(dir.resolve("samples.jsonl"), samples);
        Path report = dir.resolve("report.html");
        Path results = dir.resolve("results.jsonl");

        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--samples", samplesFile.toString(),
                "--sandbox", "process", "--timeout", "2s", "--k", "1,2,5", "--out", results.toString(),
                "--report", report.toString());
        assertThat(r.status()).as(r.toString()).isZero();
        Map<String, String> printed = printedPassAtK(r.out());
        assertThat(printed).as(r.out()).containsKeys("1", "2", "5");
        List<JsonNode> judged = EvalJson.readLines(results);
        assertThat(judged).hasSize(9);

        browser.get(report.toUri().toString());
        new WebDriverWait(browser, Duration.ofSeconds(20))
                .until(d -> !d.findElements(By.cssSelector("#ca-times canvas")).isEmpty());

        // pass@k as the CLI printed it; the k it could not estimate says so
        assertThat(text("[data-k='1'] .ca-tile-value")).isEqualTo(printed.get("1"));
        assertThat(text("[data-k='2'] .ca-tile-value")).isEqualTo(printed.get("2"));
        assertThat(printed.get("5")).startsWith("n/a");
        assertThat(text("[data-k='5'] .ca-tile-value")).isEqualTo("n/a");

        // problems × samples, each cell coloured by the verdict the results file gives that sample
        List<WebElement> rows = browser.findElements(By.cssSelector("table.ca-grid tbody tr"));
        assertThat(rows).hasSize(3);
        @SuppressWarnings("unchecked")
        Map<String, String> colours = (Map<String, String>) js("return window.CodeagentReport.colours;");
        for (JsonNode j : judged) {
            int row = three.stream().map(p -> p.get("task_id").asText()).toList().indexOf(j.get("task_id").asText());
            WebElement cell = cell(row, j.get("sample").asInt());
            assertThat(cell.getAttribute("data-verdict")).as(j.toString()).isEqualTo(j.get("verdict").asText());
            assertThat(cell.getCssValue("background-color")).as(j.toString()).isEqualTo(rgba(colours.get(j.get("verdict").asText())));
        }
        assertThat(rows.get(2).findElements(By.cssSelector("button.ca-cell"))).hasSize(3);
        assertThat(cell(2, 2).getAttribute("data-verdict")).isEqualTo("TIME_LIMIT_EXCEEDED");

        // a failed sample: its code, its message, its error line marked
        JsonNode zero = judged.stream().filter(j -> j.get("task_id").asText().equals("HumanEval/1") && j.get("sample").asInt() == 1)
                .findFirst().orElseThrow();
        // reached from the first cell by the keyboard: down a problem, right a sample, Enter
        cell(0, 0).click();
        assertThat(text("#ca-detail-title")).isEqualTo("HumanEval/0 — sample 1");
        cell(0, 0).sendKeys(Keys.ARROW_DOWN);
        browser.switchTo().activeElement().sendKeys(Keys.ARROW_RIGHT);
        assertThat(browser.switchTo().activeElement()).isEqualTo(cell(1, 1));
        browser.switchTo().activeElement().sendKeys(Keys.ENTER);
        assertThat(browser.switchTo().activeElement()).as("focus stays in the grid").isEqualTo(cell(1, 1));
        assertThat(text("#ca-detail-title")).isEqualTo("HumanEval/1 — sample 2");
        assertThat(text("#ca-detail-message")).isEqualTo(zero.get("message").asText());
        assertThat(text("#ca-detail-code")).contains(three.get(1).get("prompt").asText().lines().findFirst().orElseThrow())
                .contains("return 1 / 0");
        assertThat(content("#ca-detail-code .ca-error-line .ca-text")).isEqualTo("    return 1 / 0\n");
        assertThat(text("#ca-detail-code .ca-error-line .ca-lineno")).isEqualTo(zero.get("error").get("line").asText());

        // both charts drawn
        for (String chart : List.of("#ca-verdicts canvas", "#ca-times canvas")) {
            Dimension size = browser.findElement(By.cssSelector(chart)).getSize();
            assertThat(size.getWidth()).as(chart).isPositive();
            assertThat(size.getHeight()).as(chart).isPositive();
        }
        Files.createDirectories(Path.of("target", "screenshots"));
        Files.write(Path.of("target", "screenshots", "eval-report.png"), browser.getScreenshotAs(OutputType.BYTES));

        // the hostile sample: shown as the text it is, and nothing of it ran or became an element
        cell(0, 2).click();
        assertThat(content("#ca-detail-code")).contains("# </script><script>window.pwned=1</script><!-- <img src=x onerror=\"window.pwned=2\">");
        assertThat(js("return typeof window.pwned;")).isEqualTo("undefined");
        assertThat(browser.findElements(By.cssSelector("img"))).isEmpty();
        assertThat(browser.findElements(By.tagName("script"))).as("the data, echarts and report.js").hasSize(3);
        List<LogEntry> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue()).toList();
        assertThat(errors).as("console errors and warnings (a blocked script or style would be one): " + describe(errors)).isEmpty();
    }

    private static String sample(String id, String completion) {
        ObjectNode s = EvalJson.object();
        s.put("task_id", id);
        s.put("completion", completion);
        return EvalJson.line(s);
    }

    /** {@code pass@1      66.7%} → 1 → 66.7%; {@code pass@5 n/a (…)} → 5 → n/a (…) */
    private static Map<String, String> printedPassAtK(String out) {
        Matcher m = Pattern.compile("(?m)^pass@(\\d+)\\s+(.+)$").matcher(out);
        Map<String, String> byK = new java.util.LinkedHashMap<>();
        while (m.find()) {
            byK.put(m.group(1), m.group(2).strip());
        }
        return byK;
    }

    private WebElement cell(int row, int sample) {
        return browser.findElement(By.cssSelector("button.ca-cell[data-problem='" + row + "'][data-sample='" + sample + "']"));
    }

    private String text(String css) {
        return browser.findElement(By.cssSelector(css)).getText();
    }

    /** The exact text, whitespace and all. */
    private String content(String css) {
        return browser.findElement(By.cssSelector(css)).getAttribute("textContent");
    }

    private Object js(String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
    }

    /** {@code #2e9d57} as the browser reports a computed colour: {@code rgba(46, 157, 87, 1)}. */
    private static String rgba(String hex) {
        int v = Integer.parseInt(hex.substring(1), 16);
        return "rgba(" + (v >> 16 & 0xff) + ", " + (v >> 8 & 0xff) + ", " + (v & 0xff) + ", 1)";
    }

    private static String describe(List<LogEntry> entries) {
        return entries.stream().map(LogEntry::toString).collect(Collectors.joining("\n"));
    }
}
