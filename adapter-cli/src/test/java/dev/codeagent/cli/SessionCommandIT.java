package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code codeagent session}: a file of cells through one real kernel in the process tier, and its notebook. */
@Tag("slow")
class SessionCommandIT {

    private static final Path PYTHON = Path.of("/usr/bin/python3");

    @TempDir
    Path dir;

    @BeforeAll
    static void kernelAvailable() {
        assumeTrue(python("import ipykernel, jupyter_client, nbformat") == 0,
                "needs /usr/bin/python3 with python3-ipykernel, python3-jupyter-client and python3-nbformat");
    }

    @Test
    void runsTheCellsInOneKernelAndWritesANotebookNbformatAccepts() throws IOException {
        Path cells = Files.writeString(dir.resolve("cells.py"),
                "x = 2\n# %%\nprint(x * 21)\n# %% a titled cell\nx ** 10\n# %%\n1 / 0\n# %%\nprint('after', x)\n");
        Path notebook = dir.resolve("out.ipynb");

        CliRunner.Result r = new CliRunner(dir).run("session", "--sandbox", "process", "--notebook", notebook.toString(),
                cells.toString());

        assertThat(r.status()).as(r.toString()).isEqualTo(1);
        assertThat(r.out()).as(r.toString()).contains("── cell 2: OK\n42\n", "── cell 3: OK\n1024\n",
                "── cell 4: ERROR\nZeroDivisionError: division by zero\n", "── cell 5: OK\nafter 2\n");
        JsonNode nb = new ObjectMapper().readTree(Files.readString(notebook, StandardCharsets.UTF_8));
        assertThat(nb.get("nbformat").asInt()).isEqualTo(4);
        assertThat(nb.get("nbformat_minor").asInt()).isEqualTo(5);
        assertThat(nb.get("cells")).hasSize(5);
        assertThat(nb.get("cells").get(2).get("outputs").get(0).get("output_type").asText()).isEqualTo("execute_result");
        assertThat(nb.get("cells").get(3).get("outputs").get(0).get("ename").asText()).isEqualTo("ZeroDivisionError");
        assertThat(python("import nbformat, sys\nnbformat.validate(nbformat.read(sys.argv[1], as_version=4))", notebook.toString()))
                .as("nbformat.validate accepts it").isZero();
    }

    @Test
    void aFileWithoutCellsIsAUsageError() throws IOException {
        Path cells = Files.writeString(dir.resolve("empty.py"), "# %%\n\n# %%\n");
        CliRunner.Result r = new CliRunner(dir).run("session", cells.toString());
        assertThat(r.status()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("no cells");
    }

    private static int python(String code, String... args) {
        try {
            java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(PYTHON.toString(), "-I", "-c", code));
            cmd.addAll(java.util.List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
