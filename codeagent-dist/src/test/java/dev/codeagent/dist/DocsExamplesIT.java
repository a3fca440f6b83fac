package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tried as a new user would: every {@code ./codeagent} command in the README's and docs' {@code ```console} and
 * {@code ```bash} blocks is run as written, from a fresh copy of the checkout's examples with a home directory of
 * its own (no user config, no earlier runs), through the real launcher. A command fails the test when it no longer
 * works as written: a usage error (exit 2) the docs do not show, an unexpected error or a stack trace, a non-zero
 * exit the docs do not show, or a {@code codeagent: …} line or {@code exit N} the docs show that the command no
 * longer prints. What cannot run here is skipped with its reason shown (a model, Docker, a server, a dataset that is
 * not in the repository). Cheap: a JVM per command, no daemon, a few seconds in all.
 */
@Tag("slow")
class DocsExamplesIT {

    private static final Path ROOT = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();
    private static final Pattern BLOCK = Pattern.compile("```(console|bash)\\n(.*?)```", Pattern.DOTALL);
    /** Words of a command that name a file it reads: relative paths with an extension. */
    private static final Pattern FILE_ARG = Pattern.compile("(?<![\\w/$=\".-])((?:[\\w.-]+/)*[\\w-]+\\.(?:jsonl|json|py|c|yaml|yml|ipynb|gz))\\b");
    /** Options whose file is written, not read. */
    private static final Pattern OUTPUT_OPTION = Pattern.compile("--(out|output|notebook)\\s+\\S+");

    @TempDir
    static Path home;

    /** One documented command: its shell line, the output the docs show under it, and where it is written. */
    record Example(String where, String command, List<String> shown, boolean console) {
    }

    @TestFactory
    Stream<DynamicTest> everyDocumentedCommandWorksAsWritten() throws IOException {
        List<Example> examples = new ArrayList<>();
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        for (Path page : pages) {
            examples.addAll(examples(ROOT.relativize(page).toString(), Files.readString(page)));
        }
        assertThat(examples).as("the README and docs show ./codeagent commands").hasSizeGreaterThan(5);
        return examples.stream().map(e -> DynamicTest.dynamicTest(e.where() + ": " + e.command(), () -> check(e)));
    }

    static List<Example> examples(String page, String text) {
        List<Example> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            boolean console = m.group(1).equals("console");
            int line = text.substring(0, m.start()).split("\n", -1).length;
            String[] lines = m.group(2).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String l = lines[i].strip();
                if (console) {
                    if (!l.startsWith("$ ")) {
                        continue;
                    }
                    l = l.substring(2);
                }
                if (!l.contains("./codeagent") || !(l.startsWith("./codeagent") || console)) {
                    continue;
                }
                StringBuilder command = new StringBuilder(l);
                while (command.toString().endsWith("\\") && i + 1 < lines.length) {
                    command.setLength(command.length() - 1);
                    command.append(' ').append(lines[++i].strip());
                }
                List<String> shown = new ArrayList<>();
                for (int j = i + 1; console && j < lines.length && !lines[j].startsWith("$ "); j++) {
                    shown.add(lines[j]);
                }
                out.add(new Example(page + ":" + (line + i + 1), command.toString().replaceFirst("\\s+#.*$", ""), shown, console));
            }
        }
        return out;
    }

    /** Why this command cannot run here, or null. */
    static String skipReason(Example e, Path work) {
        String c = e.command();
        if (c.contains("--generator openai") || c.contains("--llm-") || c.contains("generator.openai")) {
            return "needs a model server (generator openai)";
        }
        if (c.contains("--sandbox docker")) {
            return "needs Docker";
        }
        if (c.matches(".*\\./codeagent serve\\b.*")) {
            return "starts a server that runs until stopped (ServeUsageTest and the HTTP ITs cover it)";
        }
        if (c.matches(".*\\./codeagent jupyter install\\s*$")) {
            return "installs into this user's own Jupyter directory (JupyterNotebookIT installs with --prefix)";
        }
        // a usage error the docs show comes before any file is read: it runs without the file
        boolean shownUsageError = e.shown().contains("exit 2");
        String reads = shownUsageError ? "" : OUTPUT_OPTION.matcher(c).replaceAll("");
        Matcher f = FILE_ARG.matcher(reads);
        while (f.find()) {
            String name = f.group(1);
            if (!Files.exists(work.resolve(name)) && !name.startsWith("codeagent-dist/")) {
                return "needs " + name + ", which is not in the repository (a dataset or a file the text describes)";
            }
        }
        return null;
    }

    private void check(Example e) throws Exception {
        Path work = Files.createTempDirectory(home, "checkout-");
        copy(ROOT.resolve("examples"), work.resolve("examples"));
        Files.createSymbolicLink(work.resolve("codeagent"), ROOT.resolve("codeagent"));
        String skip = skipReason(e, work);
        // the reasons in the build's output, where a reader of the log sees what was not tried and why
        System.out.println("DocsExamplesIT " + (skip == null ? "runs    " : "skips   ") + e.where() + ": " + e.command()
                + (skip == null ? "" : "\n    because it " + skip));
        org.junit.jupiter.api.Assumptions.assumeTrue(skip == null, () -> "skipped: " + skip);

        ProcessBuilder pb = new ProcessBuilder("bash", "-c", e.command()).directory(work.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("CODEAGENT_"));
        env.put("HOME", Files.createDirectories(work.resolve("home")).toString());
        env.remove("XDG_RUNTIME_DIR");
        env.put("CODEAGENT_SKIP_BUILD", "1");
        env.put("CODEAGENT_NO_DAEMON", "1");
        Process p = pb.start();
        p.getOutputStream().close();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(e.command()).isTrue();
        int status = p.exitValue();
        String what = e.where() + ": " + e.command() + "\n--- it said (status " + status + ")\n" + said;

        assertThat(said).as(what).doesNotContain("unexpected error", "Exception", "\tat ");
        List<String> claims = new ArrayList<>();
        for (String line : e.shown()) {
            if (line.startsWith("codeagent: ") || line.matches("exit \\d+")) {
                claims.add(line);
            }
        }
        for (String claim : claims) {
            // the words up to the first number (times, run ids and counts differ from run to run)
            String stable = claim.split("\\d", 2)[0];
            assertThat(said).as(what + "\n--- the docs show: " + claim).contains(stable.length() > 12 ? stable : claim);
        }
        if (claims.isEmpty()) {
            assertThat(status).as(what + "\n--- the docs show no failure for it").isZero();
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
