package dev.codeagent.domain.execution;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * One guarantee a sandbox can give, named by what it promises rather than how a tier achieves it: a
 * caller asks {@code isolation().has(NETWORK_NONE)} of any tier and gets the same answer for the same
 * guarantee, whether it comes from a network namespace (process tier) or {@code NetworkMode none} (docker).
 * The wire name ({@link #wireName()}) is what reports, JSON and config show.
 *
 * <p>A new guarantee gets a constant here, with the same name in every tier that can give it.
 */
public enum IsolationFeature {
    /** Per-process rlimits: CPU seconds, address space or data, processes, file size, open files, no core. */
    RLIMITS("rlimits"),
    /** The program has a pid namespace of its own: it sees and signals no process outside its run. */
    PID_NAMESPACE("pid-ns"),
    /** No network is reachable from the program, not even the host's loopback. */
    NETWORK_NONE("network-none"),
    /** A mount namespace of its own: mounts made inside do not reach the host. */
    MOUNT_NAMESPACE("mount-ns"),
    /** An IPC namespace of its own: no SysV IPC or POSIX message queues shared with the host. */
    IPC_NAMESPACE("ipc-ns"),
    /** A UTS namespace of its own: its host name is not the host's. */
    UTS_NAMESPACE("uts-ns"),
    /** The program sees a filesystem of its own (a minimal read-only view or an image), not the host's files. */
    FS_VIEW("fs-view"),
    /** The program runs as a uid that is not root and holds no privilege on the host. */
    UNPRIVILEGED_UID("unprivileged-uid"),
    /** The program runs in a container. */
    CONTAINER("container"),
    /** Every capability is dropped. */
    CAP_DROP_ALL("cap-drop-all"),
    /** The kernel's no_new_privs flag: setuid binaries cannot raise the program's privileges. */
    NO_NEW_PRIVILEGES("no-new-privileges"),
    /** The root filesystem is mounted read-only. */
    READ_ONLY_ROOT("read-only-root"),
    /** Every writable place is a tmpfs with a size cap. */
    TMPFS_SIZE_CAP("tmpfs-size-cap"),
    /** Nothing writable is backed by the host's disk. */
    TMPFS_ONLY("tmpfs-only"),
    /** A supervisor of the sandbox's own is pid 1 of the run, out of the program's reach. */
    INIT("init"),
    /** A control group limits the memory of the whole run (every process, shm, memfd and tmpfs page). */
    CGROUP_MEMORY("cgroup-memory"),
    /** CPU time is summed over every process of the run and enforced on the sum. */
    CGROUP_CPU("cgroup-cpu"),
    /** A control group caps the number of processes of the whole run. */
    CGROUP_PIDS("cgroup-pids"),
    /** A CPU quota caps how many cores the run may use at once (not its total CPU time). */
    CPU_QUOTA("cpu-quota"),
    /** The container engine's default seccomp profile is in force. */
    SECCOMP_DEFAULT("seccomp-default"),
    /** The sandbox's own seccomp filter is in force. */
    SECCOMP("seccomp"),
    /** An AppArmor profile confines the program. */
    APPARMOR("apparmor"),
    /** The container's root is mapped to an unprivileged host uid (user-namespace remapping). */
    USERNS("userns"),
    /** The program talks to a user-space kernel (gVisor), never to the host kernel's syscall surface. */
    GVISOR("gvisor");

    private final String wireName;

    IsolationFeature(String wireName) {
        this.wireName = wireName;
    }

    /** The name in reports and JSON ({@code "network-none"}). */
    public String wireName() {
        return wireName;
    }

    @Override
    public String toString() {
        return wireName;
    }

    /**
     * The feature with that wire name; also reads the names older versions reported for the same
     * guarantee ({@code net-ns}, {@code net-none}, {@code non-root}, {@code pids-limit}), so stored runs stay readable.
     */
    public static Optional<IsolationFeature> fromWireName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String n = name.trim().toLowerCase(Locale.ROOT);
        switch (n) {
            case "net-ns":
            case "net-none":
                return Optional.of(NETWORK_NONE);
            case "non-root":
                return Optional.of(UNPRIVILEGED_UID);
            case "pids-limit":
                return Optional.of(CGROUP_PIDS);
            default:
                return Arrays.stream(values()).filter(f -> f.wireName.equals(n) || f.name().equalsIgnoreCase(n)).findFirst();
        }
    }
}
