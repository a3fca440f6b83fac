package dev.codeagent.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's embedding block, done exactly as the README says: the block is cut out of README.md as it is on disk,
 * compiled as the body of a {@code main} with only this module's classpath (the application and the process adapter),
 * run, and its output checked against the comment the README puts beside it. An edit that breaks the block fails here.
 */
class ReadmeSnippetTest {

    private static final Path README = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent()
            .resolve("README.md");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern EXPECTED = Pattern.compile("System\\.out\\.println\\(.*?//\\s*(.+)$", Pattern.MULTILINE);

    @Test
    void theReadmesEmbeddingBlockCompilesAndPrintsWhatItSays(@TempDir Path dir) throws Exception {
        String readme = Files.readString(README);
        Matcher block = JAVA_BLOCK.matcher(readme);
        assertThat(block.find()).as("a ```java block in " + README).isTrue();
        String snippet = block.group(1);
        Matcher expected = EXPECTED.matcher(snippet);
        assertThat(expected.find()).as("the block prints something and says what, in a comment").isTrue();

        Path source = dir.resolve("Snippet.java");
        Files.writeString(source, String.join("\n",
                "import dev.codeagent.application.CodeAgent;",
                "import dev.codeagent.application.config.ConfigLoader;",
                "import dev.codeagent.domain.execution.*;",
                "public class Snippet {",
                "    public static void main(String[] args) {",
                snippet,
                "    }",
                "}"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = javac.run(null, diagnostics, diagnostics, "-d", dir.toString(),
                "-cp", System.getProperty("java.class.path"), source.toString());
        assertThat(status).as("javac: " + diagnostics.toString(StandardCharsets.UTF_8)).isZero();

        PrintStream stdout = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass("Snippet").getMethod("main", String[].class);
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(stdout);
        }
        assertThat(List.of(printed.toString(StandardCharsets.UTF_8).strip().split("\n")))
                .contains(expected.group(1).strip());
    }
}
