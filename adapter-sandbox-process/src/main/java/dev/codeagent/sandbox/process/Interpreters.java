package dev.codeagent.sandbox.process;

import dev.codeagent.application.compile.Toolchains;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The real interpreter binary of each language: a configured path, else the first of a list of system
 * locations. Only native executables count: a shell-script shim (pyenv's {@code python3}) costs hundreds
 * of milliseconds per start and would not work inside a minimal filesystem view.
 */
final class Interpreters {

    private final Map<Language, Path> binaries;

    private Interpreters(Map<Language, Path> binaries) {
        this.binaries = Collections.unmodifiableMap(binaries);
    }

    /**
     * @throws SandboxUnavailableException when a configured interpreter is missing or not a native binary
     */
    static Interpreters resolve(ProcessSandboxConfig config) {
        Map<Language, Path> found = new EnumMap<>(Language.class);
        put(found, Language.PYTHON, config.python(), "sandbox.process.python", pythonCandidates());
        put(found, Language.JAVASCRIPT, config.node(), "sandbox.process.node",
                List.of(Path.of("/usr/bin/node"), Path.of("/usr/local/bin/node"), Path.of("/usr/bin/nodejs")));
        put(found, Language.BASH, config.bash(), "sandbox.process.bash", List.of(Path.of("/bin/bash"), Path.of("/usr/bin/bash")));
        if (found.containsKey(Language.BASH)) {
            compilers(found);
        }
        return new Interpreters(found);
    }

    /**
     * The compiled languages whose tools ({@link Toolchains.Toolchain#tools}) the host has in /usr/bin, resolved
     * to files under /usr (the sandbox's view shows /usr and nothing else of the host's programs). Their stages are
     * Bash scripts, so Bash comes first. The language's entry is its first tool, the compiler.
     */
    private static void compilers(Map<Language, Path> into) {
        for (Language language : Language.values()) {
            Toolchains.Toolchain toolchain = Toolchains.of(language).orElse(null);
            if (toolchain == null) {
                continue;
            }
            List<Optional<Path>> found = toolchain.tools().stream().map(t -> nativeBinary(Path.of("/usr/bin", t))).toList();
            if (found.stream().allMatch(f -> f.filter(real -> real.startsWith("/usr")).isPresent())) {
                into.put(language, found.get(0).get());
            }
        }
    }

    Optional<Path> binary(Language language) {
        return Optional.ofNullable(binaries.get(language));
    }

    Map<Language, Path> all() {
        return binaries;
    }

    private static void put(Map<Language, Path> into, Language language, String configured, String key, List<Path> candidates) {
        if (configured != null && !configured.isBlank()) {
            Path p = Path.of(configured.trim());
            Optional<Path> real = nativeBinary(p);
            if (real.isEmpty()) {
                throw new SandboxUnavailableException(key + ": '" + configured + "' is not an executable native binary "
                        + "(point it at the real interpreter, e.g. /usr/bin/python3.11, not a shell shim)");
            }
            into.put(language, real.get());
            return;
        }
        for (Path c : candidates) {
            Optional<Path> real = nativeBinary(c);
            if (real.isPresent()) {
                into.put(language, real.get());
                return;
            }
        }
    }

    /** /usr/bin/python3 first (the distribution's default), then versioned binaries, newest first. */
    private static List<Path> pythonCandidates() {
        List<Path> c = new ArrayList<>();
        c.add(Path.of("/usr/bin/python3"));
        c.add(Path.of("/usr/local/bin/python3"));
        for (String dir : List.of("/usr/bin", "/usr/local/bin")) {
            try (Stream<Path> s = Files.list(Path.of(dir))) {
                s.filter(p -> p.getFileName().toString().matches("python3\\.\\d+"))
                        .sorted((a, b) -> Integer.compare(minor(b), minor(a)))
                        .forEach(c::add);
            } catch (IOException absent) {
                // no such directory on this host
            }
        }
        return c;
    }

    private static int minor(Path p) {
        return Integer.parseInt(p.getFileName().toString().substring("python3.".length()));
    }

    /** The path with links resolved, when it is an executable ELF file. */
    static Optional<Path> nativeBinary(Path p) {
        try {
            Path real = p.toRealPath();
            if (!Files.isRegularFile(real) || !Files.isExecutable(real)) {
                return Optional.empty();
            }
            byte[] magic = new byte[4];
            try (InputStream in = Files.newInputStream(real)) {
                if (in.readNBytes(magic, 0, 4) != 4) {
                    return Optional.empty();
                }
            }
            boolean elf = magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
            return elf ? Optional.of(real) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
