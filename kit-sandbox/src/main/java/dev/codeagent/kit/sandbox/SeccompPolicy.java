package dev.codeagent.kit.sandbox;

import java.util.List;
import java.util.Set;

/**
 * The syscall filter codeagent puts under every program, as a table a reviewer can read (the process tier loads it
 * with bubblewrap; the docker tier's supervisor installs it itself where the engine's profile does not reach, under
 * gVisor; the docker profile repeats it for runc, cross-checked by a test): each rule
 * names a syscall, what happens to it, and why. Everything not listed is allowed (namespaces, the dropped
 * uid and the control group do the rest); a refused call fails with {@code EPERM} so the program sees an
 * error instead of dying. The list follows Docker's default profile (what it refuses to a container
 * without capabilities), narrowed and widened where a one-shot code run differs; {@link SeccompFilter}
 * compiles it to BPF.
 *
 * <p>Syscall numbers were read from the kernel headers ({@code asm/unistd_64.h} for x86_64,
 * {@code asm-generic/unistd.h} for aarch64); {@link #NONE} marks a syscall an architecture does not have.
 */
final class SeccompPolicy {

    static final int NONE = -1;
    static final int EPERM = 1;
    static final int ENOSYS = 38;

    static final int AF_UNIX = 1;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int AF_NETLINK = 16;
    static final int NETLINK_ROUTE = 0;
    static final int TIOCSTI = 0x5412;
    static final int TIOCLINUX = 0x541C;
    static final int PER_LINUX = 0;
    static final int PERSONALITY_QUERY = 0xFFFFFFFF;
    /** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET: the bits Docker masks too. */
    static final int CLONE_NAMESPACES = 0x7E020000;
    /** The namespace bits plus CLONE_NEWTIME, which only unshare() and clone3() take (in clone() it is CSIGNAL). */
    static final int UNSHARE_NAMESPACES = CLONE_NAMESPACES | 0x80;
    /**
     * CLONE_PARENT: the child becomes the caller's parent's. On the process tier's zygote path the program is the
     * zygote's own child (its parent outside the program's namespace), so such a child was one the zygote never waited
     * for: its zombie kept the run's namespace from ending, the run hung until its wall limit, and its uid was retired
     * (found by an attack review). Plain programs never need it.
     */
    static final int CLONE_PARENT = 0x00008000;

    private SeccompPolicy() {
    }

    /** What a rule does with a matching call. */
    sealed interface Action {
    }

    /** The call fails with {@code errno}, whatever its arguments. */
    record Refuse(int errno) implements Action {
    }

    /**
     * The call is allowed when the low 32 bits of argument {@code arg} are one of {@code allowed}, else it
     * fails with {@code errno}. Only the low half is compared: each argument checked here is a 32-bit int in
     * the kernel's own signature, so the high half is never seen by the kernel either.
     */
    record AllowOnly(int arg, Set<Integer> allowed, int errno) implements Action {
        AllowOnly {
            allowed = Set.copyOf(allowed);
        }
    }

    /**
     * As {@link AllowOnly}, and also allowed when argument {@code arg} is {@code also} and argument {@code arg2}
     * is {@code also2} (both low 32 bits): one family with one protocol.
     */
    record AllowOnlyOrPair(int arg, Set<Integer> allowed, int also, int arg2, int also2, int errno) implements Action {
        AllowOnlyOrPair {
            allowed = Set.copyOf(allowed);
        }
    }

    /** The call fails with {@code errno} when the low 32 bits of argument {@code arg} are one of {@code refused}. */
    record RefuseIf(int arg, Set<Integer> refused, int errno) implements Action {
        RefuseIf {
            refused = Set.copyOf(refused);
        }
    }

    /** The call fails with {@code errno} when argument {@code arg} has any of the bits of {@code mask} set (low 32 bits). */
    record RefuseIfAnyBit(int arg, int mask, int errno) implements Action {
    }

    /**
     * The call is allowed only when every listed argument has its value (low 32 bits), else it fails with
     * {@code errno}: for calls that take a process, the values that name the caller itself.
     */
    record OnlyOnItself(List<ArgIs> args, int errno) implements Action {
        OnlyOnItself {
            args = List.copyOf(args);
        }
    }

