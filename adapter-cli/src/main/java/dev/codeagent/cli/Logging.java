package dev.codeagent.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CLI's logging switch. Quiet by default (logback.xml: warnings on stderr, no stack traces);
 * {@code --verbose} shows codeagent's debug detail with stack traces, while libraries stay at INFO
 * (docker-java and HTTP clients are unreadable at DEBUG).
 */
final class Logging {

    private Logging() {
    }

    static void verbose() {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext)) {
            return;
        }
        LoggerContext context = (LoggerContext) factory;
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        context.getLogger("dev.codeagent").setLevel(Level.DEBUG);
        Appender<?> appender = root.getAppender(LogConfigurator.APPENDER);
        if (appender instanceof ConsoleAppender) {
            @SuppressWarnings("unchecked")
            ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent> console =
                    (ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent>) appender;
            PatternLayoutEncoder encoder = new PatternLayoutEncoder();
            encoder.setContext(context);
            encoder.setPattern("codeagent [%level] %d{HH:mm:ss.SSS} %logger{0}: %msg%n");
            encoder.start();
            console.setEncoder(encoder);
        }
    }
}
