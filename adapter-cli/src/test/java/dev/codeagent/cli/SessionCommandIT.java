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
    void solveWithASessionKeepsWhatAnAttemptDefinedAndTheJudgeStillDecides() throws IOException {
        ObjectMapper json = new ObjectMapper();
        // attempt 1 loads the data and gets the function wrong; attempt 2 uses the data it did not load itself
        Path replay = Files.writeString(dir.resolve("steps.jsonl"),
                json.writeValueAsString(java.util.Map.of("reply", "```python\ndata = [3, 1, 2]\nprint('loaded', len(data))\n"
                        + "def smallest_first():\n    return data\n```")) + "\n"
                + json.writeValueAsString(java.util.Map.of("reply", "```python\ndef smallest_first():\n    return sorted(data)\n```"))
                + "\n");
        Path tests = Files.writeString(dir.resolve("tests.py"), "assert smallest_first() == [1, 2, 3]\n");

        CliRunner.Result r = new CliRunner(dir).run("solve", "--session", "--sandbox", "process", "--json", "--replay",
                replay.toString(), "--tests", tests.toString(), "sort the data, smallest first");
        assertThat(r.status()).as(r.toString()).isZero();
        JsonNode run = json.readTree(r.out());
        assertThat(run.get("status").asText()).isEqualTo("SOLVED");
        assertThat(run.get("attempts")).hasSize(2);
        assertThat(run.get("attempts").get(0).get("verdict").get("kind").asText()).isEqualTo("WRONG_ANSWER");
        assertThat(run.get("attempts").get(1).get("verdict").get("kind").asText()).isEqualTo("ACCEPTED");

        // the same replies without the session: attempt 2's code alone has no data, and the judge says so
        CliRunner.Result alone = new CliRunner(dir).run("solve", "--sandbox", "process", "--json", "--replay",
                replay.toString(), "--tests", tests.toString(), "sort the data, smallest first");
        assertThat(alone.status()).as(alone.toString()).isEqualTo(1);
        JsonNode second = json.readTree(alone.out()).get("attempts").get(1);
        assertThat(second.get("verdict").get("kind").asText()).isEqualTo("RUNTIME_ERROR");
        assertThat(second.get("verdict").get("error").get("type").asText()).isEqualTo("NameError");

        CliRunner.Result mixed = new CliRunner(dir).run("solve", "--session", "--language", "javascript", "--replay",
                replay.toString(), "x");
        assertThat(mixed.status()).isEqualTo(2);
        assertThat(mixed.err()).contains("--session runs Python; this task is javascript");
    }

    @Test
    void theNotebookReRunsUnderJupyterNbconvertWithTheSameOutputTypes() throws Exception {
        Path nbconvert = Path.of("/usr/bin/jupyter-nbconvert");
        // CI installs it (.ci/run); a developer machine without it skips
        assumeTrue(Files.isExecutable(nbconvert) || "true".equals(System.getenv("CI")),
                "needs Debian's jupyter-nbconvert");
        Path cells = Files.writeString(dir.resolve("cells.py"), "import math\nr = 2\n# %%\nprint(round(math.pi * r ** 2, 3))\n"
                + "# %%\nfrom IPython.display import HTML, display\ndisplay(HTML('<b>bold</b>'))\nr ** 10\n# %%\n1 / 0\n");
        Path notebook = dir.resolve("out.ipynb");
        CliRunner.Result r = new CliRunner(dir).run("session", "--sandbox", "process", "--notebook", notebook.toString(),
                cells.toString());
        assertThat(r.status()).as(r.toString()).isEqualTo(1);

        // the notebook names the codeagent kernel it ran in, and is readable like files Jupyter writes (umask, not 0600)
        JsonNode written = new ObjectMapper().readTree(notebook.toFile());
        assertThat(written.get("metadata").get("kernelspec").get("name").asText()).isEqualTo("codeagent");
        Path probe = Files.createFile(dir.resolve("made-with-the-umask"));
        assertThat(Files.getPosixFilePermissions(notebook)).isEqualTo(Files.getPosixFilePermissions(probe));
        try (var left = Files.list(dir)) {
            assertThat(left.map(f -> f.getFileName().toString())).noneMatch(n -> n.startsWith(".codeagent-notebook-"));
        }
        // nbconvert runs the cells again in a kernel of its own (Debian's python3 kernelspec, /usr/bin/python3, named
        // here since the notebook names the codeagent kernel, which this test does not install)
        Process p = new ProcessBuilder(nbconvert.toString(), "--to", "notebook", "--execute", "--allow-errors",
                "--ExecutePreprocessor.kernel_name=python3", "--ExecutePreprocessor.timeout=60", "--output", "rerun.ipynb", notebook.toString())
                .directory(dir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(said).isZero();
        ObjectMapper json = new ObjectMapper();
        JsonNode ours = json.readTree(notebook.toFile());
        JsonNode theirs = json.readTree(dir.resolve("rerun.ipynb").toFile());
        assertThat(outputs(theirs)).isEqualTo(outputs(ours))
                .containsExactly("", "stream:12.566\n", "display_data:text/html,text/plain|execute_result:text/plain",
                        "error:ZeroDivisionError");
    }

    /** Per cell, its outputs' types and what identifies them (a stream's text, a bundle's MIME types, an error's name). */
    private static java.util.List<String> outputs(JsonNode notebook) {
        java.util.List<String> cells = new java.util.ArrayList<>();
        for (JsonNode cell : notebook.get("cells")) {
            java.util.List<String> outs = new java.util.ArrayList<>();
            for (JsonNode o : cell.get("outputs")) {
                String type = o.get("output_type").asText();
                String what = switch (type) {
                    case "stream" -> String.join("", text(o.get("text")));
                    case "error" -> o.get("ename").asText();
                    default -> String.join(",", new java.util.TreeSet<>(iterable(o.get("data").fieldNames())));
                };
                outs.add(type + ":" + what);
            }
            cells.add(String.join("|", outs));
        }
        return cells;
    }

    private static java.util.List<String> text(JsonNode t) {
        if (t.isTextual()) {
            return java.util.List.of(t.asText());
        }
        java.util.List<String> lines = new java.util.ArrayList<>();
        t.forEach(l -> lines.add(l.asText()));
        return lines;
    }

    private static <T> java.util.List<T> iterable(java.util.Iterator<T> it) {
        java.util.List<T> all = new java.util.ArrayList<>();
        it.forEachRemaining(all::add);
        return all;
    }

    @Test
    void withoutAFileItIsAReplThatRunsEachCellAsItComesAndSavesImagesByName() throws IOException {
        boolean plots = python("import matplotlib, matplotlib_inline") == 0;
        Path images = Files.createDirectory(dir.resolve("images"));
        String cells = "x = 6\n\ndef f(y):\n    return x * y\n\nprint(f(7))\n# %%\n1 / 0\n\n"
                + (plots ? "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()\n" : "");
        CliRunner.Result r = new CliRunner(dir).runWithStdin(cells, "session", "--sandbox", "process", "--images",
                images.toString());
        assertThat(r.status()).as(r.toString()).isEqualTo(1);
        assertThat(r.out()).as(r.toString()).contains("── cell 1: OK\n", "── cell 3: OK\n42\n",
                "── cell 4: ERROR\nZeroDivisionError: division by zero\n");
        if (plots) {
            Path png = images.resolve("cell-5-1.png");
            assertThat(r.out()).contains("── cell 5: OK\n", "-> " + png);
            assertThat(Files.readAllBytes(png)).startsWith(0x89, 'P', 'N', 'G');
        }
    }

    @Test
    void aNotebookThatCannotBeWrittenFailsBeforeAnyCellRuns() throws IOException {
        Path cells = Files.writeString(dir.resolve("cells.py"), "open('ran', 'w').write('x')\n");
        CliRunner.Result r = new CliRunner(dir).run("session", "--sandbox", "process", "--notebook", "/nonexistent/x.ipynb",
                cells.toString());
        assertThat(r.status()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).startsWith("codeagent: --notebook /nonexistent/x.ipynb: ").contains("/nonexistent");
        assertThat(r.out()).as("no cell ran").doesNotContain("── cell");
    }

    @Test
    void anImagesDirectoryThatDoesNotExistYetIsMade() throws IOException {
        Path images = dir.resolve("plots/today");
        Path cells = Files.writeString(dir.resolve("cells.py"), "print(1)\n");
        CliRunner.Result r = new CliRunner(dir).run("session", "--sandbox", "process", "--images", images.toString(), cells.toString());
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(images).isDirectory();
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