    /** Argument {@code arg} (low 32 bits) equals {@code value}. */
    record ArgIs(int arg, int value) {
    }

    /**
     * One line of the policy.
     *
     * @param syscall the kernel's name of the call
     * @param x86_64 its number on x86_64, or {@link #NONE}
     * @param aarch64 its number on aarch64, or {@link #NONE}
     */
    record Rule(String syscall, int x86_64, int aarch64, Action action, String why) {
    }

    private static final Set<Integer> INET_AND_UNIX = Set.of(AF_UNIX, AF_INET, AF_INET6);

    private static Rule refuse(String syscall, int x86, int arm, String why) {
        return new Rule(syscall, x86, arm, new Refuse(EPERM), why);
    }

    private static Rule onItself(String syscall, int x86, int arm, List<ArgIs> args, String why) {
        return new Rule(syscall, x86, arm, new OnlyOnItself(args, EPERM), why);
    }

    /** pid 0: the caller. */
    private static final List<ArgIs> PID_0 = List.of(new ArgIs(0, 0));

    private static final String OTHERS = "the program may set its own rlimits, not those of the supervisor beside it"
            + " that reports its exit status (same uid, same namespace): a lowered RLIMIT_CPU, AS or NOFILE would make"
            + " it fail, and a failed sandbox is retried, so the program would run again. Priority, scheduling class,"
            + " CPU set and I/O class of another process stay allowed: threads set their own by tid (libzmq asserts"
            + " that it can), and a starved supervisor only delays a report the wall clock bounds";

