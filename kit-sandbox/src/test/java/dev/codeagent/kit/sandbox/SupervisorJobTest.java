package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SupervisorJobTest {

    @Test
    void isAByteCountANewlineAndOneJsonObjectWithTheSharedKeys() throws Exception {
        byte[] wire = new SupervisorJob(Map.of("main.py", "print('é')"), List.of("python3", "main.py"), Map.of("PATH", "/usr/bin"))
                .rlimit("RLIMIT_CPU", 2, 3)
                .with("nonce", "n0")
                .encode();
        String text = new String(wire, StandardCharsets.UTF_8);
        int nl = text.indexOf('\n');
        assertThat(nl).isPositive().isLessThan(SupervisorJob.MAX_HEADER);
        byte[] json = Arrays.copyOfRange(wire, nl + 1, wire.length);
        assertThat(Integer.parseInt(text.substring(0, nl))).as("bytes, not characters").isEqualTo(json.length);
        JsonNode n = new ObjectMapper().readTree(json);
        assertThat(n.path("files").path("main.py").asText()).isEqualTo("print('é')");
        assertThat(n.path("argv").toString()).isEqualTo("[\"python3\",\"main.py\"]");
        assertThat(n.path("env").path("PATH").asText()).isEqualTo("/usr/bin");
        assertThat(n.path("rlimits").path("RLIMIT_CPU").toString()).isEqualTo("[2,3]");
        assertThat(n.path("nonce").asText()).isEqualTo("n0");
    }

    @Test
    void aTierCannotRedefineASharedKeyOrNameSomethingElseAnRlimit() {
        SupervisorJob job = new SupervisorJob(Map.of(), List.of("x"), Map.of());
        assertThatThrownBy(() -> job.with("argv", List.of("y"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> job.rlimit("CPU", 1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aScriptTravelsWithoutItsComments() {
        String script = SupervisorJob.script(SupervisorJobTest.class, "script-sample.py");
        assertThat(script).isEqualTo("import os\nif True:\n    x = '# kept: inside code'\n");
    }
}
