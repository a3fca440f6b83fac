package dev.codeagent.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.status.NopStatusListener;
import java.net.URL;
import java.security.CodeSource;
import org.slf4j.Logger;

/**
 * The command line's log, set up in code: what its {@code logback.xml} says (warnings and errors on stderr, one
 * prefixed line each, no stack traces), without logback reading XML at every start. Parsing the file was the largest
 * part of a one-shot command's logging set-up (about 40 ms of CPU of a ~0.8 s {@code exec}, measured with a sampling
 * profiler), paid before anything is logged at all.
 *
 * <p>Logback asks this first (a {@code Configurator} service). It steps aside, and the XML decides as before, when
 * the first {@code logback.xml} on the class path is not the command line's own (the HTTP server's jar lists its own
 * first), when there is a {@code logback-test.xml}, or when {@code logback.configurationFile} names one.
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {

    /** The name {@link Logging#verbose()} finds the appender by. */
    static final String APPENDER = "STDERR";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (!oursDecides()) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        context.getStatusManager().add(new NopStatusListener());
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("codeagent [%level] %logger{0}: %msg%n%nopex");
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName(APPENDER);
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(stderr);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** Whether the configuration logback would read is the command line's own {@code logback.xml}. */
    private static boolean oursDecides() {
        ClassLoader loader = LogConfigurator.class.getClassLoader();
        if (System.getProperty("logback.configurationFile") != null || loader.getResource("logback-test.xml") != null) {
            return false;
        }
        URL first = loader.getResource("logback.xml");
        CodeSource own = LogConfigurator.class.getProtectionDomain().getCodeSource();
        return first != null && own != null && first.toString().contains(own.getLocation().toString()
                .replaceFirst("^file:", ""));
    }
}
