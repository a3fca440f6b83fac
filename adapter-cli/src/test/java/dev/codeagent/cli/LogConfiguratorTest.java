package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.ConsoleAppender;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** The log set up in code says what the command line's logback.xml says. */
class LogConfiguratorTest {

    @Test
    void warningsOnlyOnStderrOneLineEachWithoutStackTracesAndLogbackReadsNoXmlAfterIt() {
        LoggerContext context = new LoggerContext();
        LogConfigurator configurator = new LogConfigurator();
        configurator.setContext(context);

        assertThat(configurator.configure(context)).isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        assertThat(root.getLevel()).isEqualTo(Level.WARN);
        var appender = root.getAppender(LogConfigurator.APPENDER);
        assertThat(appender).isInstanceOf(ConsoleAppender.class);
        ConsoleAppender<?> console = (ConsoleAppender<?>) appender;
        assertThat(console.getTarget()).isEqualTo("System.err");

        // what a warning looks like, rendered by the appender's own encoder: one line, no stack trace
        @SuppressWarnings("unchecked")
        var encoder = (ch.qos.logback.core.encoder.Encoder<ch.qos.logback.classic.spi.ILoggingEvent>) console.getEncoder();
        var event = new ch.qos.logback.classic.spi.LoggingEvent("x", context.getLogger("dev.codeagent.sandbox.Thing"),
                Level.WARN, "the disk is full", new IllegalStateException("deep"), null);
        assertThat(new String(encoder.encode(event), StandardCharsets.UTF_8)).isEqualTo("codeagent [WARN] Thing: the disk is full\n");
        assertThat(context.getLogger("dev.codeagent.sandbox.Thing").isInfoEnabled()).isFalse();
        assertThat(((PatternLayoutEncoder) console.getEncoder()).getPattern()).isEqualTo("codeagent [%level] %logger{0}: %msg%n%nopex");
    }
}
