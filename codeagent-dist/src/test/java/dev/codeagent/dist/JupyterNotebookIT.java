package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's notebook walk-through, as written: {@code ./codeagent jupyter install}, then Jupyter's own
 * {@code nbconvert --execute} runs {@code examples/codeagent-kernel.ipynb} on the codeagent kernel, and the executed
 * notebook's outputs are read back: state across cells, an error cell, a PNG, a {@code %%solve} (the replay
 * generator: a first attempt that fails, a fix) whose code the next cell calls, the run in {@code %runs}.
 */
@Tag("slow")
class JupyterNotebookIT {

    private static final Path ROOT = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void nbconvertExecutesTheExampleNotebookOnTheCodeagentKernel() throws Exception {
        Path prefix = dir.resolve("prefix");
        run(List.of(ROOT.resolve("codeagent").toString(), "jupyter", "install", "--prefix", prefix.toString(),
                "--sandbox", "process", "--set", "store.sqlite.path=" + dir.resolve("runs.db"),
                "--set", "generator.kind=replay", "--set", "generator.replay.file=" + ROOT.resolve("examples/middle.replay.jsonl")),
                prefix);
        assertThat(prefix.resolve("share/jupyter/kernels/codeagent/kernel.json")).exists();
        // Jupyter lists it (Debian ships no jupyter-kernelspec entry point: the same app, run as a module)
        Path listed = dir.resolve("kernelspecs.json");
        run(List.of("/usr/bin/python3", "-c", "import json, sys\nfrom jupyter_client.kernelspec import KernelSpecManager\n"
                + "open(sys.argv[1], 'w').write(json.dumps(KernelSpecManager().get_all_specs()))", listed.toString()), prefix);
        JsonNode spec = new ObjectMapper().readTree(listed.toFile()).get("codeagent");
        assertThat(spec).as("kernelspecs Jupyter finds").isNotNull();
        assertThat(spec.get("spec").get("argv").get(0).asText()).isEqualTo(ROOT.resolve("codeagent").toString());

        run(List.of("/usr/bin/jupyter-nbconvert", "--to", "notebook", "--execute", "--allow-errors",
                "--ExecutePreprocessor.kernel_name=codeagent", "--ExecutePreprocessor.timeout=180",
                ROOT.resolve("examples/codeagent-kernel.ipynb").toString(), "--output-dir", dir.toString(), "--output", "out.ipynb"),
                prefix);
        Path out = dir.resolve("out.ipynb");
        // what nbconvert wrote is a valid notebook by nbformat's own validator
        run(List.of("/usr/bin/python3", "-c", "import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))",
                out.toString()), prefix);

        List<JsonNode> cells = new ArrayList<>();
        new ObjectMapper().readTree(out.toFile()).get("cells").forEach(c -> {
            if (c.get("cell_type").asText().equals("code")) {
                cells.add(c);
            }
        });
        assertThat(text(cell(cells, "%sandbox"))).contains("sandbox process");
        assertThat(text(cell(cells, "x = 21"))).isEqualTo("x is 21\n");
        assertThat(result(cell(cells, "x * 2"))).as("state across cells").isEqualTo("42");
        JsonNode error = only(cell(cells, "1 / 0"), "error");
        assertThat(error.get("ename").asText()).isEqualTo("ZeroDivisionError");
        JsonNode png = only(cell(cells, "import matplotlib"), "display_data").get("data").get("image/png");
        assertThat(java.util.Base64.getMimeDecoder().decode(join(png))).startsWith(0x89, 'P', 'N', 'G');
        assertThat(text(cell(cells, "%%tests"))).contains("tests kept for the next %%solve");
        String solve = text(cell(cells, "%%solve"));
        assertThat(solve).contains("attempt 1/3: RUNTIME_ERROR IndexError: list index out of range (line 6")
                .contains("attempt 2/3: ACCEPTED").contains("solved on attempt 2/3");
        assertThat(join(only(cell(cells, "%%solve"), "display_data").get("data").get("text/html")))
                .startsWith("<pre><code class=\"language-python\">def middle(xs):");
        assertThat(result(cell(cells, "middle(["))).as("the accepted code is defined in the session").isEqualTo("23");
        String runId = solve.replaceAll("(?s).*\\(run ([a-z0-9]{16})\\).*", "$1");
        assertThat(join(only(cell(cells, "%runs"), "display_data").get("data").get("text/plain"))).contains(runId).contains("SOLVED");
    }

    private void run(List<String> command, Path prefix) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        env.put("CODEAGENT_SKIP_BUILD", "1");
        env.put("JUPYTER_PATH", prefix.resolve("share/jupyter").toString());
        env.put("JUPYTER_RUNTIME_DIR", dir.resolve("runtime").toString());
        env.put("PYDEVD_DISABLE_FILE_VALIDATION", "1");
        Path log = Files.createTempFile(dir, "run", ".log");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command.get(0) + " did not finish in 300 s:\n" + Files.readString(log));
        }
        assertThat(p.exitValue()).as(String.join(" ", command) + ":\n" + Files.readString(log)).isZero();
    }

    private static JsonNode cell(List<JsonNode> cells, String startsWith) {
        return cells.stream().filter(c -> source(c).startsWith(startsWith)).findFirst()
                .orElseThrow(() -> new AssertionError("no cell starts with " + startsWith));
    }

    private static String source(JsonNode cell) {
        return join(cell.get("source"));
    }

    private static String join(JsonNode textOrLines) {
        if (textOrLines.isArray()) {
            StringBuilder s = new StringBuilder();
            textOrLines.forEach(l -> s.append(l.asText()));
            return s.toString();
        }
        return textOrLines.asText();
    }

    /** The cell's stdout. */
    private static String text(JsonNode cell) {
        StringBuilder s = new StringBuilder();
        cell.get("outputs").forEach(o -> {
            if (o.get("output_type").asText().equals("stream") && o.get("name").asText().equals("stdout")) {
                s.append(join(o.get("text")));
            }
        });
        return s.toString();
    }

    private static String result(JsonNode cell) {
        return join(only(cell, "execute_result").get("data").get("text/plain"));
    }

    private static JsonNode only(JsonNode cell, String outputType) {
        List<JsonNode> found = new ArrayList<>();
        cell.get("outputs").forEach(o -> {
            if (o.get("output_type").asText().equals(outputType)) {
                found.add(o);
            }
        });
        assertThat(found).as(outputType + " outputs of " + source(cell) + ": " + cell.get("outputs")).hasSize(1);
        return found.get(0);
    }
}
