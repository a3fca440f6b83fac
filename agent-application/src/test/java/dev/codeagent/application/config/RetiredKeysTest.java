package dev.codeagent.application.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.config.ConfigLoaderTest.HttpLike;
import dev.codeagent.application.spi.ConfigSection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key that was replaced is refused wherever it is set, naming what replaced it: in a file, as a flag, and as an
 * environment variable, which would otherwise be ignored and leave the process working another way without a word.
 */
class RetiredKeysTest {

    private static final ConfigSection<HttpLike> HTTP = new ConfigSection<>("http", HttpLike.class, new HttpLike("127.0.0.1", 8080))
            .withRetired("runsOn", "sandbox.kind: queue");

    private final ConfigLoader loader = new ConfigLoader(List.of(HTTP));

    @TempDir
    Path dir;

    @Test
    void inAFile() throws Exception {
        Path file = Files.writeString(dir.resolve("c.yaml"), "http:\n  port: 9000\n  runsOn: queue\n");
        assertThatThrownBy(() -> loader.load(Optional.of(file), Map.of(), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessage("http.runsOn was replaced by sandbox.kind: queue");
    }

    /** An empty config file, so that no ~/.codeagent/config.yaml of this machine takes part. */
    private Optional<Path> empty() throws Exception {
        return Optional.of(Files.writeString(dir.resolve("empty.yaml"), "{}\n"));
    }

    @Test
    void asAFlag() throws Exception {
        Optional<Path> file = empty();
        assertThatThrownBy(() -> loader.load(file, Map.of(), Map.of("http.runsOn", "here")))
                .isInstanceOf(ConfigException.class).hasMessage("http.runsOn was replaced by sandbox.kind: queue");
    }

    @Test
    void asAnEnvironmentVariable() throws Exception {
        Optional<Path> file = empty();
        assertThatThrownBy(() -> loader.load(file, Map.of("CODEAGENT_HTTP_RUNS_ON", "queue"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("http.runsOn (environment variable CODEAGENT_HTTP_RUNS_ON) was replaced by sandbox.kind: queue");
    }

    @Test
    void isNoLongerAKey() {
        assertThat(loader.keys()).contains("http.port").doesNotContain("http.runsOn");
    }
}
