package dev.codeagent.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The C and Python that run inside the sandbox or beside it (supervisors, the launcher, the judge, the kernel bridge,
 * the zygote, the CLI's client) are security-critical code, not resources: every file under any module's
 * {@code src/main} is held to a compiler's and a linter's standard here, found on disk so that a new script is held
 * to it from its first commit.
 *
 * <p>C: compiled with the flags the runtime build uses ({@code -O2}, which changes what the compiler can see) plus
 * {@code -Wall -Wextra -Werror}; the runtime build itself stays as it is, so a warning a newer compiler adds cannot
 * break a user's first run. Python: {@code pyflakes} (unused imports, undefined names, shadowed definitions), run by
 * Debian's interpreter, which has it ({@code python3-pyflakes}, installed by {@code .ci/run}).
 */
class ScriptsAreCleanTest {

    private static final Path REPO = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();

    @Test
    void cCompilesWithoutAWarning() throws Exception {
        List<Path> sources = sources(".c");
        assertThat(sources).as("C sources found under " + REPO).hasSizeGreaterThanOrEqualTo(3);
        List<String> failures = new ArrayList<>();
        for (Path c : sources) {
            Result r = run(List.of("cc", "-O2", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", c.toString()));
            if (r.status() != 0) {
                failures.add(REPO.relativize(c) + ":\n" + r.output());
            }
        }
        assertThat(failures).as("C that warns under -Wall -Wextra -Werror").isEmpty();
    }

    @Test
    void pythonIsPyflakesClean() throws Exception {
        Result probe = run(List.of("/usr/bin/python3", "-c", "import pyflakes"));
        assertThat(probe.status()).as("pyflakes for /usr/bin/python3 (apt-get install python3-pyflakes): " + probe.output())
                .isZero();
        List<Path> sources = sources(".py");
        assertThat(sources).as("Python sources found under " + REPO).hasSizeGreaterThanOrEqualTo(5);
        List<String> command = new ArrayList<>(List.of("/usr/bin/python3", "-m", "pyflakes"));
        sources.forEach(p -> command.add(REPO.relativize(p).toString()));
        Result r = run(command);
        List<String> findings = new ArrayList<>();
        for (String line : r.output().lines().toList()) {
            if (!waived(line)) {
                findings.add(line);
            }
        }
        assertThat(findings).as("pyflakes findings (a deliberate one is waived by '# noqa: F401' on its line)").isEmpty();
    }

    /**
     * A finding its line waives as flake8 would: an import kept for its side effect (a zygote preloading what programs
     * import, a judge server importing once for its children) says so with {@code # noqa: F401}; nothing else is waived.
     */
    private static boolean waived(String finding) {
        String[] parts = finding.split(":", 3);
        if (parts.length < 3 || !finding.contains("imported but unused")) {
            return false;
        }
        try {
            List<String> lines = Files.readAllLines(REPO.resolve(parts[0]), StandardCharsets.UTF_8);
            String source = lines.get(Integer.parseInt(parts[1]) - 1);
            int noqa = source.indexOf("# noqa");
            return noqa >= 0 && (source.substring(noqa).contains("F401") || !source.substring(noqa).contains(":"));
        } catch (IOException | NumberFormatException | IndexOutOfBoundsException e) {
            return false;
        }
    }

    private static List<Path> sources(String suffix) throws IOException {
        List<Path> found = new ArrayList<>();
        try (Stream<Path> modules = Files.list(REPO)) {
            for (Path main : modules.map(m -> m.resolve("src/main")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(main)) {
                    files.filter(f -> f.getFileName().toString().endsWith(suffix)).sorted().forEach(found::add);
                }
            }
        }
        return found;
    }

    private record Result(int status, String output) {
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command.subList(0, 2)) + " did not finish in 120 s");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8).strip());
    }
}
