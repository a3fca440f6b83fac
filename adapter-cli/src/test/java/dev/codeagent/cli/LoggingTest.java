package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.status.Status;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class LoggingTest {

    @Test
    void theLogConfigurationLoadsCleanlyAndIsQuietByDefault() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        // a broken logback.xml prints a stack trace on every start; it must parse without errors
        assertThat(context.getStatusManager().getCopyOfStatusList())
                .noneMatch(s -> s.getLevel() >= Status.WARN);
        assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.WARN);
        assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNotNull();
    }

    @Test
    void verboseShowsCodeagentsDebugDetail() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Level before = context.getLogger("dev.codeagent").getLevel();
        try {
            Logging.verbose();
            assertThat(context.getLogger("dev.codeagent.cli.Anything").isDebugEnabled()).isTrue();
            assertThat(context.getLogger("com.github.dockerjava").isDebugEnabled()).isFalse();
        } finally {
            context.getLogger("dev.codeagent").setLevel(before);
            context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
        }
    }
}
