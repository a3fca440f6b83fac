package dev.codeagent.application.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.MimeBundle;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The notebook a session exports: sanitized, JSON types as JSON, bounded by its budget, written as it goes. */
class NotebookTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static CellResult ok(int n, CellOutput... outputs) {
        return new CellResult(CellStatus.OK, n, Duration.ofMillis(1), false, List.of(outputs), "");
    }

    private static JsonNode json(Notebook nb) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        nb.writeTo(out);
        return JSON.readTree(out.toByteArray());
    }

    @Test
    void jsonTypesAreWrittenAsJsonValuesAndActiveTypesAreGone() throws IOException {
        Notebook nb = new Notebook().add(new Cell("df"), ok(1, new CellOutput.ExecuteResult(1, new MimeBundle(Map.of(
                "application/json", "{\"a\": [1, 2]}", "application/vnd.dataresource+json", "{\"schema\": {}, \"data\": []}",
                "application/javascript", "alert(1)", MimeBundle.TEXT_PLAIN, "a\nb")))));
        JsonNode data = json(nb).at("/cells/0/outputs/0/data");
        assertThat(data.get("application/json").isObject()).isTrue();
        assertThat(data.at("/application~1json/a/1").asInt()).isEqualTo(2);
        assertThat(data.get("application/vnd.dataresource+json").isObject()).isTrue();
        assertThat(data.has("application/javascript")).isFalse();
        assertThat(data.get("text/plain").toString()).isEqualTo("[\"a\\n\",\"b\"]");
    }

    @Test
    void theOldestOutputsAreDroppedPastTheBudgetAndTheNotebookSaysSo() throws IOException {
        long budget = 64 * 1024;
        Notebook nb = new Notebook(budget);
        String kib = "x".repeat(1023) + "\n";
        for (int i = 1; i <= 200; i++) {
            nb.add(new Cell("print(" + i + ")"), ok(i, new CellOutput.Stream("stdout", kib.repeat(4))));
            assertThat(nb.held()).isLessThanOrEqualTo(budget);
        }
        assertThat(nb.droppedOutputs()).isGreaterThan(180);
        JsonNode doc = json(nb);
        assertThat(doc.get("cells")).hasSize(200);
        assertThat(doc.at("/cells/0/source/0").asText()).isEqualTo("print(1)");
        assertThat(doc.at("/cells/0/outputs")).hasSize(1);
        assertThat(doc.at("/cells/0/outputs/0/text/0").asText())
                .isEqualTo("[codeagent: 1 output of this cell dropped: session output budget 64 KiB]\n");
        assertThat(doc.at("/cells/199/outputs/0/text/0").asText()).isEqualTo(kib);
        assertThat(doc.at("/metadata/codeagent/droppedOutputs").asLong()).isEqualTo(nb.droppedOutputs());
    }

    @Test
    void sourcesGoToo_whenTheyAloneOverrunTheBudget() throws IOException {
        Notebook nb = new Notebook(8 * 1024);
        for (int i = 0; i < 10; i++) {
            nb.add(new Cell("#" + "y".repeat(2000)), ok(i + 1));
        }
        assertThat(nb.held()).isLessThanOrEqualTo(8 * 1024);
        assertThat(json(nb).at("/cells/0/source/0").asText()).contains("source was dropped");
    }

    @Test
    void theExportIsWrittenAsItGoesNotBuiltWholeFirst() throws IOException {
        Notebook nb = new Notebook();
        String mib = "z".repeat(1024 * 1024);
        for (int i = 1; i <= 6; i++) {
            nb.add(new Cell(""), ok(i, new CellOutput.Stream("stdout", mib)));
        }
        // written in the generator's small buffers, never handed over as one notebook-sized array
        long[] largestWrite = {0};
        long[] total = {0};
        OutputStream counting = new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                largestWrite[0] = Math.max(largestWrite[0], len);
                total[0] += len;
            }
        };
        nb.writeTo(counting);
        assertThat(largestWrite[0]).isLessThanOrEqualTo(64 * 1024);
        assertThat(total[0]).isGreaterThan(6L * 1024 * 1024);
        assertThatThrownBy(() -> new Notebook(10)).hasMessageContaining("at least 1 KiB");
    }

    @Test
    void theOutputIsValidUtf8JsonEndingInANewline() throws IOException {
        Notebook nb = new Notebook().add(new Cell("print('é')"), ok(1, new CellOutput.Stream("stdout", "é ✓\n")));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        nb.writeTo(out);
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).endsWith("}\n").contains("é ✓");
        assertThat(JSON.readTree(text).get("nbformat").asInt()).isEqualTo(4);
    }
}
