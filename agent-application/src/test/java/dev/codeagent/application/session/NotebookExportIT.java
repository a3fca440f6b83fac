package dev.codeagent.application.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An exported notebook from a hostile session (hostile-outputs.json: every payload as the cell's output) is valid for
 * Debian's {@code nbformat} and renders with Debian's {@code jupyter nbconvert --to html} into a page with no active
 * content: notebook_check.py parses the page and compares it with nbconvert's page for a harmless notebook. The same
 * corpus written without the sanitizer must show plenty, or the check proves nothing.
 */
class NotebookExportIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @BeforeAll
    static void needsNbconvert() throws Exception {
        Process p = new ProcessBuilder("/usr/bin/python3", "-c", "import nbformat, nbconvert").start();
        assumeTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.isExecutable(Path.of("/usr/bin/jupyter-nbconvert")),
                "needs Debian's python3-nbformat and jupyter-nbconvert");
    }

    @Test
    void theExportOfAHostileSessionIsValidAndItsRenderedPageRunsNothing() throws Exception {
        Notebook nb = new Notebook();
        int n = 0;
        for (JsonNode e : OutputSanitizerTest.corpus()) {
            n++;
            CellOutput o = switch (e.get("kind").asText()) {
                case "stream" -> new CellOutput.Stream("stdout", e.get("text").asText());
                case "error" -> {
                    List<String> tb = new ArrayList<>();
                    e.get("traceback").forEach(t -> tb.add(t.asText()));
                    yield new CellOutput.Error(e.get("ename").asText(), e.get("evalue").asText(), tb);
                }
                case "result" -> new CellOutput.ExecuteResult(n, OutputSanitizerTest.bundle(e));
                default -> new CellOutput.DisplayData(OutputSanitizerTest.bundle(e));
            };
            CellStatus status = o instanceof CellOutput.Error ? CellStatus.ERROR : CellStatus.OK;
            nb.add(new Cell("# " + e.get("name").asText() + "\ndisplay(payload)"),
                    new CellResult(status, n, Duration.ofMillis(3), false, List.of(o), ""));
        }
        Path file = dir.resolve("export.ipynb");
        try (OutputStream out = Files.newOutputStream(file)) {
            nb.writeTo(out);
        }
        JsonNode report = check(file);
        assertThat(report.get("error").asText()).isEmpty();
        assertThat(report.get("valid").asBoolean()).isTrue();
        assertThat(report.get("findings")).as(report.toString()).isEmpty();
        // what is harmless survives: the benign PNG and the dataframe's table
        String page = Files.readString(dir.resolve("rendered.html"), StandardCharsets.UTF_8);
        assertThat(page).contains("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ",
                "<table border=\"1\" class=\"dataframe\">");
    }

    @Test
    void theSameCorpusUnsanitizedIsFoundFullOfActiveContent() throws Exception {
        Path raw = dir.resolve("raw.ipynb");
        Process p = new ProcessBuilder("/usr/bin/python3", script().toString(), "raw", corpusFile().toString(), raw.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).as(out).isTrue();
        JsonNode report = check(raw);
        assertThat(report.get("valid").asBoolean()).as(report.toString()).isTrue();
        assertThat(report.get("findings").size()).as(report.toString()).isGreaterThanOrEqualTo(60);
        assertThat(report.get("findings").toString()).contains("<script>", "img[onerror]", "<svg>", "<iframe>",
                "a[href=javascript:alert(1)]", "<base>", "<meta>");
    }

    private JsonNode check(Path notebook) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/usr/bin/python3", script().toString(), "check", notebook.toString(), dir.toString())
                .redirectError(dir.resolve("check.err").toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(600, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out + Files.readString(dir.resolve("check.err"))).isZero();
        return JSON.readTree(out);
    }

    private Path script() throws IOException {
        return resource("notebook_check.py");
    }

    private Path corpusFile() throws IOException {
        return resource("hostile-outputs.json");
    }

    private Path resource(String name) throws IOException {
        Path target = dir.resolve(name);
        if (!Files.exists(target)) {
            try (InputStream in = NotebookExportIT.class.getResourceAsStream(name)) {
                Files.copy(in, target);
            }
        }
        return target;
    }
}
