package dev.codeagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ToolArgumentsTest {

    @Test
    void everyMistakeIsNamedInOneLine() {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("code", 5);
        args.put("files", Map.of("a.txt", List.of(1)));
        args.put("shell\u0007", "rm");
        args.put("stdin", "x".repeat(20));
        ToolArguments a = new ToolArguments(args, Set.of("code", "files", "stdin", "language"));

        assertThat(a.string("language", true, 64)).isNull();
        assertThat(a.string("code", true, 100)).isNull();
        assertThat(a.strings("files", 100)).isEmpty();
        assertThat(a.string("stdin", false, 10)).isNull();

        assertThat(a.problem()).startsWith("invalid arguments: ")
                .contains("shell?: unknown argument; this tool takes code, files, language, stdin")
                .contains("language: required")
                .contains("code: must be a string, got the number 5")
                .contains("files.a.txt: must be a string, got an array")
                .contains("stdin: at most 10 bytes, got 20")
                .doesNotContain("\n");
    }

    @Test
    void wellTypedArgumentsAreRead() {
        ToolArguments a = new ToolArguments(Map.of("code", "print(1)", "maxAttempts", 3.0, "files", Map.of("f", "x")),
                Set.of("code", "maxAttempts", "files"));
        assertThat(a.string("code", true, 100)).isEqualTo("print(1)");
        assertThat(a.integer("maxAttempts", 1, 20)).isEqualTo(3);
        assertThat(a.strings("files", 10)).containsEntry("f", "x");
        assertThat(a.errors.isEmpty()).isTrue();
        assertThat(new ToolArguments(Map.of("maxAttempts", 2.5), Set.of("maxAttempts")).integer("maxAttempts", 1, 20)).isNull();
    }
}
