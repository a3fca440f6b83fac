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

    private static RunSpec spec(long uid, ResourceLimits limits, boolean as) {
        return new RunSpec(uid, Path.of("/tmp/run-1"), List.of("main.py", "pkg/a.py"), List.of("/usr/bin/python3.11", "-S", "main.py", "x"),
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
        assertThat(Collections.indexOfSubList(cmd, List.of("--bind", "/tmp/run-1/pkg/a.py", "/work/pkg/a.py"))).isPositive();
        assertThat(Collections.indexOfSubList(cmd, List.of("--remount-ro", "/"))).isPositive();
        assertThat(Collections.indexOfSubList(cmd, List.of("--setenv", "HOME", "/work"))).isPositive();
        assertThat(cmd).noneMatch(a -> a.startsWith("/etc") || a.equals("/home") || a.equals("/root"));
        int sep = cmd.lastIndexOf("--");
        assertThat(cmd.subList(sep + 1, cmd.size())).containsExactly("/usr/bin/python3.11", "-S", "main.py", "x");
        assertThat(cmd).contains("--as-pid-1", "/usr/bin/time", "/.rusage", "--nproc=64", "--as=268435456", "--fsize=16777216", "--core=0",
                "--nofile=256");
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
