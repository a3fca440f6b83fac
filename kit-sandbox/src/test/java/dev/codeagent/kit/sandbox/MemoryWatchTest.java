package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryWatchTest {

    private static final long MIB = 1L << 20;
    /** The process tier's group for a 256 MiB run: the limit plus 16 MiB for the supervisor and file pages. */
    private static final long GROUP = 272 * MIB;

    private static MemoryWatch.Reading reading(long usageMib, long fileMib, long refaultPages) {
        return new MemoryWatch.Reading(usageMib * MIB, GROUP, fileMib * MIB, refaultPages);
    }

    @Test
    void aRunWhoseUnreclaimableMemoryReachesItsLimitIsExhaustedAtOnce() {
        MemoryWatch w = new MemoryWatch(256 * MIB, 0, GROUP);
        assertThat(w.exhausted(reading(250, 10, 0))).as("240 MiB of its own: under the limit").isFalse();
        assertThat(w.exhausted(reading(266, 10, 0))).as("256 MiB of its own").isTrue();
        assertThat(w.reason()).isEqualTo("exhausted");
    }

    @Test
    void fileCacheIsNotTheRunsMemory() {
        MemoryWatch w = new MemoryWatch(256 * MIB, 0, GROUP);
        // a program that read big files: the group full, but of pages reclaim gives back without a refault
        for (int i = 0; i < 10; i++) {
            assertThat(w.exhausted(reading(271, 120, 0))).isFalse();
        }
    }

    @Test
    void whatTheGroupHeldBeforeTheProgramIsNotTheProgramsButTheHardLimitCaps() {
        MemoryWatch idle = new MemoryWatch(256 * MIB, 4 * MIB, GROUP);
        assertThat(idle.exhausted(reading(258, 0, 0))).as("254 MiB above a 4 MiB idle supervisor").isFalse();
        assertThat(idle.exhausted(reading(261, 0, 0))).isTrue();
        // gVisor's kernel holds more than the group's headroom: the run is used up just under the hard limit
        MemoryWatch gvisor = new MemoryWatch(256 * MIB, 30 * MIB, GROUP);
        assertThat(gvisor.threshold()).isEqualTo(GROUP - MemoryWatch.slack(GROUP));
        assertThat(gvisor.exhausted(reading(268, 0, 0))).isTrue();
    }

    @Test
    void aGroupThrashingAtItsHardLimitIsUsedUpAfterAFewReadings() {
        MemoryWatch w = new MemoryWatch(256 * MIB, 0, GROUP);
        long refaults = 0;
        assertThat(w.exhausted(reading(271, 24, refaults))).isFalse();
        for (int i = 1; i < MemoryWatch.THRASH_READINGS; i++) {
            refaults += 1024;
            assertThat(w.exhausted(reading(271, 24, refaults))).as("reading %d", i).isFalse();
        }
        refaults += 1024;
        assertThat(w.exhausted(reading(271, 24, refaults))).isTrue();
        assertThat(w.reason()).isEqualTo("thrashing");
    }

    @Test
    void refaultsBelowTheLimitOrAPauseInThemAreNotThrashing() {
        MemoryWatch w = new MemoryWatch(256 * MIB, 0, GROUP);
        long refaults = 0;
        for (int i = 0; i < 10; i++) {
            refaults += 4096;
            // well under the hard limit: a program re-reading its files is just reading them
            assertThat(w.exhausted(reading(200, 24, refaults))).isFalse();
        }
        for (int i = 0; i < 10; i++) {
            // at the limit, but refaulting only every other reading: the count starts over
            refaults += i % 2 == 0 ? 1024 : 0;
            assertThat(w.exhausted(reading(271, 24, refaults))).isFalse();
        }
    }

    @Test
    void readsAV1Group(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("memory.usage_in_bytes"), Long.toString(200 * MIB) + "\n");
        Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(GROUP) + "\n");
        Files.writeString(dir.resolve("memory.stat"), "cache 4096\nactive_file 1\ntotal_cache 8\ntotal_active_file "
                + 3 * MIB + "\ntotal_inactive_file " + 2 * MIB + "\ntotal_workingset_refault_file 77\n");
        MemoryWatch.Reading r = MemoryWatch.read(dir).orElseThrow();
        assertThat(r).isEqualTo(new MemoryWatch.Reading(200 * MIB, GROUP, 5 * MIB, 77));
        assertThat(r.unreclaimable()).isEqualTo(195 * MIB);
    }

    @Test
    void readsAV2Group(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("memory.current"), Long.toString(100 * MIB) + "\n");
        Files.writeString(dir.resolve("memory.max"), "max\n");
        Files.writeString(dir.resolve("memory.stat"), "anon 5\nfile 9\nactive_file " + MIB + "\ninactive_file 0\n"
                + "workingset_refault_anon 3\nworkingset_refault_file 12\n");
        assertThat(MemoryWatch.read(dir)).contains(new MemoryWatch.Reading(100 * MIB, Long.MAX_VALUE, MIB, 12));
    }

    @Test
    void kernelMemoryThatReclaimGivesBackIsNotTheRuns(@TempDir Path v1, @TempDir Path v2) throws IOException {
        // negative dentries from a stat() loop: charged to the group, reclaimed at its limit, never the program's memory
        Files.writeString(v1.resolve("memory.usage_in_bytes"), Long.toString(200 * MIB) + "\n");
        Files.writeString(v1.resolve("memory.limit_in_bytes"), Long.toString(GROUP) + "\n");
        Files.writeString(v1.resolve("memory.kmem.usage_in_bytes"), Long.toString(190 * MIB) + "\n");
        Files.writeString(v1.resolve("memory.stat"), "total_active_file " + MIB + "\ntotal_inactive_file 0\n");
        assertThat(MemoryWatch.read(v1).orElseThrow().unreclaimable()).isEqualTo(9 * MIB);
        Files.writeString(v2.resolve("memory.current"), Long.toString(200 * MIB) + "\n");
        Files.writeString(v2.resolve("memory.max"), Long.toString(GROUP) + "\n");
        Files.writeString(v2.resolve("memory.stat"), "active_file " + MIB + "\ninactive_file 0\nslab_reclaimable "
                + 150 * MIB + "\nslab_unreclaimable " + 40 * MIB + "\n");
        assertThat(MemoryWatch.read(v2).orElseThrow().unreclaimable()).isEqualTo(49 * MIB);
    }

    @Test
    void aGroupThatIsGoneReadsAsNothing(@TempDir Path dir) {
        assertThat(MemoryWatch.read(dir.resolve("gone"))).isEmpty();
    }

    @Test
    void theChargeAloneSettlesOnlyARunUnderTheThreshold() {
        MemoryWatch w = new MemoryWatch(256 * MIB, 0, GROUP);
        assertThat(w.plainlyUnder(40 * MIB)).as("a small run").isTrue();
        assertThat(w.plainlyUnder(256 * MIB)).as("at the threshold the file cache must be read").isFalse();
        // a group with no headroom over the run's limit: the threshold sits a slack under the hard limit, so a charge
        // near that limit, where only memory.stat tells thrashing, is never settled by the charge alone
        MemoryWatch tight = new MemoryWatch(104 * MIB, 0, 104 * MIB);
        assertThat(tight.plainlyUnder(103 * MIB)).isFalse();
        assertThat(tight.plainlyUnder(104 * MIB - MemoryWatch.slack(104 * MIB) - 1)).isTrue();
    }

    @Test
    void aPlainlyUnderReadingStartsTheThrashCountOver() {
        MemoryWatch w = new MemoryWatch(256 * MIB, 0, GROUP);
        long refaults = 0;
        assertThat(w.exhausted(reading(271, 24, refaults))).isFalse();
        for (int i = 1; i < MemoryWatch.THRASH_READINGS; i++) {
            refaults += 1024;
            assertThat(w.exhausted(reading(271, 24, refaults))).isFalse();
        }
        assertThat(w.plainlyUnder(100 * MIB)).isTrue();
        // back at the limit: the reading before the drop is no baseline, so it takes the full count again
        refaults += 1024;
        assertThat(w.exhausted(reading(271, 24, refaults))).isFalse();
        for (int i = 1; i < MemoryWatch.THRASH_READINGS; i++) {
            refaults += 1024;
            assertThat(w.exhausted(reading(271, 24, refaults))).isFalse();
        }
        refaults += 1024;
        assertThat(w.exhausted(reading(271, 24, refaults))).isTrue();
    }
}
