package dev.codeagent.sandbox.process;

import dev.codeagent.application.compile.Toolchains;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.kit.sandbox.SeccompFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How one run is launched, in one place: the host command line for a {@link Mode} (the wrappers — setpriv,
 * bwrap or unshare, GNU time, prlimit — around the interpreter command), the program's argv and environment,
 * and its rlimits (set by prlimit on the cold path, by the bootstrap on the pre-started one). Every
 * bubblewrap argument of the tier is built here.
 *
 * <p>One class of ~520 lines on purpose: every wrapper's arguments are built here, so a reviewer of the tier's
 * isolation reads one file to see what a run can reach (mounts, namespaces, uid, rlimits, environment).
 */
final class LaunchPlan {

    /** Where the work directory appears inside a bubblewrap sandbox. */
    static final String SANDBOX_WORK = "/work";
    private static final String SANDBOX_RUSAGE = "/.rusage";
    /** Where the execute-only copy of GNU time appears inside a bubblewrap sandbox. */
    private static final String SANDBOX_TIME = "/.time";
    private static final List<String> SYSTEM_ENTRIES = List.of("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32");
    private static final List<String> NETWORK_FILES = List.of("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",
            "/etc/gai.conf", "/etc/ssl", "/etc/ca-certificates");
    /**
     * What of /etc the view shows: files Debian's packages in /usr link to, without which those links dangle —
     * the alternatives (/usr/lib/x86_64-linux-gnu/libblas.so.3, which numpy loads, and /usr/bin/awk point through
     * /etc/alternatives back into /usr) and matplotlib's defaults (mpl-data/matplotlibrc is a link to
     * /etc/matplotlibrc) and the JDK's configuration (Debian's /usr/lib/jvm/…/conf links into /etc/java-N-openjdk;
     * without java.security javac cannot start), and fontconfig's configuration (/etc/fonts: without it every
     * matplotlib plot prints "Fontconfig error: Cannot load default config file"; its cache goes to the run's HOME).
     * Links and package defaults, no host secrets; bound only where the host has them.
     */
    static final List<String> ETC_OF_USR = etcOfUsr();

    private static List<String> etcOfUsr() {
        List<String> etc = new ArrayList<>(List.of("/etc/alternatives", "/etc/matplotlibrc", "/etc/fonts"));
        try (var jdks = Files.newDirectoryStream(Path.of("/etc"), "java-*-openjdk")) {
            jdks.forEach(p -> etc.add(p.toString()));
        } catch (java.io.IOException | SecurityException none) {
            // no /etc to list: nothing of it is bound
        }
        return List.copyOf(etc);
    }
    static final int OPEN_FILES = 256;
    static final String SECCOMP_FILE = "seccomp.bpf";
    static final String EMPTY_FILE = "empty";
    /** The compiled {@code launch.c} in the state directory: joins the groups, opens the filter, drops the uid. */
    static final String LAUNCH_FILE = "launch";
    /**
     * Host-identifying files of /proc that read as empty inside (as Docker masks them): the host's boot
     * arguments, its keys, timers and scheduler state, and its lock table (/proc/locks is the kernel's one table:
     * device and inode of locks held outside, OFD locks of any process; it also showed a concurrent run's lock on
     * a shared /usr file). Only those this kernel has: a bind needs its target.
     * What stays visible: the kernel version (/proc/version, uname), CPU and memory totals (/proc/cpuinfo,
     * /proc/meminfo), load and uptime; the pid namespace hides every host process.
     */
    static final List<String> MASKED_PROC = java.util.stream.Stream.of("/proc/cmdline", "/proc/keys", "/proc/timer_list",
            "/proc/sched_debug", "/proc/latency_stats", "/proc/kallsyms", "/proc/modules", "/proc/config.gz",
            "/proc/bootconfig", "/proc/locks").filter(f -> Files.exists(Path.of(f))).toList();
    static final String TIME_FORMAT = "%e %U %S %M";

    private final Mode mode;
    private final HostTools tools;
    private final List<String> viewArgs;
    private final Path privateTime;
    private final Path seccomp;
    private final Path empty;
    private final Path launcher;

    /**
     * @param extraReadOnly host directories besides /usr the interpreters need (their install prefixes)
     */
    LaunchPlan(Mode mode, HostTools tools, Collection<Path> extraReadOnly) {
        this(mode, tools, extraReadOnly, null);
    }

