package dev.codeagent.kit.sandbox;

import static dev.codeagent.kit.sandbox.SeccompFilter.RET_ALLOW;
import static dev.codeagent.kit.sandbox.SeccompFilter.RET_ERRNO;
import static dev.codeagent.kit.sandbox.SeccompFilter.RET_KILL_PROCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.kit.sandbox.SeccompFilter.Arch;
import dev.codeagent.kit.sandbox.SeccompFilter.Insn;
import dev.codeagent.kit.sandbox.SeccompPolicy.Refuse;
import dev.codeagent.kit.sandbox.SeccompPolicy.Rule;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compiled program is checked structurally (what the kernel's verifier would refuse) and then run
 * through a small classic-BPF interpreter on the syscalls the policy is about; {@link SeccompFilterIT}
 * checks the same against the real kernel.
 */
class SeccompFilterTest {

    private static final int EPERM = RET_ERRNO | SeccompPolicy.EPERM;
    private static final int X86 = 0xC000003E;
    private static final int I386 = 0x40000003;

    @TempDir
    Path dir;

    /** Runs the program on one seccomp_data, as the kernel's classic-BPF interpreter would. */
    static int run(List<Insn> program, int arch, int nr, long... args) {
        ByteBuffer data = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        data.putInt(0, nr).putInt(4, arch).putLong(8, 0x401000L);
        for (int i = 0; i < args.length; i++) {
            data.putLong(16 + 8 * i, args[i]);
        }
        int a = 0;
        int pc = 0;
        while (true) {
            Insn i = program.get(pc);
            switch (i.code()) {
                case SeccompFilter.BPF_LD_W_ABS -> a = data.getInt(i.k());
                case SeccompFilter.BPF_RET_K -> {
                    return i.k();
                }
                case SeccompFilter.BPF_JEQ_K -> pc += a == i.k() ? i.jt() : i.jf();
                case SeccompFilter.BPF_JGE_K -> pc += Integer.compareUnsigned(a, i.k()) >= 0 ? i.jt() : i.jf();
                case SeccompFilter.BPF_JSET_K -> pc += (a & i.k()) != 0 ? i.jt() : i.jf();
                default -> throw new AssertionError("unknown opcode " + i.code());
            }
            pc++;
        }
    }

    private static int x86(int nr, long... args) {
        return run(SeccompFilter.compile(Arch.X86_64, SeccompPolicy.RULES).program(), X86, nr, args);
    }

    @ParameterizedTest
    @EnumSource(Arch.class)
    void everyJumpLandsInsideTheProgramAndEveryPathEndsInAReturn(Arch arch) {
        List<Insn> p = SeccompFilter.compile(arch, SeccompPolicy.RULES).program();
        assertThat(p.size()).isBetween(10, SeccompFilter.MAX_INSNS - 1);
        for (int pc = 0; pc < p.size(); pc++) {
            Insn i = p.get(pc);
            assertThat(i.jt()).isBetween(0, 255);
            assertThat(i.jf()).isBetween(0, 255);
            if (i.code() == SeccompFilter.BPF_JEQ_K || i.code() == SeccompFilter.BPF_JGE_K || i.code() == SeccompFilter.BPF_JSET_K) {
                assertThat(pc + 1 + i.jt()).as("true branch of %d", pc).isLessThan(p.size());
                assertThat(pc + 1 + i.jf()).as("false branch of %d", pc).isLessThan(p.size());
            }
            if (i.code() == SeccompFilter.BPF_LD_W_ABS) {
                assertThat(i.k() % 4).isZero();
                assertThat(i.k()).isBetween(0, 60);
            }
        }
        assertThat(p.get(p.size() - 1)).isEqualTo(new Insn(SeccompFilter.BPF_RET_K, 0, 0, RET_ALLOW));
        assertThat(p.get(0)).as("the architecture is checked first")
                .isEqualTo(new Insn(SeccompFilter.BPF_LD_W_ABS, 0, 0, SeccompFilter.OFFSET_ARCH));
    }

    @Test
    void killsAForeignArchitectureAndTheX32Abi() {
        assertThat(x86(39)).as("getpid").isEqualTo(RET_ALLOW);
        assertThat(x86(20)).as("writev").isEqualTo(RET_ALLOW);
        assertThat(run(SeccompFilter.compile(Arch.X86_64, SeccompPolicy.RULES).program(), I386, 102))
                .as("i386 socketcall through int 0x80").isEqualTo(RET_KILL_PROCESS);
        assertThat(x86(0x40000000 | 41, 40)).as("x32 socket").isEqualTo(RET_KILL_PROCESS);
        assertThat(run(SeccompFilter.compile(Arch.AARCH64, SeccompPolicy.RULES).program(), X86, 198, 40))
                .as("an aarch64 filter sees an x86_64 call").isEqualTo(RET_KILL_PROCESS);
    }

    @Test
    void allowsOnlyUnixAndIpSockets() {
        assertThat(x86(41, 1, 1)).isEqualTo(RET_ALLOW);
        assertThat(x86(41, 2, 1)).isEqualTo(RET_ALLOW);
        assertThat(x86(41, 10, 2)).isEqualTo(RET_ALLOW);
        assertThat(x86(41, 40, 1)).as("AF_VSOCK").isEqualTo(EPERM);
        assertThat(x86(41, 16, 3, 15)).as("AF_NETLINK uevents").isEqualTo(EPERM);
        assertThat(x86(41, 16, 3, 4)).as("AF_NETLINK sock_diag").isEqualTo(EPERM);
        assertThat(x86(41, 16, 3, 0)).as("AF_NETLINK route").isEqualTo(RET_ALLOW);
        assertThat(x86(41, 40, 1, 0)).as("AF_VSOCK with protocol 0").isEqualTo(EPERM);
        assertThat(x86(41, 3, 1, 0)).as("AF_AX25 with protocol 0").isEqualTo(EPERM);
        assertThat(x86(41, 17, 3)).as("AF_PACKET").isEqualTo(EPERM);
        assertThat(x86(53, 40, 1)).as("socketpair AF_VSOCK").isEqualTo(EPERM);
        assertThat(x86(53, 1, 1)).as("socketpair AF_UNIX").isEqualTo(RET_ALLOW);
    }

    @Test
    void refusesNewNamespacesButNotThreadsOrFork() {
        long thread = 0x3d0f00L;
        long fork = 0x01200011L;
        assertThat(x86(56, thread)).isEqualTo(RET_ALLOW);
        assertThat(x86(56, fork)).isEqualTo(RET_ALLOW);
        assertThat(x86(56, fork | 0x10000000L)).as("clone(CLONE_NEWUSER)").isEqualTo(EPERM);
        assertThat(x86(56, fork | 0x40000000L)).as("clone(CLONE_NEWNET)").isEqualTo(EPERM);
        assertThat(x86(56, fork | 0x8000L)).as("clone(CLONE_PARENT)").isEqualTo(EPERM);
        assertThat(x86(272, 0x10000000L)).as("unshare(CLONE_NEWUSER)").isEqualTo(EPERM);
        assertThat(x86(272, 0x80L)).as("unshare(CLONE_NEWTIME)").isEqualTo(EPERM);
        assertThat(x86(272, 0x400L)).as("unshare(CLONE_FILES)").isEqualTo(RET_ALLOW);
        assertThat(x86(435)).as("clone3").isEqualTo(RET_ERRNO | SeccompPolicy.ENOSYS);
        assertThat(x86(308)).as("setns").isEqualTo(EPERM);
    }

    @Test
    void letsAProgramSetOnlyItsOwnRlimits() {
        assertThat(x86(302, 0, 7)).as("prlimit64(0), setrlimit's road").isEqualTo(RET_ALLOW);
        assertThat(x86(302, 1, 7)).as("prlimit64(1)").isEqualTo(EPERM);
        assertThat(x86(302, 0x100000000L, 7)).as("only the low half is a pid").isEqualTo(RET_ALLOW);
        assertThat(x86(144, 5, 5)).as("sched_setscheduler of a thread by its tid").isEqualTo(RET_ALLOW);
        assertThat(x86(141, 0, 5, 5)).as("setpriority of a thread by its tid").isEqualTo(RET_ALLOW);
    }

    @Test
    void keepsAslrAndTerminalsAsTheyAre() {
        assertThat(x86(135, 0)).isEqualTo(RET_ALLOW);
        assertThat(x86(135, 0xFFFFFFFFL)).isEqualTo(RET_ALLOW);
        assertThat(x86(135, 0x0040000L)).as("ADDR_NO_RANDOMIZE").isEqualTo(EPERM);
        assertThat(x86(135, 0x0400000L)).as("READ_IMPLIES_EXEC").isEqualTo(EPERM);
        assertThat(x86(16, 0, 0x5412)).as("TIOCSTI").isEqualTo(EPERM);
        assertThat(x86(16, 0, 0x541C)).as("TIOCLINUX").isEqualTo(EPERM);
        assertThat(x86(16, 0, 0x5401)).as("TCGETS").isEqualTo(RET_ALLOW);
    }

    @Test
    void refusesEveryWholeCallRuleWithEperm() {
        for (Rule r : SeccompPolicy.RULES) {
            if (r.action() instanceof Refuse refuse && r.x86_64() != SeccompPolicy.NONE) {
                assertThat(x86(r.x86_64())).as(r.syscall()).isEqualTo(RET_ERRNO | refuse.errno());
            }
        }
        assertThat(x86(425)).as("io_uring_setup").isEqualTo(EPERM);
        assertThat(x86(101)).as("ptrace").isEqualTo(EPERM);
    }

    @Test
    void everyRuleSaysWhyAndNamesADistinctSyscall() {
        Set<String> names = new HashSet<>();
        for (Rule r : SeccompPolicy.RULES) {
            assertThat(r.why()).as(r.syscall()).isNotBlank();
            assertThat(names.add(r.syscall())).as("listed once: " + r.syscall()).isTrue();
        }
    }

    @Test
    void refusesTwoRulesForOneSyscall() {
        List<Rule> twice = List.of(new Rule("a", 5, 5, new Refuse(1), "x"), new Rule("b", 5, 6, new Refuse(1), "y"));
        assertThatThrownBy(() -> SeccompFilter.compile(Arch.X86_64, twice)).hasMessageContaining("two seccomp rules");
    }

    @Test
    void writesEightNativeEndianBytesPerInstruction() throws Exception {
        SeccompFilter f = SeccompFilter.compile(Arch.X86_64, SeccompPolicy.RULES);
        Path file = f.writeTo(dir.resolve("seccomp.bpf"));
        byte[] bytes = Files.readAllBytes(file);
        assertThat(bytes).hasSize(8 * f.program().size());
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        Insn last = f.program().get(f.program().size() - 1);
        int at = bytes.length - 8;
        assertThat(b.getShort(at)).isEqualTo((short) last.code());
        assertThat(b.getInt(at + 4)).isEqualTo(RET_ALLOW);
        assertThat(b.getShort(8)).isEqualTo((short) SeccompFilter.BPF_JEQ_K);
        assertThat(b.getInt(12)).isEqualTo(X86);
        try (var entries = Files.list(dir)) {
            assertThat(entries).containsExactly(file);
        }
    }
}
