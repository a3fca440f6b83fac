package dev.codeagent.jupyter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelSpecTest {

    @TempDir
    Path tmp;

    @Test
    void kernelJsonStartsTheKernelWithTheConnectionFileAndTakesInterruptsAsMessages() throws Exception {
        Path dir = new KernelSpec("codeagent", List.of("/opt/codeagent/codeagent", "jupyter", "kernel"))
                .installInto(KernelSpec.prefixDataDir(tmp));
        assertThat(dir).isEqualTo(tmp.resolve("share/jupyter/kernels/codeagent"));
        JsonNode spec = new ObjectMapper().readTree(dir.resolve("kernel.json").toFile());
        assertThat(spec.get("argv").toString())
                .isEqualTo("[\"/opt/codeagent/codeagent\",\"jupyter\",\"kernel\",\"{connection_file}\"]");
        assertThat(spec.get("interrupt_mode").asText()).isEqualTo("message");
        assertThat(spec.get("language").asText()).isEqualTo("python");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("kernel.json");
        }
    }

    @Test
    void refusesAPrefixAnotherUserMadeFirst() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.codeagent.application.host.PrivateDirectory.currentUid() == 0,
                "needs root to hand a directory to another uid");
        Path theirs = Files.createDirectory(tmp.resolve("ca"));
        Files.setAttribute(theirs, "unix:uid", 4242);
        assertThatThrownBy(() -> new KernelSpec("codeagent", List.of("/opt/codeagent/codeagent", "jupyter", "kernel"))
                .installInto(KernelSpec.prefixDataDir(theirs)))
                .isInstanceOf(dev.codeagent.application.host.PrivateDirectory.InsecurePathException.class)
                .hasMessageContaining(theirs.toString()).hasMessageContaining("uid 4242");
        assertThat(theirs.resolve("share")).doesNotExist();
    }

    @Test
    void refusesALinkWhereTheKernelsDirectoryShouldBe() throws Exception {
        Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
        Path kernels = Files.createDirectories(tmp.resolve("ca/share/jupyter/kernels"));
        Files.createSymbolicLink(kernels.resolve("codeagent"), elsewhere);
        assertThatThrownBy(() -> new KernelSpec("codeagent", List.of("x")).installInto(KernelSpec.prefixDataDir(tmp.resolve("ca"))))
                .hasMessageContaining("symbolic link");
        try (var files = Files.list(elsewhere)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void refusesANameJupyterWouldNot() {
        assertThatThrownBy(() -> new KernelSpec("../evil", List.of("x"))).hasMessageContaining("not '../evil'");
    }

    @Test
    void usersDataDirectoryFollowsJupytersRules() {
        assertThat(KernelSpec.userDataDir(Map.of("JUPYTER_DATA_DIR", "/j", "HOME", "/h"))).isEqualTo(Path.of("/j"));
        assertThat(KernelSpec.userDataDir(Map.of("XDG_DATA_HOME", "/x", "HOME", "/h"))).isEqualTo(Path.of("/x/jupyter"));
        assertThat(KernelSpec.userDataDir(Map.of("HOME", "/h"))).isEqualTo(Path.of("/h/.local/share/jupyter"));
    }

    @Test
    void installRecordsTheConfigChoicesInTheKernelsCommand() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = JupyterMain.run(List.of("jupyter", "install", "--prefix", tmp.toString(), "--sandbox", "process",
                "--set", "solve.maxAttempts=4"), Map.of("HOME", tmp.toString()), print(out), print(err));
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode argv = new ObjectMapper().readTree(tmp.resolve("share/jupyter/kernels/codeagent/kernel.json").toFile()).get("argv");
        assertThat(argv.toString()).endsWith("\"jupyter\",\"kernel\",\"--set\",\"sandbox.kind=process\",\"--set\","
                + "\"solve.maxAttempts=4\",\"{connection_file}\"]");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("installed the 'codeagent' kernel in " + tmp);
    }

    @Test
    void refusesToWriteASecretIntoTheKernelspec() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = JupyterMain.run(List.of("install", "--prefix", tmp.toString(), "--set", "generator.openai.apiKey=sk-123"),
                Map.of("HOME", tmp.toString()), print(new ByteArrayOutputStream()), print(err));
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("would write a secret into kernel.json")
                .contains("CODEAGENT_GENERATOR_OPENAI_API_KEY").doesNotContain("sk-123");
        assertThat(tmp.resolve("share/jupyter/kernels/codeagent/kernel.json")).doesNotExist();
    }

    @Test
    void badUsageIsOneLineAndStatusTwo() {
        for (List<String> args : List.of(List.of("install", "--user", "--prefix", "/p"), List.of("kernel"), List.of("frobnicate"),
                List.of("install", "--set", "nonsense"), List.of("install", "--set", "no.such.key=1"))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = JupyterMain.run(args, Map.of("HOME", tmp.toString()), print(new ByteArrayOutputStream()), print(err));
            assertThat(status).as(args.toString()).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8)).as(args.toString()).startsWith("codeagent jupyter: ")
                    .doesNotContain("Exception").doesNotContain("\tat ");
            assertThat(err.toString(StandardCharsets.UTF_8).strip().lines().count()).as(args.toString()).isEqualTo(1);
        }
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }
}