    /**
     * @param privateTime a root-owned, execute-only (0111) copy of GNU time, or null to run the host's.
     *     GNU time is the sandbox's pid 1 and runs as the program's uid without the program's rlimits; a
     *     process started from a file its uid cannot read is not dumpable, so the program can neither
     *     ptrace it nor write its /proc/1/mem to run code there, outside its limits (bubblewrap only: run
     *     from the host's view, as under unshare or plain, the copy was measured to stay ptraceable)
     */
    LaunchPlan(Mode mode, HostTools tools, Collection<Path> extraReadOnly, Path privateTime) {
        this(mode, tools, extraReadOnly, privateTime, null);
    }

    /**
     * @param state the sandbox's own root-owned directory, or null: its {@value #SECCOMP_FILE} (the compiled
     *     {@link SeccompFilter}) is loaded by bubblewrap ({@code --seccomp 3}, the descriptor opened by
     *     {@link LaunchWrapper}); its empty file {@value #EMPTY_FILE} masks host files of /proc (a bind of
     *     /dev/null cannot be read: bubblewrap's binds in a user namespace are nodev); its {@value #LAUNCH_FILE},
     *     where there is one, is the compiled launcher that replaces the shell and setpriv of a run's start
     */
    LaunchPlan(Mode mode, HostTools tools, Collection<Path> extraReadOnly, Path privateTime, Path state) {
        this.mode = mode;
        this.tools = tools;
        this.viewArgs = mode == Mode.BWRAP ? systemView(extraReadOnly) : List.of();
        this.privateTime = mode == Mode.BWRAP ? privateTime : null;
        this.seccomp = mode == Mode.BWRAP && state != null && Files.isRegularFile(state.resolve(SECCOMP_FILE))
                ? state.resolve(SECCOMP_FILE) : null;
        this.empty = mode == Mode.BWRAP && state != null && Files.isRegularFile(state.resolve(EMPTY_FILE))
                ? state.resolve(EMPTY_FILE) : null;
        this.launcher = mode == Mode.BWRAP && state != null && Files.isRegularFile(state.resolve(LAUNCH_FILE))
                ? state.resolve(LAUNCH_FILE) : null;
    }

    /** Whether runs of this plan are under the seccomp filter. */
    boolean filters() {
        return seccomp != null;
    }

    Mode mode() {
        return mode;
    }

    /** Where the program's working directory is, as the program sees it. */
    String workPath(LaunchSpec s) {
        return mode == Mode.BWRAP ? SANDBOX_WORK : s.hostDir().toString();
    }

    /** Whether runs get their own uid. */
    boolean dropsUid() {
        return tools.root() && tools.setpriv() != null;
    }

    boolean measures() {
        return tools.time() != null;
    }

    /** The program's command inside the sandbox: the interpreter, its profile's arguments, the file, the program's arguments. */
    List<String> programArgv(Path binary, ExecutionRequest request) {
        List<String> a = new ArrayList<>();
        a.add(binary.toString());
        a.addAll(Toolchains.interpreterArgs(request.program().language(), request.limits()));
        a.add(request.program().mainFileName());
        a.addAll(request.args());
        return a;
    }

    /** The program's whole environment; {@code hostDir} is its work directory on the host (unused under bubblewrap). */
    Map<String, String> environment(Path hostDir) {
        String work = mode == Mode.BWRAP ? SANDBOX_WORK : hostDir.toString();
        Map<String, String> env = new java.util.HashMap<>();
        env.put("PATH", "/usr/bin:/bin");
        env.put("HOME", work);
        env.put("LANG", "C.UTF-8");
        env.put("TMPDIR", "/tmp");
        // no PYTHON* variables: the interpreter flags (Toolchains) say the same in every tier
        return env;
    }

    /**
     * Whether RLIMIT_AS bounds a language's runtime. Python's does: a plain allocation past it fails with
     * MemoryError, the program's own error, before the group's limit kills it. Not V8, which reserves huge address
     * ranges up front; nor Bash, whose scripts start other runtimes (the compiled languages' stages start javac, go
     * and rustc, which reserve their address space too): they get RLIMIT_DATA without a control group, and the
     * group's memory limit (which charges every page of every process) with one.
     */
    static boolean addressSpaceLimit(Language language) {
        return language == Language.PYTHON;
    }

