package dev.codeagent.sandbox.process;

import dev.codeagent.kit.sandbox.SeccompFilter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The first process of a run: the compiled launcher ({@code launch.c}; {@link #compiled}) or, on a host without
 * a C compiler, a POSIX shell, still root, that writes its own pid into the run's control
 * groups and opens the seccomp program as fd {@value #SECCOMP_FD}, then execs the rest of the launch
 * (setpriv, then {@code bwrap --seccomp 3 ...}). Doing it here rather than from Java after the start closes
 * the race in which the program forks or allocates before it is in its group: the pid joins before a single
 * instruction of the program exists, and every descendant inherits the group. Commons Exec cannot hand a
 * child an extra descriptor, a shell redirection can; bubblewrap reads the program from the descriptor and
 * closes it before exec, so the program starts with fds 0, 1 and 2 only (checked by {@code SeccompFilterIT}).
 */
final class LaunchWrapper {

    /** The descriptor bubblewrap is told to read the filter from: {@code --seccomp 3}. */
    static final int SECCOMP_FD = 3;
    /** The wrapper's exit status when it could not join a group or open the filter; the program never ran. */
    static final int SETUP_FAILED = 125;
    static final Path SHELL = Path.of("/bin/sh");

    /*
     * $1 is the filter file ("" for none), then the cgroup.procs files up to "--", then the command.
     * "command exec" keeps a failed redirection from ending the shell with a status of its own choosing.
     */
    private static final String SCRIPT = "s=$1; shift; "
            + "while [ \"$1\" != -- ]; do echo $$ > \"$1\" || exit " + SETUP_FAILED + "; shift; done; shift; "
            + "if [ -n \"$s\" ]; then command exec " + SECCOMP_FD + "<\"$s\" || exit " + SETUP_FAILED + "; fi; "
            + "exec \"$@\"";

    private LaunchWrapper() {
    }

    /**
     * @param seccomp the compiled filter, or null to run without one (then {@code command} must not say
     *     {@code --seccomp})
     * @param procsFiles the run group's {@code cgroup.procs} files (one per v1 hierarchy, one on v2), or none
     * @param command the launch as it would run without the wrapper
     */
    static List<String> argv(Path seccomp, List<Path> procsFiles, List<String> command) {
        List<String> a = new ArrayList<>();
        a.add(SHELL.toString());
        a.add("-c");
        a.add(SCRIPT);
        a.add("codeagent-launch");
        a.add(seccomp == null ? "" : seccomp.toString());
        for (Path p : procsFiles) {
            a.add(p.toString());
        }
        a.add("--");
        a.addAll(command);
        return a;
    }

    /**
     * The same start through the compiled launcher ({@code launch.c}), which also drops to {@code uid} as
     * {@code setpriv --reuid --regid --clear-groups --no-new-privs} would: {@code command} has no setpriv.
     *
     * @param uid the run's uid, or -1 to stay root
     */
    static List<String> compiled(Path launcher, Path seccomp, List<Path> procsFiles, long uid, List<String> command) {
        List<String> a = new ArrayList<>();
        a.add(launcher.toString());
        a.add(seccomp == null ? "" : seccomp.toString());
        a.add(Long.toString(uid));
        for (Path p : procsFiles) {
            a.add(p.toString());
        }
        a.add("--");
        a.addAll(command);
        return a;
    }

    /** The bubblewrap options that load the filter the wrapper opened. */
    static List<String> bwrapSeccompArgs() {
        return List.of("--seccomp", Integer.toString(SECCOMP_FD));
    }
}
