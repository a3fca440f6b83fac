package dev.codeagent.kit.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The one wire format between the JVM and a sandbox's in-sandbox supervisor (the process tier's pre-started
 * bootstrap, the docker tier's pid-1 supervisor): a decimal byte count and a newline, then that many bytes of
 * one UTF-8 JSON object. Every supervisor reads the same keys:
 * <ul>
 *   <li>{@code files}: file name to content, written into the work directory;</li>
 *   <li>{@code binary}: file name to the base64 of its bytes, decoded and written there byte for byte;</li>
 *   <li>{@code argv}: the interpreter command, file name and arguments;</li>
 *   <li>{@code env}: the program's whole environment;</li>
 *   <li>{@code rlimits}: {@code RLIMIT_*} name (as Python's {@code resource} module has it) to
 *       {@code [soft, hard]}, set before the program starts;</li>
 * </ul>
 * and a tier may add keys of its own (the docker supervisor's {@code stdin}, {@code nonce}, {@code backstop}).
 * What follows the object on the same stream is the supervisor's business (the process tier streams the
 * program's stdin after it). A supervisor reads no byte past the object.
 */
public final class SupervisorJob {

    /** The longest header a supervisor accepts (digits and newline); a longer one is not a job. */
    public static final int MAX_HEADER = 24;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Object> body = new LinkedHashMap<>();
    private final Map<String, long[]> rlimits = new LinkedHashMap<>();

    public SupervisorJob(Map<String, String> files, List<String> argv, Map<String, String> env) {
        this(files, Map.of(), argv, env);
    }

    /**
     * @param binary files written byte for byte, each as the standard base64 of its bytes (the supervisors decode
     *     them: JSON strings carry text, and a file's bytes need not be UTF-8)
     */
    public SupervisorJob(Map<String, String> files, Map<String, String> binary, List<String> argv, Map<String, String> env) {
        body.put("files", new LinkedHashMap<>(Objects.requireNonNull(files, "files")));
        body.put("binary", new LinkedHashMap<>(Objects.requireNonNull(binary, "binary")));
        body.put("argv", List.copyOf(argv));
        body.put("env", new LinkedHashMap<>(Objects.requireNonNull(env, "env")));
        body.put("rlimits", rlimits);
    }

    /** Adds an rlimit by its name in Python's resource module ({@code RLIMIT_CPU}). */
    public SupervisorJob rlimit(String name, long soft, long hard) {
        if (!name.startsWith("RLIMIT_")) {
            throw new IllegalArgumentException("not an rlimit name: " + name);
        }
        rlimits.put(name, new long[] {soft, hard});
        return this;
    }

    /** Adds a key of the tier's own. */
    public SupervisorJob with(String key, Object value) {
        if (List.of("files", "binary", "argv", "env", "rlimits").contains(key)) {
            throw new IllegalArgumentException(key + " is a shared key of the job");
        }
        body.put(key, value);
        return this;
    }

    /**
     * A supervisor script shipped as a resource beside {@code owner}, without its comment lines and blank
     * lines: it is passed in argv ({@code python3 -c}), where the program can read it in /proc, so it carries
     * only code.
     *
     * @throws IllegalStateException when the resource is missing from the jar
     */
    public static String script(Class<?> owner, String name) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing beside " + owner.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isBlank() && !l.stripLeading().startsWith("#"))
                    .collect(Collectors.joining("\n", "", "\n"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + name + " beside " + owner.getName(), e);
        }
    }

    /** The header and the JSON object. */
    public byte[] encode() {
        byte[] json;
        try {
            json = JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a supervisor job", e);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(json.length + 16);
        out.writeBytes((json.length + "\n").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(json);
        return out.toByteArray();
    }
}