    /** One rlimit by its name in Python's resource module ({@code RLIMIT_CPU}). */
    record Limit(String name, long soft, long hard) {
    }

    /** The rlimits of a request, as prlimit sets them on the cold path and the bootstrap on the pre-started one. */
    static List<Limit> rlimits(ResourceLimits l, boolean addressSpace) {
        return rlimits(l, addressSpace, false);
    }

    /**
     * @param grouped whether the run has a control group of its own, which holds its memory and CPU time: then
     *     a runtime that reserves its address space up front (V8) gets no RLIMIT_DATA, whose failures ("Array
     *     buffer allocation failed") read as the program's own error, and the group's OOM kill ends it as
     *     MEMORY_LIMIT; Python keeps RLIMIT_AS, so a plain allocation fails with MemoryError before the group's
     *     limit is reached. RLIMIT_CPU is then only a backstop a second past the limit: the kernel checks it
     *     against tick-sampled time, which on a busy core runs ahead of the group's exact figure (SIGXCPU came
     *     at 0.98 s of the group's CPU under a 1 s limit), and the group's figure is what the verdict is read from
     */
    static List<Limit> rlimits(ResourceLimits l, boolean addressSpace, boolean grouped) {
        long cpu = Math.max(1, (l.cpuTime().toMillis() + 999) / 1000) + (grouped ? 1 : 0);
        List<Limit> out = new ArrayList<>();
        out.add(new Limit("RLIMIT_CPU", cpu, cpu + 1));
        if (addressSpace) {
            out.add(new Limit("RLIMIT_AS", l.memoryBytes(), l.memoryBytes()));
        } else if (!grouped) {
            out.add(new Limit("RLIMIT_DATA", l.memoryBytes(), l.memoryBytes()));
        }
        out.add(new Limit("RLIMIT_NPROC", l.maxProcesses(), l.maxProcesses()));
        out.add(new Limit("RLIMIT_FSIZE", l.maxFileBytes(), l.maxFileBytes()));
        out.add(new Limit("RLIMIT_NOFILE", OPEN_FILES, OPEN_FILES));
        out.add(new Limit("RLIMIT_CORE", 0, 0));
        return out;
    }

    /**
     * The host command line of a run. With a control group or a seccomp filter it starts with the
     * {@link LaunchWrapper}, which joins the group and opens the filter before anything of the run exists.
     */
    List<String> command(LaunchSpec s) {
        List<Path> procs = s.group() == null ? List.of() : s.group().procsFiles();
        if (launcher != null) {
            // one program start where the shell and setpriv were two: it drops to the run's uid itself
            return LaunchWrapper.compiled(launcher, seccomp, procs, s.uid(), launch(s, false));
        }
        List<String> cmd = launch(s, true);
        if (seccomp == null && s.group() == null) {
            return cmd;
        }
        return LaunchWrapper.argv(seccomp, procs, cmd);
    }

    private List<String> launch(LaunchSpec s, boolean dropUid) {
        List<String> cmd = new ArrayList<>();
        switch (mode) {
            case BWRAP:
                if (dropUid) {
                    setpriv(cmd, s);
                }
                bwrap(cmd, s);
                inner(cmd, s, s.rusageHost() == null ? null : SANDBOX_RUSAGE);
                break;
            case UNSHARE:
                unshare(cmd, s);
                setpriv(cmd, s);
                inner(cmd, s, s.rusageHost() == null ? null : s.rusageHost().toString());
                break;
            default:
                if (s.uid() >= 0) {
                    setpriv(cmd, s);
                } else if (tools.setsid() != null) {
                    // its own process group, so that a kill reaches its children at least
                    cmd.add(tools.setsid().toString());
                }
                inner(cmd, s, s.rusageHost() == null ? null : s.rusageHost().toString());
                break;
        }
        return cmd;
    }

    private void setpriv(List<String> cmd, LaunchSpec s) {
        if (s.uid() < 0) {
            return;
        }
        cmd.add(tools.setpriv().toString());
        cmd.add("--reuid=" + s.uid());
        cmd.add("--regid=" + s.uid());
        cmd.add("--clear-groups");
        cmd.add("--no-new-privs");
        cmd.add("--");
    }

