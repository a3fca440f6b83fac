package dev.codeagent.store.sqlite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The process that started a run, kept with the run so that a later process can tell whether it is
 * still going.
 *
 * <p>A pid alone is not enough: pids are reused, and they restart with every boot. So the owner is
 * the boot it ran in (Linux {@code /proc/sys/kernel/random/boot_id}, null elsewhere), its pid, and
 * its start time as a token of the form {@code scheme:value}:
 * <ul>
 *   <li>{@code proc:N}: field 22 of {@code /proc/PID/stat}, clock ticks since boot. Exact, and the
 *       same whichever process reads it. Used where {@code /proc} exists; the JDK's
 *       {@code ProcessHandle.Info.startInstant()} is avoided there because it adds a boot time that
 *       each JVM reads once and that moves when the wall clock is set, so two JVMs can disagree
 *       about the same process.</li>
 *   <li>{@code instant:T}: {@code ProcessHandle.Info.startInstant()}, elsewhere (macOS, Windows,
 *       where the system keeps it as a wall-clock time fixed at start).</li>
 * </ul>
 *
 * @param bootId the boot the process ran in, or null where that cannot be read
 * @param pid its process id
 * @param start its start-time token, or null where that cannot be read
 */
record ProcessOwner(String bootId, long pid, String start) {

    /** What can be told about a recorded owner. */
    enum State {
        /** The very process is still running. */
        ALIVE,
        /** It has ended: another boot, no such process, or the pid now belongs to another process. */
        GONE,
        /** The process cannot be inspected (e.g. no permission); it may still be running. */
        UNKNOWN
    }

    private static final Path PROC = Path.of("/proc");
    private static final Path BOOT_ID_FILE = PROC.resolve("sys/kernel/random/boot_id");
    private static final String PROC_SCHEME = "proc";
    private static final String INSTANT_SCHEME = "instant";

    ProcessOwner {
        if (pid <= 0) {
            throw new IllegalArgumentException("pid must be positive, was " + pid);
        }
    }

    /** This process; read once, since none of it changes while the process lives. */
    static ProcessOwner current() {
        return Current.OWNER;
    }

    /** A running process of this boot, as it would record itself; its start is null when unreadable. */
    static ProcessOwner of(ProcessHandle p) {
        String start = Files.isDirectory(PROC) ? procStart(p.pid()).token() : instantStart(p).token();
        return new ProcessOwner(Current.BOOT_ID, p.pid(), start);
    }

    private static final class Current {
        static final String BOOT_ID = readBootId();
        static final ProcessOwner OWNER = of(ProcessHandle.current());
    }

    /**
     * Whether the process recorded as {@code bootId}, {@code pid}, {@code start} is still running, as
     * seen from this process. A row with no pid (written before owners were recorded) is
     * {@link State#GONE}: no process that old can be told apart from a dead one.
     */
    static State stateOf(String bootId, Long pid, String start) {
        if (pid == null || pid <= 0) {
            return State.GONE;
        }
        String ourBoot = Current.BOOT_ID;
        if (bootId != null && ourBoot != null && !bootId.equals(ourBoot)) {
            return State.GONE;
        }
        if (start == null) {
            // the owner could not read its own start time: the pid is all there is to go by
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent() ? State.ALIVE : State.GONE;
        }
        int colon = start.indexOf(':');
        String scheme = colon < 0 ? "" : start.substring(0, colon);
        Observed now;
        if (scheme.equals(PROC_SCHEME) && Files.isDirectory(PROC)) {
            now = procStart(pid);
        } else if (scheme.equals(INSTANT_SCHEME)) {
            now = ProcessHandle.of(pid).map(ProcessOwner::instantStart).orElse(Observed.GONE);
        } else {
            // written by a version or system this one cannot check against
            return State.UNKNOWN;
        }
        if (now.state() != State.ALIVE) {
            return now.state();
        }
        return start.equals(now.token()) ? State.ALIVE : State.GONE;
    }

    /** What was read about a pid: {@code token} is set only when {@code state} is ALIVE. */
    record Observed(State state, String token) {
        static final Observed GONE = new Observed(State.GONE, null);
        static final Observed UNKNOWN = new Observed(State.UNKNOWN, null);
    }

    private static Observed procStart(long pid) {
        String stat;
        try {
            stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            return Observed.GONE;
        } catch (IOException | SecurityException e) {
            return Observed.UNKNOWN;
        }
        return fromStat(stat);
    }

    /** Reads the state and start time out of the text of a {@code /proc/PID/stat} file. */
    static Observed fromStat(String stat) {
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields count from the last ')'
        int close = stat.lastIndexOf(')');
        if (close < 0 || close + 2 > stat.length()) {
            return Observed.UNKNOWN;
        }
        String[] fields = stat.substring(close + 2).trim().split(" ");
        if (fields.length < 20) {
            return Observed.UNKNOWN;
        }
        String state = fields[0]; // field 3
        if (state.equals("Z") || state.equals("X") || state.equals("x")) {
            return Observed.GONE; // killed but not yet reaped by its parent: it will never write again
        }
        String startTicks = fields[19]; // field 22
        if (startTicks.isEmpty() || !startTicks.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            return Observed.UNKNOWN;
        }
        return new Observed(State.ALIVE, PROC_SCHEME + ":" + startTicks);
    }

    private static Observed instantStart(ProcessHandle p) {
        if (!p.isAlive()) {
            return Observed.GONE;
        }
        Optional<Instant> at = p.info().startInstant();
        return at.map(t -> new Observed(State.ALIVE, INSTANT_SCHEME + ":" + t)).orElse(Observed.UNKNOWN);
    }

    private static String readBootId() {
        try {
            String id = Files.readString(BOOT_ID_FILE, StandardCharsets.US_ASCII).strip();
            return id.isEmpty() ? null : id;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "pid " + pid + " (start " + Objects.requireNonNullElse(start, "?") + ", boot "
                + Objects.requireNonNullElse(bootId, "?") + ")";
    }
}
