package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Level;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's chromium, headless, driven through Debian's chromedriver (both paths given: Selenium Manager never runs, so
 * nothing is downloaded), with a watch for script that should never run: before any page script, a listener records
 * every Content-Security-Policy violation (what a payload that reached the page as markup sets off), and the browser's
 * console log is read for errors.
 */
final class ConsoleBrowser implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** What a hostile payload sets if it ever runs; the watch below also records CSP violations. */
    static final String FLAG = "__codeagentPwned";
    private static final String WATCH = "window.__violations = [];"
            + "document.addEventListener('securitypolicyviolation', e => window.__violations.push("
            + "e.violatedDirective + ' blocked ' + e.blockedURI + ' ' + (e.sample || '')));";

    final ChromeDriver driver;
    /** The console log since the last test's check (read once: chromedriver hands each entry out once). */
    private final List<LogEntry> logs = new java.util.ArrayList<>();
    private final Path screenshots;

    ConsoleBrowser(Path screenshots) throws IOException {
        this.screenshots = Files.createDirectories(screenshots);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // root in a container: chromium's own sandbox needs user namespaces it may not have here
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--disable-gpu", "--no-first-run", "--disable-extensions", "--disable-background-networking");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        this.driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(60));
        driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", WATCH));
    }

    /** Skips the calling test where Debian's chromium and chromedriver are missing; fails it on CI, which installs them. */
    static void assumeInstalled() {
        boolean here = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (System.getenv("CI") != null) {
            assertThat(here).as("CI installs chromium and chromium-driver (.ci/run)").isTrue();
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(here, "chromium and chromium-driver are not installed");
    }

    /** axe-core's script, installed under target/ by npm (see {@link NodeTools}). */
    static String axe() throws IOException, InterruptedException {
        return Files.readString(NodeTools.install("axe", "axe", "axe-core/axe.min.js").resolve("node_modules/axe-core/axe.min.js"));
    }

    /** What every console test ends with: the page kept under debug/ for whoever reads a failure, then the check. */
    void endOfTest(org.junit.jupiter.api.TestInfo test) throws IOException {
        dump(test.getTestMethod().map(java.lang.reflect.Method::getName).orElse("test"));
        assertNothingRan();
    }

    Object js(String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    <T> T await(Duration timeout, Function<WebDriver, T> condition) {
        // the console redraws what it shows: an element read while it is replaced is read again on the next poll
        return new WebDriverWait(driver, timeout, Duration.ofMillis(50))
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(condition);
    }

    WebElement awaitVisible(By by) {
        return await(Duration.ofSeconds(30), d -> {
            List<WebElement> found = d.findElements(by);
            return found.isEmpty() || !found.get(0).isDisplayed() ? null : found.get(0);
        });
    }

    /** Saves what the browser shows as target/…/NAME.png. */
    Path screenshot(String name) throws IOException {
        Path file = screenshots.resolve(name + ".png");
        Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), file, StandardCopyOption.REPLACE_EXISTING);
        return file;
    }

    /** The page's screenshot, markup and console log under debug/, named for a test. */
    void dump(String name) throws IOException {
        readLogs();
        Path debug = Files.createDirectories(screenshots.resolve("debug"));
        Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), debug.resolve(name + ".png"),
                StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(debug.resolve(name + ".html"), driver.getPageSource());
        Files.writeString(debug.resolve(name + ".log"), String.join("\n", logs.stream().map(LogEntry::toString).toList()));
    }

    /**
     * Fails when anything ran that should not have: a CSP violation on this page (an inline script, handler or
     * {@code javascript:} URL that got in as markup), the payloads' flag, or a console error naming the policy.
     */
    private void readLogs() {
        logs.addAll(driver.manage().logs().get(LogType.BROWSER).getAll());
    }

    void assertNothingRan() {
        readLogs();
        @SuppressWarnings("unchecked")
        List<Object> violations = (List<Object>) js("return window.__violations || ['the watch is not installed']");
        if (!driver.getCurrentUrl().startsWith("http")) {
            return;
        }
        assertThat(violations).as("Content-Security-Policy violations").isEmpty();
        assertThat(js("return window." + FLAG + " === undefined")).as("a payload ran").isEqualTo(true);
        List<String> errors = logs.stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).map(LogEntry::getMessage)
                // a 4xx the console asked for on purpose (a refused key) is logged by chromium as a failed resource
                .filter(m -> !m.contains("the server responded with a status of 4"))
                .toList();
        logs.clear();
        assertThat(errors).as("errors in the browser's console").isEmpty();
    }

    /**
     * Elements that could run script in the rendered page: any {@code on*} attribute, a {@code javascript:} URL, a
     * script that is not the console's own, svg, iframe, object, embed.
     */
    @SuppressWarnings("unchecked")
    List<String> liveMarkup() {
        readLogs();
        return (List<String>) js("""
                const found = [];
                for (const e of document.querySelectorAll('*')) {
                  const tag = e.tagName.toLowerCase();
                  if (['svg', 'iframe', 'object', 'embed', 'math', 'base', 'meta'].includes(tag) && !e.closest('head')) {
                    found.push('<' + tag + '>');
                  }
                  if (tag === 'script' && !(e.getAttribute('src') || '').startsWith('/console/')) found.push('script ' + e.outerHTML);
                  for (const a of e.attributes) {
                    if (a.name.startsWith('on')) found.push(tag + ' ' + a.name);
                    if (/^\\s*(javascript|vbscript)\\s*:|^\\s*data:text/i.test(a.value) && a.name !== 'alt') found.push(tag + ' ' + a.name + '=' + a.value);
                  }
                }
                return found;""");
    }

    /** axe-core's violations of impact serious or critical on the page as it is now, one line each. */
    @SuppressWarnings("unchecked")
    List<String> seriousAccessibilityViolations(String axeSource) {
        js(axeSource);
        List<Map<String, Object>> violations = (List<Map<String, Object>>) ((JavascriptExecutor) driver).executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v =>"
                        + " ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}))))"
                        + ".catch(e => done([{id: 'axe failed', impact: 'critical', help: String(e), nodes: []}]));");
        return violations.stream().filter(v -> "serious".equals(v.get("impact")) || "critical".equals(v.get("impact")))
                .map(v -> v.get("id") + " (" + v.get("impact") + "): " + v.get("help") + " at " + v.get("nodes")).toList();
    }

    @Override
    public void close() {
        driver.quit();
    }
}