    private void bwrap(List<String> cmd, LaunchSpec s) {
        ResourceLimits l = s.limits();
        cmd.add(tools.bwrap().toString());
        cmd.add("--unshare-all");
        cmd.add("--unshare-user");
        cmd.add("--disable-userns");
        if (l.network()) {
            cmd.add("--share-net");
        }
        cmd.add("--die-with-parent");
        cmd.add("--new-session");
        if (seccomp != null) {
            cmd.addAll(LaunchWrapper.bwrapSeccompArgs());
        }
        if (s.supervised()) {
            // the supervisor is the namespace's init: out of the program's reach, and its end ends the run
            cmd.add("--as-pid-1");
        } else if (s.rusageHost() != null && tools.time() != null) {
            // GNU time becomes the namespace's init in place of bwrap's own reaper: the measurement then
            // costs an exec, not an extra process; when the program ends it exits and the kernel kills the rest
            cmd.add("--as-pid-1");
        }
        cmd.add("--hostname");
        cmd.add("sandbox");
        cmd.addAll(viewArgs);
        if (l.network()) {
            for (String f : NETWORK_FILES) {
                cmd.add("--ro-bind-try");
                cmd.add(f);
                cmd.add(f);
            }
        }
        procAndDev(cmd);
        tmpfs(cmd, "/tmp", Math.max(4 * ResourceLimits.MIB, l.memoryBytes() / 4));
        tmpfs(cmd, "/dev/shm", Math.max(ResourceLimits.MIB, l.memoryBytes() / 8));
        tmpfs(cmd, SANDBOX_WORK, Math.max(4 * ResourceLimits.MIB, l.memoryBytes() / 2));
        for (String f : s.files()) {
            // read-only: nothing writable in the view is backed by the host's disk (the supervised path
            // binds nothing at all: its supervisor writes the files into the tmpfs)
            cmd.add("--ro-bind");
            cmd.add(s.hostDir().resolve(f).toString());
            cmd.add(SANDBOX_WORK + "/" + f);
        }
        for (LaunchSpec.Bind b : s.binds()) {
            cmd.add("--ro-bind");
            cmd.add(b.host().toString());
            cmd.add(b.sandbox());
        }
        if (s.rusageHost() != null) {
            cmd.add("--bind");
            cmd.add(s.rusageHost().toString());
            cmd.add(SANDBOX_RUSAGE);
            if (privateTime != null && tools.time() != null) {
                cmd.add("--ro-bind");
                cmd.add(privateTime.toString());
                cmd.add(SANDBOX_TIME);
            }
        }
        cmd.add("--remount-ro");
        cmd.add("/");
        cmd.add("--remount-ro");
        cmd.add("/dev");
        cmd.add("--chdir");
        cmd.add(SANDBOX_WORK);
        environment(cmd, s.env());
        cmd.add("--");
    }

    /** A /proc of the sandbox's pid namespace with {@link #MASKED_PROC} read as empty, and a minimal /dev. */
    private void procAndDev(List<String> cmd) {
        cmd.add("--proc");
        cmd.add("/proc");
        for (String f : empty == null ? List.<String>of() : MASKED_PROC) {
            cmd.addAll(List.of("--ro-bind", empty.toString(), f));
        }
        cmd.add("--dev");
        cmd.add("/dev");
    }

