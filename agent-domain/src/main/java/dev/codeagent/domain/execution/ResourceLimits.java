package dev.codeagent.domain.execution;

import java.time.Duration;
import java.util.Objects;

/**
 * What one execution may consume. Every sandbox enforces all of them it can and reports the rest
 * as not isolated (see {@link Sandbox#isolation()}).
 *
 * @param wallTime real time from start to kill; at least 1 ms, at most {@link #MAX_WALL} (a day: the application's
 *     configured ceiling, an hour unless raised, is what requests meet first)
 * @param cpuTime CPU time (user + system) of all the program's processes
 * @param memoryBytes address space / memory the program may use; at least 16 MiB
 * @param maxProcesses processes and threads the program may have at once; at least 1
 * @param maxOutputBytes bytes kept of stdout, and separately of stderr; past it the run ends as
 *     {@link Outcome#OUTPUT_LIMIT}
 * @param maxFileBytes largest file the program may write
 * @param network whether the program may use the network at all (off by default)
 */
public record ResourceLimits(
        Duration wallTime,
        Duration cpuTime,
        long memoryBytes,
        int maxProcesses,
        long maxOutputBytes,
        long maxFileBytes,
        boolean network) {

    public static final long MIB = 1024L * 1024L;
    /** The most any configuration may allow one execution. */
    public static final Duration MAX_WALL = Duration.ofHours(24);

    public ResourceLimits {
        Objects.requireNonNull(wallTime, "wallTime");
        Objects.requireNonNull(cpuTime, "cpuTime");
        if (wallTime.toMillis() < 1 || wallTime.compareTo(MAX_WALL) > 0) {
            throw new IllegalArgumentException("wallTime must be between 1ms and 24h, was " + wallTime.toMillis() + "ms");
        }
        if (cpuTime.toMillis() < 1 || cpuTime.compareTo(MAX_WALL) > 0) {
            throw new IllegalArgumentException("cpuTime must be between 1ms and 24h, was " + cpuTime.toMillis() + "ms");
        }
        if (memoryBytes < 16 * MIB) {
            throw new IllegalArgumentException("memoryBytes must be at least 16 MiB, was " + memoryBytes);
        }
        if (maxProcesses < 1) {
            throw new IllegalArgumentException("maxProcesses must be at least 1, was " + maxProcesses);
        }
        if (maxOutputBytes < 1) {
            throw new IllegalArgumentException("maxOutputBytes must be at least 1, was " + maxOutputBytes);
        }
        if (maxFileBytes < 0) {
            throw new IllegalArgumentException("maxFileBytes must not be negative, was " + maxFileBytes);
        }
    }

    /** 10 s wall, 10 s CPU, 256 MiB, 64 processes, 1 MiB per output stream, 16 MiB per file, no network. */
    public static ResourceLimits defaults() {
        return new ResourceLimits(Duration.ofSeconds(10), Duration.ofSeconds(10), 256 * MIB, 64, MIB, 16 * MIB, false);
    }

    /**
     * What a compile stage may consume unless told otherwise: 30 s wall, 30 s CPU, 1 GiB, 128 processes and threads
     * (a compiler driver, its passes, a JVM's or Go's threads), 64 MiB per output stream (what it built crosses as
     * output), 256 MiB per file, no network. Compilers are trusted tools, but what they compile is not: a template
     * or a constant expression can make any of them run long or large.
     */
    public static ResourceLimits compileDefaults() {
        return new ResourceLimits(Duration.ofSeconds(30), Duration.ofSeconds(30), 1024 * MIB, 128, 64 * MIB, 256 * MIB, false);
    }

    /** These limits with another wall time; the CPU limit follows it down when it was larger. */
    public ResourceLimits withWallTime(Duration wall) {
        Duration cpu = cpuTime.compareTo(wall) > 0 ? wall : cpuTime;
        return new ResourceLimits(wall, cpu, memoryBytes, maxProcesses, maxOutputBytes, maxFileBytes, network);
    }

    public ResourceLimits withCpuTime(Duration cpu) {
        return new ResourceLimits(wallTime, cpu, memoryBytes, maxProcesses, maxOutputBytes, maxFileBytes, network);
    }

    public ResourceLimits withMemoryBytes(long bytes) {
        return new ResourceLimits(wallTime, cpuTime, bytes, maxProcesses, maxOutputBytes, maxFileBytes, network);
    }

    public ResourceLimits withMaxProcesses(int processes) {
        return new ResourceLimits(wallTime, cpuTime, memoryBytes, processes, maxOutputBytes, maxFileBytes, network);
    }

    public ResourceLimits withMaxOutputBytes(long bytes) {
        return new ResourceLimits(wallTime, cpuTime, memoryBytes, maxProcesses, bytes, maxFileBytes, network);
    }

    public ResourceLimits withMaxFileBytes(long bytes) {
        return new ResourceLimits(wallTime, cpuTime, memoryBytes, maxProcesses, maxOutputBytes, bytes, network);
    }

    public ResourceLimits withNetwork(boolean allowed) {
        return new ResourceLimits(wallTime, cpuTime, memoryBytes, maxProcesses, maxOutputBytes, maxFileBytes, allowed);
    }
}
