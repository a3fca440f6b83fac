package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A judged run's channel on a real file system: who may open which FIFO (the attack itself: JudgeChannelOtherUserIT). */
class JudgeChannelTest {

    @TempDir
    Path parent;

    @Test
    void aNewChannelIsThisUidsAloneUntilItIsHandedOver() throws IOException {
        for (Path dir : JudgeChannel.create(parent, 3)) {
            assertThat(modes(dir)).isEqualTo("rwx------");
            for (String end : List.of(JudgeChannel.TO_CANDIDATE, JudgeChannel.TO_JUDGE)) {
                Path fifo = dir.resolve(end);
                assertThat(Files.readAttributes(fifo, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther())
                        .as(fifo + " is a FIFO").isTrue();
                assertThat(modes(fifo)).as(fifo.toString()).isEqualTo("rw-------");
            }
        }
    }

    @Test
    void withoutPoolUidsBothSidesAreThisUidAndTheChannelStaysItsAlone() throws IOException {
        Path dir = JudgeChannel.create(parent);
        JudgeChannel.handOver(dir, -1, -1);
        assertThat(modes(dir)).isEqualTo("rwx------");
        assertThat(modes(dir.resolve(JudgeChannel.TO_CANDIDATE))).isEqualTo("rw-------");
        assertThat(modes(dir.resolve(JudgeChannel.TO_JUDGE))).isEqualTo("rw-------");
    }

    @Test
    void handedOverTheJudgeOwnsItTheCandidatesGroupHoldsItEachFifoOpenOneWay() throws IOException {
        assumeTrue(HostTools.runningAsRoot(), "root (to give the channel to two other uids)");
        Path dir = JudgeChannel.create(parent);
        JudgeChannel.handOver(dir, UidPool.BASE + 7, UidPool.BASE + 8);
        for (Path p : List.of(dir, dir.resolve(JudgeChannel.TO_CANDIDATE), dir.resolve(JudgeChannel.TO_JUDGE))) {
            assertThat(Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).as(p.toString()).isEqualTo((int) UidPool.BASE + 7);
            assertThat(Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS)).as(p.toString()).isEqualTo((int) UidPool.BASE + 8);
        }
        assertThat(modes(dir)).as("searchable by the two, listable by none").isEqualTo("--x--x---");
        assertThat(modes(dir.resolve(JudgeChannel.TO_CANDIDATE))).as("the judge writes, the candidate reads").isEqualTo("-w-r-----");
        assertThat(modes(dir.resolve(JudgeChannel.TO_JUDGE))).as("the candidate writes, the judge reads").isEqualTo("r---w----");
    }

    @Test
    void oneSideWithAPoolUidAndTheOtherWithoutIsRefusedNamingBoth() throws IOException {
        Path dir = JudgeChannel.create(parent);
        assertThatThrownBy(() -> JudgeChannel.handOver(dir, UidPool.BASE + 7, -1)).isInstanceOf(IOException.class)
                .hasMessageContaining("uid " + (UidPool.BASE + 7)).hasMessageContaining("uid -1");
        assertThat(modes(dir.resolve(JudgeChannel.TO_JUDGE))).as("left as made").isEqualTo("rw-------");
    }

    private static String modes(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }
}
