package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.sandbox.process.HostSupport.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LaunchWrapperTest {

    @TempDir
    Path dir;

    @Test
    void joinsEveryGroupWithItsOwnPidThenHandsTheFilterOnAsFd3() throws Exception {
        Path filter = Files.writeString(dir.resolve("filter"), "bpf-bytes");
        Path a = Files.createFile(dir.resolve("a.procs"));
        Path b = Files.createFile(dir.resolve("b.procs"));
        Result r = HostSupport.run(LaunchWrapper.argv(filter, List.of(a, b),
                List.of("/bin/sh", "-c", "echo $$; cat <&3")), 30);
        assertThat(r.exit()).as(r.err()).isZero();
        String pid = r.out().lines().findFirst().orElseThrow();
        assertThat(a).hasContent(pid);
        assertThat(b).hasContent(pid);
        assertThat(r.out()).endsWith("bpf-bytes");
    }

    @Test
    void withoutAFilterNoExtraDescriptorIsOpen() throws Exception {
        Result r = HostSupport.run(LaunchWrapper.argv(null, List.of(), List.of("/bin/sh", "-c", "ls /proc/$$/fd")), 30);
        assertThat(r.out().lines()).containsExactly("0", "1", "2");
    }

    @Test
    void aLauncherThatCannotJoinItsGroupOrOpenItsFilterNeverRunsTheProgram() throws Exception {
        Path marker = dir.resolve("ran");
        Result noGroup = HostSupport.run(LaunchWrapper.argv(null, List.of(dir.resolve("no-such-group/cgroup.procs")),
                List.of("touch", marker.toString())), 30);
        assertThat(noGroup.exit()).isEqualTo(LaunchWrapper.SETUP_FAILED);
        Result noFilter = HostSupport.run(LaunchWrapper.argv(dir.resolve("no-filter"), List.of(),
                List.of("touch", marker.toString())), 30);
        assertThat(noFilter.exit()).isEqualTo(LaunchWrapper.SETUP_FAILED);
        assertThat(marker).doesNotExist();
    }

    private Path launcher() {
        Path cc = HostTools.find("cc");
        org.junit.jupiter.api.Assumptions.assumeTrue(cc != null && HostTools.runningAsRoot(), "needs root and a C compiler");
        return ExecuteOnlyCopy.compiled(cc, dir, "launch.c").orElseThrow(() -> new AssertionError("launch.c did not compile"));
    }

    @Test
    void theCompiledLauncherJoinsTheGroupsOpensTheFilterAndDropsToTheRunsUidLikeSetpriv() throws Exception {
        Path launcher = launcher();
        Path filter = Files.writeString(dir.resolve("filter"), "bpf-bytes");
        Path a = Files.createFile(dir.resolve("a.procs"));
        Path b = Files.createFile(dir.resolve("b.procs"));
        Result r = HostSupport.run(LaunchWrapper.compiled(launcher, filter, List.of(a, b), 65_321, List.of("/bin/sh", "-c",
                "echo $$; id -u; id -g; id -G; grep -E '^(NoNewPrivs|CapEff)' /proc/self/status; ls /proc/$$/fd; cat <&3")), 30);
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> out = r.out().lines().toList();
        assertThat(a).hasContent(out.get(0));
        assertThat(b).hasContent(out.get(0));
        assertThat(out.subList(1, 4)).containsExactly("65321", "65321", "65321");
        assertThat(out).contains("NoNewPrivs:\t1", "CapEff:\t0000000000000000");
        // fd 3 is the filter, nothing else of the launcher's is open
        assertThat(out.subList(6, out.size() - 1)).containsExactly("0", "1", "2", "3");
        assertThat(r.out()).endsWith("bpf-bytes");
    }

    @Test
    void theCompiledLauncherWithoutAFilterOrUidOpensNothingAndStaysRoot() throws Exception {
        Result r = HostSupport.run(LaunchWrapper.compiled(launcher(), null, List.of(), -1,
                List.of("/bin/sh", "-c", "id -u; ls /proc/$$/fd")), 30);
        assertThat(r.out().lines()).containsExactly("0", "0", "1", "2");
    }

    @Test
    void aCompiledLauncherThatCannotJoinOpenOrRunNeverRunsTheProgram() throws Exception {
        Path launcher = launcher();
        Path marker = dir.resolve("ran");
        Result noGroup = HostSupport.run(LaunchWrapper.compiled(launcher, null, List.of(dir.resolve("no-such-group/cgroup.procs")),
                65_321, List.of("/usr/bin/touch", marker.toString())), 30);
        assertThat(noGroup.exit()).isEqualTo(LaunchWrapper.SETUP_FAILED);
        assertThat(noGroup.err()).startsWith("codeagent-launch: cannot open");
        Result noFilter = HostSupport.run(LaunchWrapper.compiled(launcher, dir.resolve("no-filter"), List.of(), 65_321,
                List.of("/usr/bin/touch", marker.toString())), 30);
        assertThat(noFilter.exit()).isEqualTo(LaunchWrapper.SETUP_FAILED);
        Result badUid = HostSupport.run(List.of(launcher.toString(), "", "12x", "--", "/usr/bin/touch", marker.toString()), 30);
        assertThat(badUid.exit()).isEqualTo(LaunchWrapper.SETUP_FAILED);
        assertThat(marker).doesNotExist();
        Result noProgram = HostSupport.run(LaunchWrapper.compiled(launcher, null, List.of(), -1, List.of("/no/such/program")), 30);
        assertThat(noProgram.exit()).isEqualTo(LaunchWrapper.SETUP_FAILED);
        assertThat(noProgram.err()).startsWith("codeagent-launch: cannot run /no/such/program");
    }
}
