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
}
