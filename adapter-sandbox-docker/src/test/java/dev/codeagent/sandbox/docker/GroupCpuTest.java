package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupCpuTest {

    @TempDir
    Path root;

    @Test
    void findsTheGroupOfACgroupV1ContainerAndTheV2LineWhenThereIsNoCpuacct() {
        Path cg = Path.of("/sys/fs/cgroup");
        assertThat(GroupCpu.groupFile(List.of("12:pids:/docker/abc", "4:cpu,cpuacct:/docker/abc", "0::/"), cg))
                .contains(cg.resolve("cpu,cpuacct/docker/abc/cpuacct.usage"));
        assertThat(GroupCpu.groupFile(List.of("0::/system.slice/docker-abc.scope"), cg))
                .contains(cg.resolve("system.slice/docker-abc.scope/cpu.stat"));
        assertThat(GroupCpu.groupFile(List.of("garbage"), cg)).isEmpty();
    }

    @Test
    void readsNanosecondsFromCpuacctUsageAndMicrosecondsFromCpuStat() throws IOException {
        Path v1 = Files.createDirectories(root.resolve("cpuacct/docker/abc")).resolve("cpuacct.usage");
        Files.writeString(v1, "1500000000\n");
        assertThat(GroupCpu.read(v1)).isEqualTo(1_500_000_000L);
        Path v2 = Files.createDirectories(root.resolve("system.slice/docker-def.scope")).resolve("cpu.stat");
        Files.writeString(v2, "usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n");
        assertThat(GroupCpu.read(v2)).isEqualTo(2_500_000L);
    }

    @Test
    void usesTheFirstLayoutThatHasTheContainersGroupWithoutAskingTheEngine() throws IOException {
        Path v2 = Files.createDirectories(root.resolve("system.slice/docker-def.scope")).resolve("cpu.stat");
        Files.writeString(v2, "usage_usec 42\n");
        // a null engine: a lookup that needed it would fail
        GroupCpu meter = GroupCpu.of("def", root, root.resolve("proc"), null);
        assertThat(meter.nanos()).isEqualTo(42_000L);
        assertThat(meter.poll()).isEqualTo(GroupCpu.FILE_POLL);
        Files.delete(v2);
        assertThat(meter.nanos()).as("the group is gone").isEqualTo(-1L);
    }
}
