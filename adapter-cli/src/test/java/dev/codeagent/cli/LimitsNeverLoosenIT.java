package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33, "limits never loosen each other": {@code exec --timeout} is the wall limit and never raises an explicit CPU
 * limit; of the two the tighter ends the run, and the report names it. On the real process sandbox.
 */
class LimitsNeverLoosenIT {

    private static final String BUSY = "while True:\n    pass\n";

    @TempDir
    Path dir;

    private CliRunner cli;

    @BeforeEach
    void setUp() {
        cli = new CliRunner(dir);
    }

    @Test
    void aLongTimeoutLeavesAnExplicitCpuLimitOfOneSecond() throws Exception {
        long started = System.nanoTime();
        CliRunner.Result r = cli.runWithStdin(BUSY, "exec", "--json", "--timeout", "8s", "--set", "limits.cpuTime=1s", "-");
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assertThat(r.status()).as(r.toString()).isEqualTo(124);
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("outcome").asText()).isEqualTo("TIME_LIMIT");
        assertThat(json.get("detail").asText()).as("names the limit that ended it").contains("CPU-time limit of 1s");
        assertThat(json.get("cpuTimeMs").asLong()).as(r.toString()).isBetween(900L, 2_500L);
        assertThat(json.get("wallTimeMs").asLong()).as("stopped by CPU, long before the 8 s wall").isLessThan(6_000L);
        assertThat(elapsedMs).isLessThan(8_000L);
    }

    @Test
    void theNoteSaysTheCpuLimitEndedIt() {
        CliRunner.Result r = cli.runWithStdin(BUSY, "exec", "--set", "limits.cpuTime=1s", "--timeout", "8s", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(124);
        assertThat(r.err()).contains("codeagent: time limit exceeded (8s wall, 1s CPU)").contains("CPU-time limit of 1s");
    }

    /** The other way round: the wall limit is the tighter, a sleeping program uses no CPU, and the wall ends it. */
    @Test
    void aShortTimeoutLowersALargerCpuLimitAndTheWallEndsASleeper() throws Exception {
        CliRunner.Result r = cli.runWithStdin("import time\ntime.sleep(30)\n", "exec", "--json", "--timeout", "1s",
                "--set", "limits.cpuTime=20s", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(124);
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("outcome").asText()).isEqualTo("TIME_LIMIT");
        assertThat(json.get("detail").asText()).contains("wall-time limit of 1s");
        assertThat(json.get("wallTimeMs").asLong()).isBetween(900L, 5_000L);
    }
}
