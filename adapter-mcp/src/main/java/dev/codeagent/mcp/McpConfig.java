package dev.codeagent.mcp;

import dev.codeagent.application.command.InputPolicy;
import dev.codeagent.application.command.LimitField;
import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.spi.ConfigSection;
import java.time.Duration;
import java.util.Objects;

/**
 * The MCP server's ceilings: config section {@code mcp}, which this front door owns. Tool arguments are written by a
 * model, so what they may ask for stops here, as an HTTP request's stops at {@code http.*}.
 *
 * @param maxMemory the most memory one execution, one session or one {@code solve_task} attempt may be given
 * @param maxTimeout the longest one execution (or cell, or attempt) may be allowed to run
 * @param maxCallsPerSession tool calls of one MCP session that run at once; more wait their turn (as Piston queues)
 * @param maxCodeBytes the largest {@code code} (or {@code prompt}) argument, in UTF-8 bytes
 */
public record McpConfig(ByteSize maxMemory, Duration maxTimeout, int maxCallsPerSession, ByteSize maxCodeBytes) {

    private static final long MEMORY_FLOOR = 64L * 1024 * 1024;
    private static final Duration LONGEST = Duration.ofHours(1);
    /** As over HTTP: a task description, not a program. */
    static final int MAX_PROMPT_CHARS = 64 * 1024;

    /** Where these settings live in the config. */
    public static final ConfigSection<McpConfig> SECTION = new ConfigSection<>("mcp", McpConfig.class, defaults());

    public McpConfig {
        Objects.requireNonNull(maxMemory, "mcp.maxMemory");
        if (maxMemory.bytes() < MEMORY_FLOOR) {
            // below this a session's kernel cannot start: run_cell would never work
            throw new IllegalArgumentException("mcp.maxMemory must be at least 64m (a session's kernel needs it), was " + maxMemory);
        }
        Objects.requireNonNull(maxTimeout, "mcp.maxTimeout");
        if (maxTimeout.toMillis() < 1000 || maxTimeout.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException("mcp.maxTimeout must be between 1s and 1h, was " + Units.formatDuration(maxTimeout));
        }
        if (maxCallsPerSession < 1 || maxCallsPerSession > 64) {
            throw new IllegalArgumentException("mcp.maxCallsPerSession must be between 1 and 64, was " + maxCallsPerSession);
        }
        Objects.requireNonNull(maxCodeBytes, "mcp.maxCodeBytes");
        if (maxCodeBytes.bytes() < 1024 || maxCodeBytes.bytes() > 16L * 1024 * 1024) {
            throw new IllegalArgumentException("mcp.maxCodeBytes must be between 1k and 16m, was " + maxCodeBytes);
        }
    }

    /** 512 MiB and a minute, as an HTTP request gets by default; four calls at once; 1 MiB of code. */
    public static McpConfig defaults() {
        return new McpConfig(ByteSize.ofMiB(512), Duration.ofSeconds(60), 4, ByteSize.ofMiB(1));
    }

    /** The {@code mcp} section of a config (its defaults when it sets none). */
    public static McpConfig from(CodeAgentConfig config) {
        return config.section(SECTION);
    }

    /** What a tool call may ask for: the application applies these caps, as it does the HTTP door's; never the network. */
    InputPolicy policy() {
        long timeout = maxTimeout.toMillis();
        return InputPolicy.local()
                .cap(LimitField.TIMEOUT, timeout, "mcp.maxTimeout")
                .cap(LimitField.CPU_TIME, timeout, "mcp.maxTimeout")
                .cap(LimitField.MEMORY, maxMemory.bytes(), "mcp.maxMemory")
                .cap(LimitField.MAX_PROCESSES, 1024, null)
                .cap(LimitField.MAX_OUTPUT_BYTES, 8L * 1024 * 1024, null)
                .cap(LimitField.MAX_FILE_BYTES, 64L * 1024 * 1024, null)
                .withoutNetwork()
                .withMaxPromptChars(MAX_PROMPT_CHARS);
    }
}
