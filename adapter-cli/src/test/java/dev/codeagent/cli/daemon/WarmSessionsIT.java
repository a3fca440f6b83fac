package dev.codeagent.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sessions through the background process's composition, on the real process tier (bubblewrap, an IPython kernel):
 * what a call's agent gets is the warm tier itself, so the tier's sessions reach every call, and a call that ends
 * leaves the tier warm for the next.
 */
class WarmSessionsIT {

    private static final Path PYTHON = Path.of("/usr/bin/python3");

    @BeforeAll
    static void kernelAvailable() throws Exception {
        assumeTrue(Files.isExecutable(PYTHON), "needs /usr/bin/python3");
        Process p = new ProcessBuilder(PYTHON.toString(), "-I", "-c", "import ipykernel, jupyter_client").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assumeTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "needs python3-ipykernel and python3-jupyter-client");
    }

    @Test
    void aSessionOpenedThroughTheDaemonsCompositionKeepsItsStateAndTheTierStaysWarm() {
        CodeAgentConfig config = new ConfigLoader().parse("sandbox: {kind: process, isolation: best-effort}\nstore: {kind: memory}");
        try (WarmSandboxes sandboxes = new WarmSandboxes()) {
            for (int call = 1; call <= 2; call++) {
                try (CodeAgent agent = sandboxes.apply(config);
                     Session session = agent.openSession(SessionLimits.defaults())) {
                    CellResult define = session.execute(new Cell("x = 40 + " + call));
                    assertThat(define.status()).as(define.message()).isEqualTo(CellStatus.OK);
                    CellResult use = session.execute(new Cell("print(x + 1)"));
                    assertThat(use.status()).as(use.message()).isEqualTo(CellStatus.OK);
                    assertThat(stdout(use)).isEqualTo((42 + call - 1) + "\n");
                }
                assertThat(sandboxes.size()).as("the tier outlives call " + call).isEqualTo(1);
            }
        }
    }

    private static String stdout(CellResult r) {
        return r.outputs().stream().filter(o -> o instanceof CellOutput.Stream s && s.name().equals("stdout"))
                .map(o -> ((CellOutput.Stream) o).text()).collect(Collectors.joining());
    }
}
