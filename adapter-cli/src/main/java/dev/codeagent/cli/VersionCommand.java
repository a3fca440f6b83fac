package dev.codeagent.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code codeagent version}. */
@Command(name = "version", description = "Print the version of codeagent and of the Java runtime.")
final class VersionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        for (String line : new Provider().getVersion()) {
            out.println(line);
        }
        out.flush();
        return ExitStatus.OK;
    }

    /** The version lines, also behind {@code codeagent --version}. */
    static final class Provider implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "codeagent " + version(),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + "), "
                        + System.getProperty("os.name") + " " + System.getProperty("os.arch")};
        }

        static String version() {
            Properties p = new Properties();
            try (InputStream in = VersionCommand.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                return "unknown";
            }
            return p.getProperty("version", "unknown");
        }
    }
}
