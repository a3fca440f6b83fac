package dev.codeagent.kit.sandbox;

import dev.codeagent.application.host.ReplacedFile;
import dev.codeagent.kit.sandbox.SeccompPolicy.Action;
import dev.codeagent.kit.sandbox.SeccompPolicy.AllowOnly;
import dev.codeagent.kit.sandbox.SeccompPolicy.AllowOnlyOrPair;
import dev.codeagent.kit.sandbox.SeccompPolicy.OnlyOnItself;
import dev.codeagent.kit.sandbox.SeccompPolicy.Refuse;
import dev.codeagent.kit.sandbox.SeccompPolicy.RefuseIf;
import dev.codeagent.kit.sandbox.SeccompPolicy.RefuseIfAnyBit;
import dev.codeagent.kit.sandbox.SeccompPolicy.Rule;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A classic-BPF seccomp program compiled from {@link SeccompPolicy}, in the form bubblewrap's
 * {@code --seccomp FD} reads: an array of {@code struct sock_filter} (8 bytes each, native byte order).
 *
 * <p>The program first checks the architecture field and kills the process on any other ABI (an x86_64
 * program can still make i386 syscalls through {@code int 0x80}, and x32 calls carry bit 30 in the
 * number: both would bypass a table of x86_64 numbers). Then one compare per listed syscall, each followed
 * by its small body; everything else is allowed.
 */
public final class SeccompFilter {

    /** One {@code struct sock_filter}. */
    record Insn(int code, int jt, int jf, int k) {
    }

    /** The architectures with a syscall table in {@link SeccompPolicy}. */
    public enum Arch {
        X86_64(0xC000003E),
        AARCH64(0xC00000B7);

        /** The AUDIT_ARCH_* value the kernel puts in seccomp_data.arch. */
        final int audit;

        Arch(int audit) {
            this.audit = audit;
        }

        int number(Rule r) {
            return this == X86_64 ? r.x86_64() : r.aarch64();
        }

        /** The JVM's architecture, if the policy has a table for it. */
        public static Optional<Arch> host() {
            String a = System.getProperty("os.arch", "");
            if (a.equals("amd64") || a.equals("x86_64")) {
                return Optional.of(X86_64);
            }
            if (a.equals("aarch64") || a.equals("arm64")) {
                return Optional.of(AARCH64);
            }
            return Optional.empty();
        }
    }

    static final int BPF_LD_W_ABS = 0x20;
    static final int BPF_JEQ_K = 0x15;
    static final int BPF_JGE_K = 0x35;
    static final int BPF_JSET_K = 0x45;
    static final int BPF_RET_K = 0x06;

    static final int RET_KILL_PROCESS = 0x80000000;
    static final int RET_ERRNO = 0x00050000;
    static final int RET_ALLOW = 0x7FFF0000;

    static final int OFFSET_NR = 0;
    static final int OFFSET_ARCH = 4;
    static final int OFFSET_ARGS = 16;
    /** The kernel refuses longer programs (BPF_MAXINSNS). */
    static final int MAX_INSNS = 4096;
    private static final int X32_SYSCALL_BIT = 0x40000000;

    private final Arch arch;
    private final List<Insn> program;

    private SeccompFilter(Arch arch, List<Insn> program) {
        this.arch = arch;
        this.program = List.copyOf(program);
    }

    /** The policy compiled for the JVM's architecture, or empty where the policy has no syscall table. */
    public static Optional<SeccompFilter> forHost() {
        return Arch.host().map(a -> compile(a, SeccompPolicy.RULES));
    }

    static SeccompFilter compile(Arch arch, List<Rule> rules) {
        List<Rule> own = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        for (Rule r : rules) {
            int nr = arch.number(r);
            if (nr == SeccompPolicy.NONE) {
                continue;
            }
            if (!seen.add(nr)) {
                throw new IllegalArgumentException("two seccomp rules for syscall " + nr + " (" + r.syscall() + ")");
            }
            own.add(r);
        }
        own.sort(Comparator.comparingInt(arch::number));

        List<Insn> p = new ArrayList<>();
        p.add(new Insn(BPF_LD_W_ABS, 0, 0, OFFSET_ARCH));
        p.add(new Insn(BPF_JEQ_K, 1, 0, arch.audit));
        p.add(new Insn(BPF_RET_K, 0, 0, RET_KILL_PROCESS));
        p.add(new Insn(BPF_LD_W_ABS, 0, 0, OFFSET_NR));
        if (arch == Arch.X86_64) {
            p.add(new Insn(BPF_JGE_K, 0, 1, X32_SYSCALL_BIT));
            p.add(new Insn(BPF_RET_K, 0, 0, RET_KILL_PROCESS));
        }
        for (Rule r : own) {
            List<Insn> body = body(r.action());
            if (body.size() > 255) {
                throw new IllegalStateException("seccomp rule for " + r.syscall() + " is too long for a short jump");
            }
            p.add(new Insn(BPF_JEQ_K, 0, body.size(), arch.number(r)));
            p.addAll(body);
        }
        p.add(new Insn(BPF_RET_K, 0, 0, RET_ALLOW));
        if (p.size() >= MAX_INSNS) {
            throw new IllegalStateException("seccomp program has " + p.size() + " instructions, the kernel takes " + MAX_INSNS);
        }
        return new SeccompFilter(arch, p);
    }

