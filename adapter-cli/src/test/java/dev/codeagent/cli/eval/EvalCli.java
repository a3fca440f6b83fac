package dev.codeagent.cli.eval;

import dev.codeagent.cli.CliContext;
import dev.codeagent.cli.CodeAgentCli;
import dev.codeagent.cli.EvalCommand;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;

/**
 * Runs {@code codeagent eval} in-process with its own environment and output streams, reading no
 * user config and no {@code CODEAGENT_*} variable of the developer's.
 */
final class EvalCli {

    /** What the command did: its exit status and everything it printed. */
    record Result(int status, String out, String err) {
        @Override
        public String toString() {
            return "status " + status + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private final Map<String, String> env = new LinkedHashMap<>();

    EvalCli(Path dir) {
        try {
            env.put("CODEAGENT_CONFIG", Files.writeString(dir.resolve("empty-config.yaml"), "{}\n").toString());
            env.put("CODEAGENT_STORE", "memory");
            // stderr is compared whole: no periodic progress line however slow the machine (EvalProgressTest covers it)
            env.put("CODEAGENT_PROGRESS_INTERVAL", "off");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code codeagent eval ARGS...} */
    Result run(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "eval";
        System.arraycopy(args, 0, all, 1, args.length);
        return command(all);
    }

    /** {@code codeagent ARGS...}: any command, in the same environment. */
    Result command(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CliContext context = new CliContext(new ByteArrayInputStream(new byte[0]), env, false);
        CommandLine cmd = CodeAgentCli.commandLine(context, new PrintWriter(out), new PrintWriter(err));
        if (!cmd.getSubcommands().containsKey("eval")) {
            // until the command is registered in CodeAgentCli itself
            cmd.addSubcommand("eval", new EvalCommand());
            // settings reach only the subcommands present when they are made: make them again
            cmd.setOut(cmd.getOut()).setErr(cmd.getErr())
                    .setExecutionExceptionHandler(cmd.getExecutionExceptionHandler())
                    .setParameterExceptionHandler(cmd.getParameterExceptionHandler())
                    .setCaseInsensitiveEnumValuesAllowed(true);
        }
        int status = cmd.execute(args);
        return new Result(status, out.toString(), err.toString());
    }
}
