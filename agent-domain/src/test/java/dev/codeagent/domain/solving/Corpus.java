package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The traceback corpus in src/test/resources/tracebacks: one directory per case holding the model's
 * code (code.py), the task's tests (tests.py, optional), the program that ran (main.py) and what
 * CPython 3.11 wrote on stderr running it (stderr.txt). generate.py there regenerates it.
 */
final class Corpus {

    private Corpus() {
    }

    static final class Case {
        final String name;
        final String code;
        final String tests;
        final String program;
        final String stderr;

        Case(String name) {
            this.name = name;
            // the code as the extractor hands it over: without its final line break
            this.code = read(name + "/code.py").replaceAll("\\n+$", "");
            this.tests = exists(name + "/tests.py") ? read(name + "/tests.py") : null;
            this.program = read(name + "/main.py");
            this.stderr = read(name + "/stderr.txt");
        }

        Task task() {
            return new Task("solve " + name, Language.PYTHON, tests, null, "", ResourceLimits.defaults(), 3);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Case load(String name) {
        return new Case(name);
    }

    static List<String> names() {
        try {
            Path dir = Path.of(Corpus.class.getResource("/tracebacks").toURI());
            try (Stream<Path> s = Files.list(dir)) {
                return s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean exists(String path) {
        return Corpus.class.getResource("/tracebacks/" + path) != null;
    }

    private static String read(String path) {
        try (InputStream in = Corpus.class.getResourceAsStream("/tracebacks/" + path)) {
            if (in == null) {
                throw new IllegalStateException("missing corpus file " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
