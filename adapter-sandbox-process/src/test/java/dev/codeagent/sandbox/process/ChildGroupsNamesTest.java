package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.sandbox.process.ChildGroups.Owner;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

/**
 * Whose a run group is, and where this process's own v2 group is: the logic that decides what the stale-group sweep
 * may kill and where the tier makes its groups, for hosts, containers and pid namespaces this machine is not.
 */
class ChildGroupsNamesTest {

    private static final String NS = "4026531836";
    private static final LongPredicate ONLY_812_LIVES = pid -> pid == 812;

    @Test
    void aGroupIsOnlyEverJudgedByItsOwnNamespacesPids() {
        assertThat(ChildGroups.leafName(NS, 812, 3)).isEqualTo("run-4026531836-812-3");
        assertThat(owner("run-4026531836-812-3")).isEqualTo(Owner.ALIVE);
        assertThat(owner("run-4026531836-900-1")).isEqualTo(Owner.DEAD);
        // pid 812 lives here, but the group's 812 is another namespace's: nothing here says whether it lives
        assertThat(owner("run-4026532176-812-3")).isEqualTo(Owner.FOREIGN);
        assertThat(owner("run-4026532176-900-1")).as("a pid that is dead here may live there").isEqualTo(Owner.FOREIGN);
        // the names of before: "run-<pid>-<n>", whichever namespace made them
        assertThat(owner("run-900-1")).isEqualTo(Owner.FOREIGN);
    }

    @Test
    void ourOwnPidIsOursUpToTheLastNumberWeGave() {
        assertThat(ChildGroups.owner("run-" + NS + "-77-5", NS, 77, 5, ONLY_812_LIVES)).isEqualTo(Owner.SELF);
        // a higher number than this JVM ever gave: an earlier process with the same pid made it
        assertThat(ChildGroups.owner("run-" + NS + "-77-6", NS, 77, 5, ONLY_812_LIVES)).isEqualTo(Owner.DEAD);
    }

    @Test
    void otherNamesAreNotOurs() {
        for (String name : List.of("codeagent", "run", "run-1", "run-a-1-2", "job-" + NS + "-1-2", "run-" + NS + "-1-2-3",
                "run-" + NS + "-99999999999999999999-1")) {
            assertThat(owner(name)).as(name).isEqualTo(Owner.NONE);
        }
    }

    @Test
    void theOwnV2GroupIsFoundBelowWhatTheMountShows() throws Exception {
        Path mount = Path.of("/sys/fs/cgroup");
        // a host: the whole hierarchy mounted, the JVM in a service's group
        assertThat(ChildGroups.ownV2Group(mount, "/", List.of("0::/system.slice/codeagent.service")))
                .isEqualTo(mount.resolve("system.slice/codeagent.service"));
        // a container with its own cgroup namespace: its group is the root it sees
        assertThat(ChildGroups.ownV2Group(mount, "/", List.of("0::/"))).isEqualTo(mount);
        // a container without one: its group is mounted at /sys/fs/cgroup and named in full in /proc/self/cgroup
        assertThat(ChildGroups.ownV2Group(mount, "/docker/abc", List.of("0::/docker/abc"))).isEqualTo(mount);
        assertThat(ChildGroups.ownV2Group(mount, "/docker/abc", List.of("0::/docker/abc/app")))
                .isEqualTo(mount.resolve("app"));
        // v1 lines are not the v2 one
        assertThat(ChildGroups.ownV2Group(mount, "/", List.of("4:memory:/x", "0::/y"))).isEqualTo(mount.resolve("y"));
    }

    @Test
    void aGroupOutsideTheMountIsUnavailableInOneLine() {
        Path mount = Path.of("/sys/fs/cgroup");
        assertThatThrownBy(() -> ChildGroups.ownV2Group(mount, "/docker/abc", List.of("0::/docker/abcd")))
                .isInstanceOf(ChildGroups.Unavailable.class).hasMessageContaining("outside the hierarchy mounted at");
        assertThatThrownBy(() -> ChildGroups.ownV2Group(mount, "/docker/abc", List.of("0::/docker/abc/../other")))
                .isInstanceOf(ChildGroups.Unavailable.class);
        assertThatThrownBy(() -> ChildGroups.ownV2Group(mount, "/", List.of("4:memory:/x")))
                .isInstanceOf(ChildGroups.Unavailable.class).hasMessageContaining("names no v2 group");
    }

    private static Owner owner(String name) {
        return ChildGroups.owner(name, NS, 77, 5, ONLY_812_LIVES);
    }

    /**
     * v2 has no per-group swappiness: where swap is on and not accounted, a run's memory limit would not hold (it
     * could be swapped out past it), so the groups are refused in one line, and strict isolation refuses to start.
     */
    @Test
    void aV2GroupWhoseSwapIsNotAccountedOnAHostWithSwapIsRefused(@org.junit.jupiter.api.io.TempDir Path group) throws Exception {
        List<String> swapOn = List.of("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority",
                "/swapfile                               file\t\t2097148\t\t0\t\t-2");
        List<String> swapOff = List.of("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority");
        assertThat(ChildGroups.swapUnbounded(group, swapOn)).contains("swap is on and the kernel does not account it",
                "swapaccount=1").doesNotContain("\n");
        assertThat(ChildGroups.swapUnbounded(group, swapOff)).as("no swap: nothing to exceed the limit with").isNull();
        assertThat(ChildGroups.swapUnbounded(group, List.of())).as("a kernel without swap").isNull();
        java.nio.file.Files.writeString(group.resolve("memory.swap.max"), "max\n");
        assertThat(ChildGroups.swapUnbounded(group, swapOn)).as("accounted: each run group gets memory.swap.max 0").isNull();
    }
}
