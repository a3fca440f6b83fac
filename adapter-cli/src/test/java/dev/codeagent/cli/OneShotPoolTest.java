package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.sandbox.docker.DockerSandboxConfig;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A process that runs one program starts no docker pool; the background process keeps the configured one. */
class OneShotPoolTest {

    private static int poolSize(boolean oneShot, String... args) {
        CliContext context = new CliContext(new ByteArrayInputStream(new byte[0]), Map.of("CODEAGENT_CONFIG", "/dev/null"), false,
                Path.of(""), c -> {
                    throw new AssertionError("not composed");
                }, oneShot);
        CodeAgentCli cli = new CodeAgentCli(context);
        new picocli.CommandLine(cli).parseArgs(args);
        return cli.configForOneRun(Map.of()).section(DockerSandboxConfig.SECTION).poolSize();
    }

    @Test
    void aOneShotRunStartsNoPool() {
        assertThat(poolSize(true)).isZero();
        assertThat(poolSize(false)).isEqualTo(DockerSandboxConfig.defaults().poolSize()).isPositive();
        // asked for explicitly, it is what was asked
        assertThat(poolSize(true, "--set", "sandbox.docker.poolSize=3")).isEqualTo(3);
    }
}
