package dev.codeagent.jupyter;

import dev.codeagent.application.command.InputPolicy;
import dev.codeagent.application.command.LimitField;
import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.spi.ConfigSection;
import java.time.Duration;
import java.util.Objects;

/**
 * The Jupyter kernel's ceilings: config section {@code jupyter}, which this front door owns. A notebook is content
 * anyone may have written (a downloaded {@code .ipynb} run with "Run All"), so what its magics may ask for
 * ({@code %limits}, {@code %%solve --memory/--timeout}) stops here, as an HTTP request's stops at {@code http.*}.
 *
 * @param maxMemory the most memory a notebook's session, or one {@code %%solve} attempt, may be given; the session
 *     starts with 512 MiB, or this when it is lower
 * @param maxTimeout the longest a cell (or one {@code %%solve} attempt) may be allowed to run; cells start with
 *     10 minutes, or this when it is shorter
 */
public record JupyterConfig(ByteSize maxMemory, Duration maxTimeout) {

    private static final long SESSION_MEMORY_FLOOR = 64L * 1024 * 1024;
    private static final Duration LONGEST_CELL = Duration.ofHours(1);

    /** Where these settings live in the config. */
    public static final ConfigSection<JupyterConfig> SECTION = new ConfigSection<>("jupyter", JupyterConfig.class, defaults());

    public JupyterConfig {
        Objects.requireNonNull(maxMemory, "jupyter.maxMemory");
        if (maxMemory.bytes() < SESSION_MEMORY_FLOOR) {
            // below this the session's IPython kernel cannot start: no notebook would work at all
            throw new IllegalArgumentException("jupyter.maxMemory must be at least 64m (a session's kernel needs it), was "
                    + maxMemory);
        }
        Objects.requireNonNull(maxTimeout, "jupyter.maxTimeout");
        if (maxTimeout.toMillis() < 1000 || maxTimeout.compareTo(LONGEST_CELL) > 0) {
            throw new IllegalArgumentException("jupyter.maxTimeout must be between 1s and 1h (a session's longest cell), was "
                    + Units.formatDuration(maxTimeout));
        }
    }

    /** 512 MiB, the documented memory of a notebook's session; an hour, a session's longest cell. */
    public static JupyterConfig defaults() {
        return new JupyterConfig(ByteSize.ofMiB(512), LONGEST_CELL);
    }

    /** The {@code jupyter} section of a config (its defaults when it sets none). */
    public static JupyterConfig from(CodeAgentConfig config) {
        return config.section(SECTION);
    }

    /** What a notebook's magics may ask for: the application applies these caps, as it does the HTTP door's. */
    InputPolicy policy() {
        long timeout = maxTimeout.toMillis();
        return InputPolicy.local()
                .cap(LimitField.TIMEOUT, timeout, "jupyter.maxTimeout")
                .cap(LimitField.CPU_TIME, timeout, "jupyter.maxTimeout")
                .cap(LimitField.MEMORY, maxMemory.bytes(), "jupyter.maxMemory");
    }
}
