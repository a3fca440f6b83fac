package dev.codeagent.kit.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Python files of the split judge, shipped in this kit ({@code src/main/python}): {@code judge.py} (trusted,
 * runs the tests), {@code candidate.py} (runs the code under test and answers calls), {@code codeagent_wire.py} (the
 * data-only wire format both use) and {@code judge_server.py}. A tier places them, read-only, where the domain's
 * {@code JudgeJob} says the judge and the candidate run; the domain names no file and reads none.
 */
public final class JudgeScripts {

    public static final String JUDGE = "judge.py";
    public static final String CANDIDATE = "candidate.py";
    public static final String WIRE = "codeagent_wire.py";
    /** Judges a batch's jobs from one warm interpreter, a forked child per job (see {@code JudgeJob#batch()}). */
    public static final String SERVER = "judge_server.py";

    private static final String BASE = "/dev/codeagent/kit/sandbox/";
    private static final Map<String, String> FILES = load();

    private JudgeScripts() {
    }

    /** File name to text, for all four files. */
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