    /** The instructions of one rule; they run with the syscall's number in A and end in a return. */
    private static List<Insn> body(Action a) {
        List<Insn> b = new ArrayList<>();
        if (a instanceof Refuse r) {
            b.add(ret(RET_ERRNO | r.errno()));
        } else if (a instanceof AllowOnly o) {
            matchAny(b, o.arg(), o.allowed(), ret(RET_ERRNO | o.errno()), ret(RET_ALLOW));
        } else if (a instanceof AllowOnlyOrPair o) {
            // ld arg; jeq allowed_i -> allow; jeq also ? next : deny; ld arg2; jeq also2 ? allow : deny; deny; allow
            b.add(loadArg(o.arg()));
            List<Integer> sorted = new ArrayList<>(new TreeSet<>(o.allowed()));
            int n = sorted.size();
            for (int i = 0; i < n; i++) {
                b.add(new Insn(BPF_JEQ_K, n + 3 - i, 0, sorted.get(i)));
            }
            b.add(new Insn(BPF_JEQ_K, 0, 2, o.also()));
            b.add(loadArg(o.arg2()));
            b.add(new Insn(BPF_JEQ_K, 1, 0, o.also2()));
            b.add(ret(RET_ERRNO | o.errno()));
            b.add(ret(RET_ALLOW));
        } else if (a instanceof RefuseIf o) {
            matchAny(b, o.arg(), o.refused(), ret(RET_ALLOW), ret(RET_ERRNO | o.errno()));
        } else if (a instanceof OnlyOnItself o) {
            // per argument: ld arg; jeq value ? next : deny; then allow; deny
            int n = o.args().size();
            for (int i = 0; i < n; i++) {
                b.add(loadArg(o.args().get(i).arg()));
                b.add(new Insn(BPF_JEQ_K, 0, 2 * (n - i) - 1, o.args().get(i).value()));
            }
            b.add(ret(RET_ALLOW));
            b.add(ret(RET_ERRNO | o.errno()));
        } else if (a instanceof RefuseIfAnyBit o) {
            b.add(loadArg(o.arg()));
            b.add(new Insn(BPF_JSET_K, 0, 1, o.mask()));
            b.add(ret(RET_ERRNO | o.errno()));
            b.add(ret(RET_ALLOW));
        } else {
            throw new IllegalArgumentException("unknown seccomp action " + a);
        }
        return b;
    }

    /** Loads an argument's low half, then: equal to one of {@code values} -> {@code onMatch}, else {@code otherwise}. */
    private static void matchAny(List<Insn> b, int arg, Set<Integer> values, Insn otherwise, Insn onMatch) {
        b.add(loadArg(arg));
        List<Integer> sorted = new ArrayList<>(new TreeSet<>(values));
        int n = sorted.size();
        for (int i = 0; i < n; i++) {
            // from the i-th compare, the match return is n - i instructions ahead (past the rest and 'otherwise')
            b.add(new Insn(BPF_JEQ_K, n - i, 0, sorted.get(i)));
        }
        b.add(otherwise);
        b.add(onMatch);
    }

    private static Insn loadArg(int arg) {
        if (arg < 0 || arg > 5) {
            throw new IllegalArgumentException("syscalls have arguments 0 to 5, not " + arg);
        }
        // low half of the 64-bit argument on a little-endian machine (both architectures here are)
        return new Insn(BPF_LD_W_ABS, 0, 0, OFFSET_ARGS + 8 * arg);
    }

    private static Insn ret(int k) {
        return new Insn(BPF_RET_K, 0, 0, k);
    }

    public Arch arch() {
        return arch;
    }

    List<Insn> program() {
        return program;
    }

    /** The program as bubblewrap reads it from {@code --seccomp FD}. */
    public byte[] bytes() {
        ByteBuffer buf = ByteBuffer.allocate(program.size() * 8).order(ByteOrder.nativeOrder());
        for (Insn i : program) {
            buf.putShort((short) i.code()).put((byte) i.jt()).put((byte) i.jf()).putInt(i.k());
        }
        return buf.array();
    }

    /**
     * Writes the program to {@code file} (0644: it is no secret, and the wrapper that opens it may already
     * run as the program's uid), replacing it atomically so a concurrent launch never reads half a program.
     */
    public Path writeTo(Path file) throws IOException {
        return ReplacedFile.write(file, bytes(), PosixFilePermissions.fromString("rw-r--r--"));
    }
}