    static final List<Rule> RULES = List.of(
            new Rule("socket", 41, 198, new AllowOnlyOrPair(0, INET_AND_UNIX, AF_NETLINK, 2, NETLINK_ROUTE, EPERM),
                    "only local and IP sockets, and netlink's route protocol: AF_VSOCK's port space is shared with the"
                            + " host and every other run (a covert channel, and the hypervisor on a VM host); AF_PACKET,"
                            + " AF_ALG, the other netlink protocols (uevents, audit, sock_diag, xfrm...) and the rest are"
                            + " kernel attack surface no program here needs. NETLINK_ROUTE stays because Python's"
                            + " socket.if_nameindex(), Node's os.networkInterfaces() and getifaddrs() use it; in the run's"
                            + " own network namespace it shows only lo (Docker allows every netlink protocol)"),
            new Rule("socketpair", 53, 199, new AllowOnly(0, INET_AND_UNIX, EPERM), "the same families as socket()"),
            refuse("io_uring_setup", 425, 425, "io_uring performs I/O that no syscall filter sees, and has been a"
                    + " steady source of kernel exploits (Docker and Google's kernels refuse it)"),
            refuse("io_uring_enter", 426, 426, "see io_uring_setup"),
            refuse("io_uring_register", 427, 427, "see io_uring_setup"),
            refuse("keyctl", 250, 219, "kernel keyrings are not namespaced: shared with the host and other runs"),
            refuse("add_key", 248, 217, "see keyctl"),
            refuse("request_key", 249, 218, "see keyctl"),
            refuse("userfaultfd", 323, 282, "lets a program pause the kernel mid-copy, the usual way to win kernel races"),
            refuse("perf_event_open", 298, 241, "performance counters: side channels and a large kernel surface"),
            refuse("bpf", 321, 280, "eBPF verifier bugs are a recurring path to the kernel"),
            refuse("kexec_load", 246, 104, "replaces the running kernel"),
            refuse("kexec_file_load", 320, 294, "replaces the running kernel"),
            refuse("mount", 165, 40, "the view is built by bubblewrap before the program runs and must stay as built"),
            refuse("umount2", 166, 39, "unmounting would reveal what the view's mounts cover"),
            refuse("pivot_root", 155, 41, "see mount"),
            refuse("chroot", 161, 51, "see mount"),
            refuse("move_mount", 429, 429, "the new mount API: see mount"),
            refuse("open_tree", 428, 428, "the new mount API: see mount"),
            refuse("fsopen", 430, 430, "the new mount API: see mount"),
            refuse("fsconfig", 431, 431, "the new mount API: see mount"),
            refuse("fsmount", 432, 432, "the new mount API: see mount"),
            refuse("fspick", 433, 433, "the new mount API: see mount"),
            refuse("mount_setattr", 442, 442, "the new mount API: see mount"),
            new Rule("unshare", 272, 97, new RefuseIfAnyBit(0, UNSHARE_NAMESPACES, EPERM),
                    "a new user namespace hands the program every capability inside it, and with them the kernel's"
                            + " namespaced-root surface; unsharing files or fs state stays allowed"),
            refuse("setns", 308, 268, "entering another namespace is leaving the sandbox"),
            new Rule("clone", 56, 220, new RefuseIfAnyBit(0, CLONE_NAMESPACES | CLONE_PARENT, EPERM),
                    "threads and fork stay allowed; a child in new namespaces is unshare by another road, and a child"
                            + " given to the caller's parent is one that parent never waits for"),
            new Rule("clone3", 435, 435, new Refuse(ENOSYS),
                    "its flags sit in memory a filter cannot read; ENOSYS makes glibc fall back to clone(), which is"
                            + " checked (Docker does the same)"),
            refuse("ptrace", 101, 117, "no process of the run may inspect or steer another, above all not the"
                    + " supervisor that is the namespace's pid 1"),
            refuse("process_vm_readv", 310, 270, "see ptrace"),
            refuse("process_vm_writev", 311, 271, "see ptrace"),
            refuse("kcmp", 312, 272, "see ptrace"),
            refuse("pidfd_getfd", 438, 438, "steals a descriptor from another process: see ptrace"),
            refuse("process_madvise", 440, 440, "acts on another process's memory: see ptrace"),
            refuse("migrate_pages", 256, 238, "moves another process's pages: see ptrace (mbind and set_mempolicy act"
                    + " on the caller only and stay allowed, NUMA-aware runtimes call them)"),
            refuse("move_pages", 279, 239, "see migrate_pages"),
            new Rule("personality", 135, 92, new AllowOnly(0, Set.of(PER_LINUX, PERSONALITY_QUERY), EPERM),
                    "ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC would switch off ASLR and NX for what the program execs"),
            new Rule("ioctl", 16, 29, new RefuseIf(1, Set.of(TIOCSTI, TIOCLINUX), EPERM),
                    "TIOCSTI and TIOCLINUX push keystrokes into a terminal the program might still share"),
            refuse("init_module", 175, 105, "loads kernel code"),
            refuse("finit_module", 313, 273, "loads kernel code"),
            refuse("delete_module", 176, 106, "unloads kernel code"),
            refuse("acct", 163, 89, "process accounting is host-wide"),
            refuse("swapon", 167, 224, "swap is host-wide"),
            refuse("swapoff", 168, 225, "swap is host-wide"),
            refuse("reboot", 169, 142, "host-wide"),
            refuse("settimeofday", 164, 170, "the clock is not namespaced"),
            refuse("clock_settime", 227, 112, "the clock is not namespaced"),
            refuse("quotactl", 179, 60, "disk quotas are host-wide"),
            refuse("quotactl_fd", 443, 443, "disk quotas are host-wide"),
            refuse("lookup_dcookie", 212, 18, "a profiling interface that names host paths"),
            refuse("open_by_handle_at", 304, 265, "opens a file by handle, bypassing the view (the 'shocker' escape)"),
            refuse("name_to_handle_at", 303, 264, "only useful with open_by_handle_at; leaks mount ids"),
            refuse("iopl", 172, NONE, "raw port I/O"),
            refuse("ioperm", 173, NONE, "raw port I/O"),
            refuse("syslog", 103, 116, "the kernel log is the host's (boot arguments, devices, other runs' crashes)"),
            refuse("vhangup", 153, 58, "hangs up a terminal"),
            refuse("fanotify_init", 300, 262, "watches file access across the whole mount, the host's /usr included"),
            refuse("uselib", 134, NONE, "the a.out loader: legacy kernel surface"),
            onItself("prlimit64", 302, 261, PID_0, OTHERS + " (setrlimit and getrlimit come here with pid 0)"));
}
