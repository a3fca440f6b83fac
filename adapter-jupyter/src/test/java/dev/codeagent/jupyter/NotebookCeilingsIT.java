package dev.codeagent.jupyter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A notebook cannot lift its own sandbox's limits: its magics are capped by the config's {@code jupyter.*} ceilings,
 * and an allocation past the documented 512 MiB ends in the sandbox's memory limit. The real kernel, a real
 * process-tier session, driven by Jupyter's own client.
 */
@Tag("slow")
class NotebookCeilingsIT {

    @TempDir
    Path tmp;

    @Test
    void magicsAboveTheCeilingsAreRefusedAndTheDocumentedMemoryHolds() throws Exception {
        List<String> lines = KernelScripts.run(tmp, "limits_ceiling.py", List.of(), List.of(), 600);
        JsonNode r = new ObjectMapper().readTree(lines.get(lines.size() - 1));

        JsonNode memory = r.get("memory_64g");
        assertThat(memory.get("ename").asText()).isEqualTo("UsageError");
        assertThat(memory.get("evalue").asText()).isEqualTo(
                "%limits memory=64g: must be between 16 MiB and 512 MiB (jupyter.maxMemory), was 64 GiB");
        assertThat(r.get("x_kept").get("text").asText()).as("a refused %limits keeps the session").isEqualTo("1");
        assertThat(r.get("timeout_2h").get("evalue").asText()).isEqualTo(
                "%limits timeout=2h: must be between 1ms and 1h (jupyter.maxTimeout), was 2h");
        assertThat(r.get("solve_memory_64g").get("ename").asText()).isEqualTo("UsageError");
        assertThat(r.get("solve_memory_64g").get("evalue").asText()).as("%%solve is capped the same way")
                .contains("--memory must be between 16 MiB and 512 MiB (jupyter.maxMemory), was 64 GiB");
        assertThat(r.get("shown").get("text").asText()).contains("memory=512m for the session (at most 1h and 512m: jupyter.maxTimeout, jupyter.maxMemory)");

        assertThat(r.get("memory_256m").get("status").asText()).isEqualTo("ok");
        JsonNode atCeiling = r.get("at_ceiling");
        assertThat(atCeiling.get("status").asText()).as("values at the ceilings are accepted: " + atCeiling).isEqualTo("ok");
        assertThat(atCeiling.get("text").asText()).contains("timeout=1h per cell, memory=512m; a new session");

        JsonNode allocate = r.get("allocate");
        assertThat(allocate.get("status").asText()).as("1.5 GiB against 512 MiB: " + allocate).isEqualTo("error");
        assertThat(allocate.get("text").asText()).doesNotContain("allocated");
        assertThat(allocate.get("ename").asText()).as("ended by the memory limit: " + allocate).isIn("MemoryError", "KernelDied");
        assertThat(r.get("after").get("text").asText()).as("the notebook goes on").isEqualTo("2");
    }
}
