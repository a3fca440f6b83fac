package dev.codeagent.domain.session;

import java.time.Duration;
import java.util.Objects;

/**
 * What one session may consume. Per-session limits hold for the session's whole life, across cells and
 * kernel restarts; per-cell ones for each cell.
 *
 * @param cellTimeout wall time of one cell before it is interrupted (then, past a short grace, the kernel is
 *     restarted); at least 1 ms, at most 1 hour
 * @param idleTimeout time without a cell after which the session ends; at least 1 s, at most 24 hours
 * @param maxLifetime time from opening after which the session ends, busy or not; at least 1 s, at most
 *     24 hours, and not shorter than {@code cellTimeout}
 * @param memoryBytes memory of the kernel and what it starts; at least 64 MiB (a kernel needs ~40 MiB)
 * @param cpuBudget CPU time the session may use in all; at least 1 s
 * @param maxProcesses processes and threads at once; at least 8 (a kernel runs a few threads)
 * @param diskBytes bytes the session may write to its disk (work directory, /tmp); at least 1 MiB
 * @param maxOutputBytesPerCell bytes of text and data kept of one cell's outputs; past it the cell ends
 *     {@link CellStatus#OUTPUT_TRUNCATED}; at least 1 KiB
 * @param maxImageBytes largest image (decoded bytes) passed through; a larger one is replaced by a text
 *     stand-in; at least 1 KiB and at most {@code maxOutputBytesPerCell}
 * @param maxCells cells the session may run in all; at least 1
 */
public record SessionLimits(Duration cellTimeout, Duration idleTimeout, Duration maxLifetime, long memoryBytes,
        Duration cpuBudget, int maxProcesses, long diskBytes, long maxOutputBytesPerCell, long maxImageBytes,
        int maxCells) {

    public static final long KIB = 1024L;
    public static final long MIB = 1024L * KIB;
    private static final Duration MAX_CELL = Duration.ofHours(1);
    private static final Duration MAX_SESSION = Duration.ofHours(24);

    public SessionLimits {
        Objects.requireNonNull(cellTimeout, "cellTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(maxLifetime, "maxLifetime");
        Objects.requireNonNull(cpuBudget, "cpuBudget");
        if (cellTimeout.toMillis() < 1 || cellTimeout.compareTo(MAX_CELL) > 0) {
            throw new IllegalArgumentException("cellTimeout must be between 1ms and 1h, was " + cellTimeout.toMillis() + "ms");
        }
        if (idleTimeout.getSeconds() < 1 || idleTimeout.compareTo(MAX_SESSION) > 0) {
            throw new IllegalArgumentException("idleTimeout must be between 1s and 24h, was " + idleTimeout.toMillis() + "ms");
        }
        if (maxLifetime.getSeconds() < 1 || maxLifetime.compareTo(MAX_SESSION) > 0) {
            throw new IllegalArgumentException("maxLifetime must be between 1s and 24h, was " + maxLifetime.toMillis() + "ms");
        }
        if (maxLifetime.compareTo(cellTimeout) < 0) {
            throw new IllegalArgumentException("maxLifetime (" + maxLifetime.toMillis() + "ms) must not be shorter than "
                    + "cellTimeout (" + cellTimeout.toMillis() + "ms)");
        }
        if (memoryBytes < 64 * MIB) {
            throw new IllegalArgumentException("memoryBytes must be at least 64 MiB, was " + memoryBytes);
        }
        if (cpuBudget.getSeconds() < 1) {
            throw new IllegalArgumentException("cpuBudget must be at least 1s, was " + cpuBudget.toMillis() + "ms");
        }
        if (maxProcesses < 8) {
            throw new IllegalArgumentException("maxProcesses must be at least 8, was " + maxProcesses);
        }
        if (diskBytes < MIB) {
            throw new IllegalArgumentException("diskBytes must be at least 1 MiB, was " + diskBytes);
        }
        if (maxOutputBytesPerCell < KIB) {
            throw new IllegalArgumentException("maxOutputBytesPerCell must be at least 1 KiB, was " + maxOutputBytesPerCell);
        }
        if (maxImageBytes < KIB || maxImageBytes > maxOutputBytesPerCell) {
            throw new IllegalArgumentException("maxImageBytes must be between 1 KiB and maxOutputBytesPerCell ("
                    + maxOutputBytesPerCell + "), was " + maxImageBytes);
        }
        if (maxCells < 1) {
            throw new IllegalArgumentException("maxCells must be at least 1, was " + maxCells);
        }
    }

    /**
     * 30 s per cell, 10 min idle, 1 h lifetime, 512 MiB, 10 min CPU, 64 processes, 64 MiB disk, 1 MiB of
     * output per cell, 512 KiB per image, 1000 cells.
     */
    public static SessionLimits defaults() {
        return new SessionLimits(Duration.ofSeconds(30), Duration.ofMinutes(10), Duration.ofHours(1), 512 * MIB,
                Duration.ofMinutes(10), 64, 64 * MIB, MIB, 512 * KIB, 1000);
    }

    public SessionLimits withCellTimeout(Duration d) {
        return new SessionLimits(d, idleTimeout, maxLifetime, memoryBytes, cpuBudget, maxProcesses, diskBytes,
                maxOutputBytesPerCell, maxImageBytes, maxCells);
    }

    public SessionLimits withIdleTimeout(Duration d) {
        return new SessionLimits(cellTimeout, d, maxLifetime, memoryBytes, cpuBudget, maxProcesses, diskBytes,
                maxOutputBytesPerCell, maxImageBytes, maxCells);
    }

    public SessionLimits withMaxLifetime(Duration d) {
        return new SessionLimits(cellTimeout, idleTimeout, d, memoryBytes, cpuBudget, maxProcesses, diskBytes,
                maxOutputBytesPerCell, maxImageBytes, maxCells);
    }

    public SessionLimits withMaxOutput(long perCell, long image) {
        return new SessionLimits(cellTimeout, idleTimeout, maxLifetime, memoryBytes, cpuBudget, maxProcesses, diskBytes,
                perCell, image, maxCells);
    }

    public SessionLimits withMemoryBytes(long bytes) {
        return new SessionLimits(cellTimeout, idleTimeout, maxLifetime, bytes, cpuBudget, maxProcesses, diskBytes,
                maxOutputBytesPerCell, maxImageBytes, maxCells);
    }

    public SessionLimits withMaxCells(int cells) {
        return new SessionLimits(cellTimeout, idleTimeout, maxLifetime, memoryBytes, cpuBudget, maxProcesses, diskBytes,
                maxOutputBytesPerCell, maxImageBytes, cells);
    }
}
