package dev.codeagent.domain.execution;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Python files of the split judge, shipped in this module: {@code judge.py} (trusted, runs the tests),
 * {@code candidate.py} (runs the code under test and answers calls) and {@code codeagent_wire.py} (the data-only
 * wire format both use). A sandbox places them, read-only, where {@link JudgeJob} says they run.
 */
public final class JudgeScripts {

    public static final String JUDGE = "judge.py";
    public static final String CANDIDATE = "candidate.py";
    public static final String WIRE = "codeagent_wire.py";
    /** Judges a batch's jobs from one warm interpreter, a forked child per job (see {@link JudgeJob#batch()}). */
    public static final String SERVER = "judge_server.py";

    private static final String BASE = "/dev/codeagent/domain/solving/judge/";
    private static final Map<String, String> FILES = load();

    private JudgeScripts() {
    }

    /** File name to text, for all three files. */
    public static Map<String, String> files() {
        return FILES;
    }

    private static Map<String, String> load() {
        Map<String, String> files = new LinkedHashMap<>();
        for (String name : new String[] {JUDGE, CANDIDATE, WIRE, SERVER}) {
            try (InputStream in = JudgeScripts.class.getResourceAsStream(BASE + name)) {
                if (in == null) {
                    throw new IllegalStateException("judge script missing from the classpath: " + BASE + name);
                }
                files.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return java.util.Collections.unmodifiableMap(files);
    }
}
