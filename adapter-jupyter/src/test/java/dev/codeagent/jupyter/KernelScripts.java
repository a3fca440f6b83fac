package dev.codeagent.jupyter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a Python client script (Debian's jupyter_client) against a kernelspec that starts this test's kernel. */
final class KernelScripts {

    private KernelScripts() {
    }

    /**
     * @param sets extra {@code --set KEY=VALUE} for the kernel, after the test's own (process tier, a temp run log)
     * @return the script's standard output, by line
     */
    static List<String> run(Path tmp, String script, List<String> args, List<String> sets, int timeoutSeconds) throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classPath, JupyterMain.class.getName(), "kernel",
                "--set", "sandbox.kind=process", "--set", "store.sqlite.path=" + tmp.resolve("runs.db"),
                "--set", "sandbox.docker.poolSize=0"));
        for (String set : sets) {
            command.addAll(List.of("--set", set));
        }
        Path data = KernelSpec.prefixDataDir(tmp.resolve("prefix"));
        new KernelSpec("codeagent", command).installInto(data);
        Path file = tmp.resolve(script);
        try (InputStream in = KernelScripts.class.getResourceAsStream(script)) {
            Files.copy(in, file);
        }
        List<String> python = new ArrayList<>(List.of("/usr/bin/python3", file.toString()));
        python.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(python).directory(tmp.toFile());
        pb.environment().put("JUPYTER_PATH", data.toString());
        pb.environment().put("JUPYTER_RUNTIME_DIR", tmp.resolve("runtime").toString());
        pb.environment().put("PYDEVD_DISABLE_FILE_VALIDATION", "1");
        Path out = tmp.resolve(script + ".out");
        Path err = tmp.resolve(script + ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the Jupyter client did not finish in " + timeoutSeconds + " s; stdout:\n"
                    + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("client exit status; stdout:\n" + stdout + "\nstderr:\n" + stderr).isZero();
        List<String> lines = stdout.lines().filter(l -> l.startsWith("{")).toList();
        assertThat(lines).as("stderr:\n" + stderr).isNotEmpty();
        return lines;
    }
}
