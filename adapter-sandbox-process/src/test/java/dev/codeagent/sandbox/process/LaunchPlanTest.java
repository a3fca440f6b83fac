package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.ResourceLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LaunchPlanTest {

    private static final Path BWRAP = Path.of("/usr/bin/bwrap");
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    private static final Path PRLIMIT = Path.of("/usr/bin/prlimit");
    private static final Path SETSID = Path.of("/usr/bin/setsid");
    private static final Path TIME = Path.of("/usr/bin/time");
    private static final HostTools ROOT = new HostTools(true, BWRAP, SETPRIV, PRLIMIT, Path.of("/usr/bin/unshare"), SETSID, TIME);

    private static LaunchSpec spec(long uid, ResourceLimits limits, boolean as) {
        return new LaunchSpec(uid, Path.of("/tmp/run-1"), List.of("main.py", "pkg/a.py"), List.of("/usr/bin/python3.11", "-S", "main.py", "x"),
                Map.of("PATH", "/usr/bin:/bin", "HOME", "/work"), limits, as, Path.of("/tmp/run-1.rusage"), true);
    }

    @Test
    void bubblewrapRunsAsTheRunsUidInEveryNamespaceWithAMinimalView() {
        List<String> cmd = new LaunchPlan(Mode.BWRAP, ROOT, List.of()).command(spec(200_007, ResourceLimits.defaults(), true));
        assertThat(cmd.subList(0, 6)).containsExactly("/usr/bin/setpriv", "--reuid=200007", "--regid=200007", "--clear-groups",
                "--no-new-privs", "--");
        assertThat(cmd.get(6)).isEqualTo("/usr/bin/bwrap");
        assertThat(cmd).contains("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
                "--clearenv").doesNotContain("--share-net");
        assertThat(Collections.indexOfSubList(cmd, List.of("--ro-bind", "/usr", "/usr"))).isPositive();
        // read-only: nothing writable in the view is the host's disk
        assertThat(Collections.indexOfSubList(cmd, List.of("--ro-bind", "/tmp/run-1/pkg/a.py", "/work/pkg/a.py"))).isPositive();
        // the one rw bind left is GNU time's file, on hosts without a supervisor (tmpfs-only is then missing)
        assertThat(cmd.get(cmd.indexOf("--bind") + 2)).isEqualTo("/.rusage");
        assertThat(Collections.indexOfSubList(cmd, List.of("--remount-ro", "/"))).isPositive();
        assertThat(Collections.indexOfSubList(cmd, List.of("--setenv", "HOME", "/work"))).isPositive();
        // of /etc only what Debian's packages in /usr link to
        assertThat(cmd).noneMatch(a -> (a.startsWith("/etc") && !LaunchPlan.ETC_OF_USR.contains(a)) || a.equals("/home") || a.equals("/root"));
        assertThat(Collections.indexOfSubList(cmd, List.of("--ro-bind-try", "/etc/alternatives", "/etc/alternatives"))).isPositive();
        int sep = cmd.lastIndexOf("--");
        assertThat(cmd.subList(sep + 1, cmd.size())).containsExactly("/usr/bin/python3.11", "-S", "main.py", "x");
        assertThat(cmd).contains("--as-pid-1", "/usr/bin/time", "/.rusage", "--nproc=64", "--as=268435456", "--fsize=16777216", "--core=0",
                "--nofile=256");
    }

    @Test
    void aSupervisedRunJoinsItsGroupLoadsTheFilterMasksProcAndBindsNothingWritable(@org.junit.jupiter.api.io.TempDir Path state)
            throws java.io.IOException {
        java.nio.file.Files.write(state.resolve(LaunchPlan.SECCOMP_FILE), new byte[8]);
        java.nio.file.Files.createFile(state.resolve(LaunchPlan.EMPTY_FILE));
        LaunchPlan plan = new LaunchPlan(Mode.BWRAP, ROOT, List.of(), null, state);
        Supervisor supervisor = Supervisor.compiledAt(Path.of("/tmp/codeagent-bin/supervisor-1"));
        LaunchSpec s = new LaunchSpec(200_007, Path.of("/tmp"), List.of(), supervisor.argv(),
                Map.of("PATH", "/usr/bin:/bin"), ResourceLimits.defaults(), true, null, false, null, true, supervisor.binds());
        List<String> cmd = plan.command(s);
        // the wrapper opens the filter as fd 3 before setpriv; bubblewrap loads it and closes it
        assertThat(cmd.subList(0, 5)).containsExactly("/bin/sh", "-c", cmd.get(2), "codeagent-launch",
                state.resolve(LaunchPlan.SECCOMP_FILE).toString());
        assertThat(Collections.indexOfSubList(cmd, List.of("--seccomp", "3"))).isPositive();
        assertThat(cmd).contains("--as-pid-1").doesNotContain("--bind", "/usr/bin/time", "/.rusage", "/usr/bin/prlimit");
        for (String masked : LaunchPlan.MASKED_PROC) {
            assertThat(Collections.indexOfSubList(cmd, List.of("--ro-bind", state.resolve(LaunchPlan.EMPTY_FILE).toString(), masked)))
                    .isPositive();
        }
        assertThat(LaunchPlan.MASKED_PROC).contains("/proc/cmdline", "/proc/locks");
        int sep = cmd.lastIndexOf("--");
        assertThat(cmd.subList(sep + 1, cmd.size())).containsExactly("/.supervisor");
        // the execute-only binary is the one thing of the host bound in
        assertThat(Collections.indexOfSubList(cmd, List.of("--ro-bind", "/tmp/codeagent-bin/supervisor-1", "/.supervisor")))
                .isPositive();
        // outside bubblewrap there is nothing to load the filter: no wrapper without a group either
        assertThat(new LaunchPlan(Mode.PLAIN, ROOT, List.of(), null, state).command(spec(200_007, ResourceLimits.defaults(), true))
                .get(0)).isEqualTo("/usr/bin/setpriv");
    }

    @Test
    void withACompiledLauncherInTheStateDirectoryARunStartsThroughItAndHasNoShellOrSetpriv(
            @org.junit.jupiter.api.io.TempDir Path state) throws java.io.IOException {
        java.nio.file.Files.write(state.resolve(LaunchPlan.SECCOMP_FILE), new byte[8]);
        java.nio.file.Files.write(state.resolve(LaunchPlan.LAUNCH_FILE), new byte[8]);
        LaunchPlan plan = new LaunchPlan(Mode.BWRAP, ROOT, List.of(), null, state);
        List<String> cmd = plan.command(spec(200_007, ResourceLimits.defaults(), true));
        assertThat(cmd.subList(0, 4)).containsExactly(state.resolve(LaunchPlan.LAUNCH_FILE).toString(),
                state.resolve(LaunchPlan.SECCOMP_FILE).toString(), "200007", "--");
        assertThat(cmd.get(4)).isEqualTo("/usr/bin/bwrap");
        assertThat(cmd).doesNotContain("/bin/sh", "/usr/bin/setpriv");
        assertThat(Collections.indexOfSubList(cmd, List.of("--seccomp", "3"))).isPositive();
    }

    @Test
    void theSandboxInitRunsFromTheExecuteOnlyCopyOfTimeBoundIntoTheView() {
        Path copy = Path.of("/tmp/codeagent-bin/time-1-2");
        List<String> cmd = new LaunchPlan(Mode.BWRAP, ROOT, List.of(), copy).command(spec(200_007, ResourceLimits.defaults(), true));
        assertThat(Collections.indexOfSubList(cmd, List.of("--ro-bind", copy.toString(), "/.time"))).isPositive();
        int init = cmd.lastIndexOf("/.time");
        assertThat(cmd.get(init - 1)).isEqualTo("--");
        assertThat(cmd.get(init + 1)).isEqualTo("-q");
        assertThat(cmd).doesNotContain("/usr/bin/time");
        // outside bubblewrap the copy is not used (there it was measured to stay ptraceable)
        assertThat(new LaunchPlan(Mode.PLAIN, ROOT, List.of(), copy).command(spec(200_007, ResourceLimits.defaults(), true)))
                .contains("/usr/bin/time").doesNotContain("/.time", copy.toString());
    }

    @Test
    void cpuLimitIsRoundedUpToWholeSecondsWithAHardLimitOneSecondLater() {
        ResourceLimits l = ResourceLimits.defaults().withCpuTime(Duration.ofMillis(1500));
        assertThat(new LaunchPlan(Mode.PLAIN, ROOT, List.of()).command(spec(-1, l, true))).contains("--cpu=2:3");
        ResourceLimits tiny = ResourceLimits.defaults().withCpuTime(Duration.ofMillis(10));
        assertThat(new LaunchPlan(Mode.PLAIN, ROOT, List.of()).command(spec(-1, tiny, true))).contains("--cpu=1:2");
    }

    @Test
    void runtimesThatReserveAddressSpaceGetADataLimitInstead() {
        List<String> cmd = new LaunchPlan(Mode.PLAIN, ROOT, List.of()).command(spec(-1, ResourceLimits.defaults(), false));
        assertThat(cmd).contains("--data=268435456").noneMatch(a -> a.startsWith("--as="));
    }

    @Test
    void networkWhenAskedForSharesTheHostsAndItsResolverFiles() {
        List<String> cmd = new LaunchPlan(Mode.BWRAP, ROOT, List.of()).command(spec(200_000,
                ResourceLimits.defaults().withNetwork(true), true));
        assertThat(cmd).contains("--share-net");
        assertThat(Collections.indexOfSubList(cmd, List.of("--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf"))).isPositive();
    }

    @Test
    void interpretersOutsideUsrAreBoundReadOnly() {
        List<String> cmd = new LaunchPlan(Mode.BWRAP, ROOT, List.of(Path.of("/opt/python"), Path.of("/usr/local")))
                .command(spec(200_000, ResourceLimits.defaults(), true));
        assertThat(Collections.indexOfSubList(cmd, List.of("--ro-bind", "/opt/python", "/opt/python"))).isPositive();
        assertThat(cmd).doesNotContain("/usr/local");
    }

    @Test
    void plainRunsWithoutAnOwnUidGetTheirOwnSession() {
        HostTools user = ROOT.withoutRoot();
        List<String> cmd = new LaunchPlan(Mode.PLAIN, user, List.of()).command(spec(-1, ResourceLimits.defaults(), true));
        assertThat(cmd.get(0)).isEqualTo("/usr/bin/setsid");
        assertThat(cmd).doesNotContain("/usr/bin/setpriv", "/usr/bin/bwrap");
        assertThat(cmd).contains("/tmp/run-1.rusage");
    }

    @Test
    void unshareMountsAPrivateTmpAndKeepsTheWorkDirectoryReachable() {
        List<String> cmd = new LaunchPlan(Mode.UNSHARE, ROOT, List.of()).command(spec(200_001, ResourceLimits.defaults(), true));
        assertThat(cmd.get(0)).isEqualTo("/usr/bin/unshare");
        assertThat(cmd).contains("--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--ipc", "--uts");
        String script = cmd.get(cmd.indexOf("-c") + 1);
        assertThat(script).contains("tmpfs /tmp", "mount -c --bind /proc/self/fd/4 \"$w\"", "/tmp/run-1.rusage");
        assertThat(cmd.indexOf("/usr/bin/setpriv")).isGreaterThan(cmd.indexOf("-c"));
    }

    @Test
    void withoutPrlimitTheInterpreterRunsDirectly() {
        HostTools bare = new HostTools(false, null, null, null, null, null, null);
        assertThat(new LaunchPlan(Mode.PLAIN, bare, List.of()).command(spec(-1, ResourceLimits.defaults(), true)))
                .containsExactly("/usr/bin/python3.11", "-S", "main.py", "x");
    }
}
