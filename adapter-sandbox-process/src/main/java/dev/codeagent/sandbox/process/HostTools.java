package dev.codeagent.sandbox.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The host programs the process sandbox builds on, found at fixed system locations (never through the
 * JVM's PATH, which may hold shims), and whether the JVM runs as root. Tests construct reduced sets to
 * see how the sandbox behaves on a poorer host.
 *
 * @param root whether the JVM runs as uid 0 (it can then give every run its own unprivileged uid)
 * @param bwrap bubblewrap, or null
 * @param setpriv util-linux setpriv, or null
 * @param prlimit util-linux prlimit, or null
 * @param unshare util-linux unshare, or null
 * @param setsid util-linux setsid, or null
 * @param time GNU time (for CPU time and peak memory), or null
 * @param cgroups whether to look for control groups at all; false stands for a host that has none to give
 *     (no root, no delegation), so tests can see the tier say so on a host that has them
 * @param cc the C compiler the in-sandbox supervisor is built with, or null
 */
record HostTools(boolean root, Path bwrap, Path setpriv, Path prlimit, Path unshare, Path setsid, Path time, boolean cgroups,
        Path cc) {

    HostTools(boolean root, Path bwrap, Path setpriv, Path prlimit, Path unshare, Path setsid, Path time) {
        this(root, bwrap, setpriv, prlimit, unshare, setsid, time, true);
    }

    HostTools(boolean root, Path bwrap, Path setpriv, Path prlimit, Path unshare, Path setsid, Path time, boolean cgroups) {
        this(root, bwrap, setpriv, prlimit, unshare, setsid, time, cgroups, compiler());
    }

    private static final List<String> SYSTEM_DIRS = List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin");

    static HostTools detect() {
        return new HostTools(runningAsRoot(), find("bwrap"), find("setpriv"), find("prlimit"), find("unshare"),
                find("setsid"), gnuTime());
    }

    HostTools withoutBwrap() {
        return new HostTools(root, null, setpriv, prlimit, unshare, setsid, time, cgroups, cc);
    }

    HostTools withoutUnshare() {
        return new HostTools(root, bwrap, setpriv, prlimit, null, setsid, time, cgroups, cc);
    }

    HostTools withoutRoot() {
        return new HostTools(false, bwrap, setpriv, prlimit, unshare, setsid, time, cgroups, cc);
    }

    HostTools withoutTime() {
        return new HostTools(root, bwrap, setpriv, prlimit, unshare, setsid, null, cgroups, cc);
    }

    HostTools withoutCgroups() {
        return new HostTools(root, bwrap, setpriv, prlimit, unshare, setsid, time, false, cc);
    }

    /** Without a C compiler: the in-sandbox supervisor is then the Python one (see {@link Supervisor}). */
    HostTools withoutCompiler() {
        return new HostTools(root, bwrap, setpriv, prlimit, unshare, setsid, time, cgroups, null);
    }

    /** The host's C compiler ({@code cc}, else {@code gcc}), or null. */
    private static Path compiler() {
        Path cc = find("cc");
        return cc != null ? cc : find("gcc");
    }

    static Path find(String name) {
        for (String dir : SYSTEM_DIRS) {
            Path p = Path.of(dir, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                try {
                    return p.toRealPath();
                } catch (IOException e) {
                    return p;
                }
            }
        }
        return null;
    }

    /** GNU time only: BSD or busybox {@code time} take other options. */
    private static Path gnuTime() {
        Path p = find("time");
        if (p == null) {
            return null;
        }
        try {
            byte[] head = Files.readAllBytes(p);
            String s = new String(head, java.nio.charset.StandardCharsets.ISO_8859_1);
            return s.contains("GNU") && s.contains("%M") ? p : null;
        } catch (IOException e) {
            return null;
        }
    }

    static boolean runningAsRoot() {
        return statusUid(Path.of("/proc/self/status")).map(uid -> uid == 0).orElse(false);
    }

    /** The real uid in a /proc/PID/status file. */
    static Optional<Long> statusUid(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("Uid:")) {
                    return Optional.of(Long.parseLong(line.substring(4).trim().split("\\s+")[0]));
                }
            }
        } catch (IOException | RuntimeException gone) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
