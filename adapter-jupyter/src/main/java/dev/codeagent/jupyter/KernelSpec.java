package dev.codeagent.jupyter;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.codeagent.application.host.PrivateDirectory;
import dev.codeagent.application.host.ReplacedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The kernelspec that lets any Jupyter client start the codeagent kernel: a directory {@code kernels/NAME} holding
 * {@code kernel.json}, found by Jupyter under its data directories ({@code jupyter kernelspec list} shows it).
 *
 * @param name the kernel's name, what {@code --kernel_name} and a notebook's metadata refer to
 * @param command the command that starts the kernel, before the connection file's place
 */
public record KernelSpec(String name, List<String> command) {

    /** Jupyter's own rule for kernel names. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public KernelSpec {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a kernel name is 1 to 64 letters, digits, '.', '_' or '-', not '" + name + "'");
        }
        command = List.copyOf(command);
        if (command.isEmpty()) {
            throw new IllegalArgumentException("the kernel's command is empty");
        }
    }

    /** {@code kernel.json}: the command with {@code {connection_file}}, Python's language, interrupts as messages. */
    public String json() {
        Map<String, Object> spec = new LinkedHashMap<>();
        List<String> argv = new ArrayList<>(command);
        argv.add("{connection_file}");
        spec.put("argv", argv);
        spec.put("display_name", "codeagent".equals(name) ? "codeagent (sandboxed Python)" : "codeagent (" + name + ")");
        spec.put("language", "python");
        // Jupyter's default is SIGINT to the kernel process: that would reach the JVM, not the sandboxed code
        spec.put("interrupt_mode", "message");
        spec.put("metadata", Map.of("debugger", false));
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(spec) + "\n";
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Writes {@code kernels/NAME/kernel.json} under a Jupyter data directory, whole or not at all, replacing an
     * earlier one of the same name. The directory, and every one above it, must be this user's or root's and
     * writable by no one else ({@link PrivateDirectory}): Jupyter runs whatever command {@code kernel.json} names, so
     * a directory another user made first (say a {@code --prefix} under {@code /tmp}) would let them swap the file.
     *
     * @return the kernelspec's directory
     * @throws IOException when it cannot be written, or another user could change it (the message names it)
     */
    public Path installInto(Path dataDir) throws IOException {
        Path dir = dataDir.resolve("kernels").resolve(name);
        PrivateDirectory.ensure(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        ReplacedFile.write(dir.resolve("kernel.json"), json().getBytes(StandardCharsets.UTF_8), null);
        return dir;
    }

    /** Jupyter's per-user data directory on Linux: $JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else ~/.local/share/jupyter. */
    public static Path userDataDir(Map<String, String> env) {
        String jupyter = env.get("JUPYTER_DATA_DIR");
        if (jupyter != null && !jupyter.isBlank()) {
            return Path.of(jupyter);
        }
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "jupyter");
        }
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        return Path.of(home, ".local", "share", "jupyter");
    }

    /** The data directory of an installation prefix, as {@code jupyter kernelspec install --prefix} uses it. */
    public static Path prefixDataDir(Path prefix) {
        return prefix.resolve("share").resolve("jupyter");
    }
}