    /** Exactly {@code env} inside, in a stable order. */
    private static void environment(List<String> cmd, Map<String, String> env) {
        cmd.add("--clearenv");
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            cmd.addAll(List.of("--setenv", e.getKey(), e.getValue()));
        }
    }

    /** Bytes of a forked program's command line that /proc shows (a longer one is cut there, never in the program). */
    static final int ZYGOTE_ARGV_ROOM = 4096;
    /** Where a zygote sees its own files: its script, door, filter and the judge's channels (covered in each fork). */
    static final String ZYGOTE_DIR = "/.codeagent-zygote";

    /** Whether this plan can start a {@link Zygote}: bubblewrap, the filter (each fork loads it) and the masking file. */
    boolean zygotes() {
        return mode == Mode.BWRAP && seccomp != null && empty != null && launcher != null;
    }

    /**
     * The host command line of a {@link Zygote}: {@code zygote.py} ({@code dir/zygote.py}) as root with its
     * capabilities in a bubblewrap sandbox of the tier's view without a user namespace (each fork sets its own uid,
     * which a user namespace of one mapped uid could not), its own pid, network, IPC and UTS namespaces, joined to
     * {@code group}. Bound in: the door ({@code doorDir}), the judge's channels and scripts, the filter, the
     * launcher (each run's init), the masking file, mount points for a run's channel, and the run groups' parents
     * (read-write: a fork joins its groups there) — every one of them covered again in each fork before its program
     * runs.
     */
    List<String> zygoteCommand(ChildGroup group, Path python, Path dir, Path doorDir, Path channels, Path scripts,
            List<Path> groupParents, List<String> pythonFlags) {
        List<String> cmd = new ArrayList<>();
        cmd.add(tools.bwrap().toString());
        cmd.addAll(List.of("--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts", "--die-with-parent",
                "--new-session", "--cap-add", "ALL", "--hostname", "sandbox"));
        cmd.addAll(viewArgs);
        procAndDev(cmd);
        for (String t : List.of("/tmp", "/dev/shm", SANDBOX_WORK)) {
            tmpfs(cmd, t, 4 * ResourceLimits.MIB);
        }
        // everything of the zygote's own under one directory, which each fork covers before its program runs
        cmd.addAll(List.of("--ro-bind", dir.resolve("zygote.py").toString(), ZYGOTE_DIR + "/zygote.py"));
        cmd.addAll(List.of("--ro-bind", seccomp.toString(), ZYGOTE_DIR + "/state/" + SECCOMP_FILE));
        cmd.addAll(List.of("--ro-bind", empty.toString(), ZYGOTE_DIR + "/state/" + EMPTY_FILE));
        // each run's init: the launcher again (`launch --init`), spawned rather than forked from the zygote's heap
        cmd.addAll(List.of("--ro-bind", launcher.toString(), ZYGOTE_DIR + "/state/" + LAUNCH_FILE));
        cmd.addAll(List.of("--ro-bind", doorDir.toString(), ZYGOTE_DIR + "/door"));
        cmd.addAll(List.of("--ro-bind", channels.toString(), ZYGOTE_DIR + "/channels"));
        if (scripts != null) {
            cmd.addAll(List.of("--ro-bind", scripts.toString(), JudgeChannel.SANDBOX_LIB));
        }
        // (a directory bubblewrap makes for a bind is root's alone: the program's uid must pass through this one)
        cmd.addAll(List.of("--perms", "0755", "--dir", JudgeChannel.SANDBOX_CHANNEL));
        for (String end : List.of(JudgeChannel.TO_CANDIDATE, JudgeChannel.TO_JUDGE)) {
            cmd.addAll(List.of("--ro-bind", empty.toString(), JudgeChannel.SANDBOX_CHANNEL + "/" + end));
        }
        for (Path parent : groupParents) {
            cmd.addAll(List.of("--bind", parent.toString(), parent.toString()));
        }
        cmd.addAll(List.of("--remount-ro", "/", "--chdir", SANDBOX_WORK));
        environment(cmd, environment(null));
        cmd.add("--");
        cmd.add(python.toString());
        cmd.addAll(pythonFlags);
        cmd.add(ZYGOTE_DIR + "/zygote.py");
        cmd.add(Zygote.SANDBOX_DOOR);
        cmd.add(ZYGOTE_DIR + "/state/" + SECCOMP_FILE);
        cmd.add(ZYGOTE_DIR + "/state/" + EMPTY_FILE);
        cmd.add(MASKED_PROC.isEmpty() ? "-" : String.join(",", MASKED_PROC));
        cmd.add(ZYGOTE_DIR + "/state/" + LAUNCH_FILE);
        // the room a fork writes its program's command line into (what ps and the host's tools then show)
        cmd.add(" ".repeat(ZYGOTE_ARGV_ROOM));
        // joined to its group, no filter (each fork loads its own: filters stack, and this one must still fork
        // into new namespaces), staying root
        return LaunchWrapper.compiled(launcher, null, group == null ? List.of() : group.procsFiles(), -1, cmd);
    }

    private static void tmpfs(List<String> cmd, String path, long size) {
        cmd.add("--size");
        cmd.add(Long.toString(size));
        cmd.add("--tmpfs");
        cmd.add(path);
    }

    private void unshare(List<String> cmd, LaunchSpec s) {
        cmd.add(tools.unshare().toString());
        cmd.add("--pid");
        cmd.add("--fork");
        cmd.add("--kill-child");
        cmd.add("--mount-proc");
        cmd.add("--mount");
        cmd.add("--propagation");
        cmd.add("private");
        if (!s.limits().network()) {
            cmd.add("--net");
        }
        cmd.add("--ipc");
        cmd.add("--uts");
        cmd.add("--");
        // Private, size-capped /tmp and /dev/shm. A shell is the one tool here that can mount before root is
        // dropped. The work directory (and the rusage file) may live under /tmp: they are held open by
        // descriptor and bound back at the same path inside the new /tmp, without canonicalizing (-c).
        long tmp = Math.max(4 * ResourceLimits.MIB, s.limits().memoryBytes() / 4);
        String rusage = s.rusageHost() == null ? "" : s.rusageHost().toString().replace("'", "'\\''");
        StringBuilder script = new StringBuilder("w=$(pwd) && exec 4<. && ");
        if (!rusage.isEmpty()) {
            script.append("exec 3<'").append(rusage).append("' && ");
        }
        script.append("mount -t tmpfs -o size=").append(tmp).append(",mode=1777 tmpfs /tmp && ")
                .append("{ [ ! -d /dev/shm ] || mount -t tmpfs -o size=").append(tmp).append(",mode=1777 tmpfs /dev/shm; } && ")
                .append("mkdir -p \"$w\" && mount -c --bind /proc/self/fd/4 \"$w\" && ");
        if (!rusage.isEmpty()) {
            script.append(": > '").append(rusage).append("' && mount -c --bind /proc/self/fd/3 '").append(rusage)
                    .append("' && exec 3<&- && ");
        }
        script.append("exec 4<&- && cd \"$w\" && exec \"$@\"");
        cmd.add("/bin/sh");
        cmd.add("-c");
        cmd.add(script.toString());
        cmd.add("sh");
    }

    private void inner(List<String> cmd, LaunchSpec s, String rusagePath) {
        if (rusagePath != null && tools.time() != null) {
            cmd.add(privateTime != null ? SANDBOX_TIME : tools.time().toString());
            cmd.add("-q");
            cmd.add("-f");
            cmd.add(TIME_FORMAT);
            cmd.add("-o");
            cmd.add(rusagePath);
        }
        if (tools.prlimit() != null && s.prlimit()) {
            cmd.add(tools.prlimit().toString());
            // the same rlimits the pre-started bootstrap sets: --cpu=2:3, --as=N (soft and hard alike)...
            for (Limit l : rlimits(s.limits(), s.addressSpaceLimit(), s.group() != null)) {
                String option = "--" + l.name().substring("RLIMIT_".length()).toLowerCase(java.util.Locale.ROOT) + "=";
                cmd.add(option + l.soft() + (l.soft() == l.hard() ? "" : ":" + l.hard()));
            }
            cmd.add("--");
        }
        cmd.addAll(s.argv());
    }

    /**
     * A read-only view of the system: /usr, the top-level links into it (or the directories themselves on
     * hosts without a merged /usr), {@link #ETC_OF_USR}, and any interpreter prefix outside /usr. No other /etc, no
     * /home, /root, /var.
     */
    private static List<String> systemView(Collection<Path> extraReadOnly) {
        List<String> a = new ArrayList<>();
        a.add("--ro-bind");
        a.add("/usr");
        a.add("/usr");
        for (String entry : SYSTEM_ENTRIES) {
            Path p = Path.of(entry);
            if (Files.isSymbolicLink(p)) {
                try {
                    a.add("--symlink");
                    a.add(Files.readSymbolicLink(p).toString());
                    a.add(entry);
                } catch (IOException unreadable) {
                    // leave it out of the view
                }
            } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                a.add("--ro-bind");
                a.add(entry);
                a.add(entry);
            }
        }
        for (String f : ETC_OF_USR) {
            a.add("--ro-bind-try");
            a.add(f);
            a.add(f);
        }
        for (Path extra : extraReadOnly) {
            if (!extra.startsWith("/usr")) {
                a.add("--ro-bind");
                a.add(extra.toString());
                a.add(extra.toString());
            }
        }
        return a;
    }
}
