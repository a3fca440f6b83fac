package dev.codeagent.cli;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs {@code codeagent} in-process with its own stdin, environment and output streams, so tests can
 * run in parallel and never read the developer's ~/.codeagent or CODEAGENT_* variables.
 */
final class CliRunner {

    /** What a command did: its exit status and everything it printed. */
    record Result(int status, String out, String err) {
        @Override
        public String toString() {
            return "status " + status + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private final Map<String, String> env = new LinkedHashMap<>();

    /** @param dir a temp directory; an empty config file is written there so no user config is read */
    CliRunner(Path dir) {
        try {
            Path config = Files.writeString(dir.resolve("empty-config.yaml"), "{}\n");
            env.put("CODEAGENT_CONFIG", config.toString());
            env.put("CODEAGENT_STORE", "memory");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    CliRunner env(String name, String value) {
        env.put(name, value);
        return this;
    }

    Result run(String... args) {
        return runWithStdin("", args);
    }

    Result runWithStdin(String stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CliContext context = new CliContext(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), env, false);
        int status = CodeAgentCli.commandLine(context, new PrintWriter(out), new PrintWriter(err)).execute(args);
        return new Result(status, out.toString(), err.toString());
    }
}
