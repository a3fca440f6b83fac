package dev.codeagent.domain.policy;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Static checks on source before it runs: forbidden Python modules and calls. Defence in depth
 * only — a determined program can hide an import from any static check, so the sandbox stays the
 * real boundary. The default policy forbids nothing.
 *
 * @param forbiddenModules top-level Python modules that may not be imported ({@code socket}, {@code ctypes})
 * @param forbiddenCalls names that may not be called ({@code eval}, {@code os.system})
 */
public record CodePolicy(Set<String> forbiddenModules, Set<String> forbiddenCalls) {

    private static final Pattern IMPORT = Pattern.compile(
            "^[ \\t]*(?:from\\s+([A-Za-z_][\\w.]*)\\s+import|import\\s+([A-Za-z_][\\w.]*(?:\\s*(?:as\\s+\\w+)?\\s*,\\s*[A-Za-z_][\\w.]*)*))",
            Pattern.MULTILINE);
    private static final Pattern DYNAMIC_IMPORT = Pattern.compile("(?:__import__|importlib\\.import_module)\\(\\s*['\"]([\\w.]+)['\"]");

    public CodePolicy {
        forbiddenModules = Set.copyOf(forbiddenModules);
        forbiddenCalls = Set.copyOf(forbiddenCalls);
    }

    public static CodePolicy permissive() {
        return new CodePolicy(Set.of(), Set.of());
    }

    /** A violation found in the program, or empty when it passes. Only Python is inspected. */
    public Optional<String> check(Program program) {
        Objects.requireNonNull(program, "program");
        if (program.language() != Language.PYTHON || (forbiddenModules.isEmpty() && forbiddenCalls.isEmpty())) {
            return Optional.empty();
        }
        List<String> sources = new ArrayList<>();
        sources.add(program.source());
        program.files().forEach((name, content) -> {
            if (name.endsWith(".py")) {
                sources.add(content);
            }
        });
        for (var binary : program.binaryFiles().entrySet()) {
            String name = binary.getKey();
            if (name.endsWith(".py")) {
                // source given as bytes (a coding declaration may make any bytes Python): every byte read as one char
                sources.add(new String(java.util.Base64.getDecoder().decode(binary.getValue()),
                        java.nio.charset.StandardCharsets.ISO_8859_1));
            } else if (name.endsWith(".pyc") || name.endsWith(".so") || name.endsWith(".pyd")) {
                return Optional.of("binary file " + name + ": compiled Python modules cannot be checked by the code policy");
            }
        }
        for (String source : sources) {
            Optional<String> v = checkSource(source);
            if (v.isPresent()) {
                return v;
            }
        }
        return Optional.empty();
    }

    private Optional<String> checkSource(String source) {
        Matcher m = IMPORT.matcher(source);
        while (m.find()) {
            String list = m.group(1) != null ? m.group(1) : m.group(2);
            for (String part : list.split(",")) {
                String module = part.trim().split("\\s+")[0];
                String top = module.split("\\.")[0];
                if (forbiddenModules.contains(top)) {
                    return Optional.of("import of forbidden module '" + top + "' on line " + lineOf(source, m.start()));
                }
            }
        }
        Matcher d = DYNAMIC_IMPORT.matcher(source);
        while (d.find()) {
            String top = d.group(1).split("\\.")[0];
            if (forbiddenModules.contains(top)) {
                return Optional.of("import of forbidden module '" + top + "' on line " + lineOf(source, d.start()));
            }
        }
        for (String call : forbiddenCalls) {
            Matcher c = Pattern.compile("(?<![\\w.])" + Pattern.quote(call) + "\\s*\\(").matcher(source);
            if (c.find()) {
                return Optional.of("call of forbidden '" + call + "' on line " + lineOf(source, c.start()));
            }
        }
        return Optional.empty();
    }

    private static int lineOf(String source, int offset) {
        int line = 1;
        for (int i = 0; i < offset && i < source.length(); i++) {
            if (source.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
