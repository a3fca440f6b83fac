package dev.codeagent.domain.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SessionRecordsTest {

    @Test
    void defaultLimitsAreValidAndWithersValidate() {
        SessionLimits d = SessionLimits.defaults();
        assertThat(d.withCellTimeout(Duration.ofSeconds(2)).cellTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> d.withCellTimeout(Duration.ZERO)).hasMessageContaining("cellTimeout");
        assertThatThrownBy(() -> d.withMaxLifetime(Duration.ofSeconds(10))).hasMessageContaining("maxLifetime");
        assertThatThrownBy(() -> d.withMaxOutput(4096, 8192)).hasMessageContaining("maxImageBytes");
        assertThatThrownBy(() -> d.withMaxCells(0)).hasMessageContaining("maxCells");
        assertThatThrownBy(() -> d.withIdleTimeout(Duration.ofMillis(10))).hasMessageContaining("idleTimeout");
        assertThatThrownBy(() -> new SessionLimits(d.cellTimeout(), d.idleTimeout(), d.maxLifetime(), SessionLimits.MIB,
                d.cpuBudget(), d.maxProcesses(), d.diskBytes(), d.maxOutputBytesPerCell(), d.maxImageBytes(), 1))
                .hasMessageContaining("memoryBytes");
    }

    @Test
    void cellRefusesOversizeAndNul() {
        assertThat(new Cell("x = 1").source()).isEqualTo("x = 1");
        assertThatThrownBy(() -> new Cell("a\0b")).hasMessageContaining("NUL");
        assertThatThrownBy(() -> new Cell("x".repeat(Cell.MAX_SOURCE_CHARS + 1))).hasMessageContaining("at most");
    }

    @Test
    void mimeBundleValidatesTypesAndStandInNeverCarriesBase64() {
        String base64 = "iVBORw0KGgo".repeat(100);
        MimeBundle b = new MimeBundle(Map.of("image/png", base64, "text/plain", "<Figure size 640x480>"));
        assertThat(b.standIn()).contains("<Figure size 640x480>").contains("image/png").doesNotContain("iVBORw0KGgo");
        assertThat(MimeBundle.of("image/png", base64).standIn()).isEqualTo("[image/png, " + base64.length() + " chars]");
        assertThat(MimeBundle.of("text/plain", "y".repeat(500)).standIn()).hasSize(MimeBundle.STAND_IN_CHARS + 1);
        assertThatThrownBy(() -> MimeBundle.of("png", "x")).hasMessageContaining("not a MIME type: png");
        assertThatThrownBy(() -> new MimeBundle(Map.of())).hasMessageContaining("at least one");
    }

    @Test
    void outputsValidate() {
        assertThatThrownBy(() -> new CellOutput.Stream("stdin", "x")).hasMessageContaining("stdout or stderr");
        assertThatThrownBy(() -> new CellOutput.ExecuteResult(0, MimeBundle.of("text/plain", "2")))
                .hasMessageContaining("executionCount");
        assertThatThrownBy(() -> new CellOutput.Error(" ", "v", List.of())).hasMessageContaining("blank");
    }

    @Test
    void resultKeepsItsInvariants() {
        CellOutput.Error err = new CellOutput.Error("ZeroDivisionError", "division by zero", List.of("tb"));
        CellResult r = new CellResult(CellStatus.ERROR, 3, Duration.ofMillis(5), false, List.of(err), "");
        assertThat(r.error()).contains(err);
        assertThat(r.feedback()).isEqualTo("ERROR [3]\nZeroDivisionError: division by zero");
        assertThatThrownBy(() -> new CellResult(CellStatus.ERROR, 1, Duration.ZERO, false, List.of(), ""))
                .hasMessageContaining("carry the error");
        assertThatThrownBy(() -> new CellResult(CellStatus.KERNEL_DIED, 0, Duration.ZERO, false, List.of(), "gone"))
                .hasMessageContaining("stateLost");
        assertThatThrownBy(() -> new CellResult(CellStatus.OK, -1, Duration.ZERO, false, List.of(), ""))
                .hasMessageContaining("executionCount");
        CellResult lost = new CellResult(CellStatus.TIMEOUT, 0, Duration.ofSeconds(1), true, List.of(), "cell ran past 1s");
        assertThat(lost.feedback()).startsWith("TIMEOUT (state lost");
    }
}
