package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UidPoolTest {

    @TempDir
    Path locks;

    @Test
    void poolsInOneJvmNeverShareAUidAndReuseReleasedOnes() {
        try (UidPool a = new UidPool(locks, uid -> false); UidPool b = new UidPool(locks, uid -> false)) {
            long first = a.acquire();
            long second = b.acquire();
            assertThat(first).isNotEqualTo(second).isGreaterThanOrEqualTo(UidPool.BASE);
            a.release(first);
            assertThat(a.acquire()).isEqualTo(first);
            // given back before closing: a pool keeps a uid still in use locked past its close
            a.release(first);
            b.release(second);
        }
    }

    /**
     * A run still using a uid when its pool closed gives it back later. Closing once unlocked every uid, in use or
     * not, so the next pool took that uid at once; the late release then dropped the new pool's lock, and the uid
     * was handed out twice: two live sandboxes under one uid, where one run's sweep of its uid kills the other's.
     */
    @Test
    void aUidInUseWhenItsPoolClosesIsNeverHandedOutTwice() {
        UidPool a = new UidPool(locks, uid -> false);
        long inUse = a.acquire();
        a.close();
        try (UidPool b = new UidPool(locks, uid -> false)) {
            long first = b.acquire();
            assertThat(first).as("still in use by a run of the closed pool").isNotEqualTo(inUse);
            a.release(inUse);
            long second = b.acquire();
            assertThat(second).isNotEqualTo(first);
            long third = b.acquire();
            assertThat(List.of(first, second, third)).doesNotHaveDuplicates();
            List.of(first, second, third).forEach(b::release);
        }
    }

    /**
     * A run's uid given back twice (a clean-up path run twice) must not make the pool hand it to two runs: release
     * puts it on the free list again whether or not it is there already, and two acquires then return the same uid.
     */
    @Test
    void aUidReleasedTwiceIsStillHandedToOneRunAtATime() {
        try (UidPool p = new UidPool(locks, uid -> false)) {
            long uid = p.acquire();
            p.release(uid);
            p.release(uid);
            long first = p.acquire();
            long second = p.acquire();
            assertThat(second).as("handed out again while a run still uses it").isNotEqualTo(first);
            p.release(first);
            p.release(second);
        }
    }

    /** Found by an attack review: retire unlocked the uid but left it on the free list, to be handed out unlocked. */
    @Test
    void aUidRetiredAfterItWasGivenBackIsNeverHandedToTwoRuns() {
        try (UidPool a = new UidPool(locks, uid -> false); UidPool b = new UidPool(locks, uid -> false)) {
            long uid = a.acquire();
            a.release(uid);
            a.retire(uid);
            long fromA = a.acquire();
            long fromB = b.acquire();
            assertThat(fromB).as("pool a handed out uid %d, which pool b then took too", fromA).isNotEqualTo(fromA);
            a.release(fromA);
            b.release(fromB);
        }
    }

    @Test
    void skipsUidsSomethingElseUses() {
        try (UidPool p = new UidPool(locks, uid -> uid < UidPool.BASE + 3)) {
            long got = p.acquire();
            assertThat(got).isGreaterThanOrEqualTo(UidPool.BASE + 3);
            p.release(got);
        }
    }

    @Test
    void aSecondPoolDoesNotDropTheFirstPoolsLockForOtherProcesses() throws Exception {
        try (UidPool a = new UidPool(locks, uid -> false); UidPool b = new UidPool(locks, uid -> false)) {
            long held = a.acquire();
            long b1 = b.acquire();
            long b2 = b.acquire();
            // another process (python's fcntl.lockf uses the same POSIX locks as the JVM) must still find it locked
            assertThat(lockedForOtherProcesses(locks.resolve("uid-" + held + ".lock"))).isEqualTo("locked");
            a.release(held);
            b.release(b1);
            b.release(b2);
        }
    }

    private static String lockedForOtherProcesses(Path file) throws Exception {
        Process p = new ProcessBuilder(List.of(python(), "-c",
                "import fcntl, sys\nf = open(sys.argv[1], 'r+')\ntry:\n    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
                        + "    print('got it')\nexcept OSError:\n    print('locked')", file.toString()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        p.waitFor();
        return out;
    }

    @Test
    void aUidAnEarlierVersionHoldsInItsOwnLockDirectoryIsNotTaken(@TempDir Path legacy) throws Exception {
        // an earlier version's JVM, still running during an upgrade, holds the first uid in its (private) directory
        Path file = legacy.resolve("uid-" + UidPool.BASE + ".lock");
        Process p = new ProcessBuilder(List.of(python(), "-c",
                "import fcntl, sys\nf = open(sys.argv[1], 'w')\nfcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
                        + "print('held', flush=True)\nsys.stdin.read()", file.toString())).redirectErrorStream(true).start();
        try {
            assertThat(new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine()).isEqualTo("held");
            assertThat(UidPool.heldByEarlierVersion(List.of(legacy), UidPool.BASE)).isTrue();
            assertThat(UidPool.heldByEarlierVersion(List.of(legacy), UidPool.BASE + 1)).as("never claimed there").isFalse();
            assertThat(UidPool.unclaimed(locks, List.of(legacy), UidPool.BASE)).isFalse();
            try (UidPool pool = new UidPool(locks, List.of(legacy), uid -> false)) {
                long got = pool.acquire();
                assertThat(got).isNotEqualTo(UidPool.BASE);
                assertThat(lockedForOtherProcesses(legacy.resolve("uid-" + got + ".lock")))
                        .as("claimed there too, so that the earlier version skips it").isEqualTo("locked");
                pool.release(got);
            }
        } finally {
            p.getOutputStream().close();
            p.waitFor();
        }
    }

    @Test
    void aLinkInTheLockDirectoryIsNeverFollowed() throws Exception {
        Path target = locks.resolveSibling(locks.getFileName() + "-target");
        for (int i = 0; i < 3; i++) {
            java.nio.file.Files.createSymbolicLink(locks.resolve("uid-" + (UidPool.BASE + i) + ".lock"), target);
        }
        try (UidPool pool = new UidPool(locks, uid -> false)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(pool::acquire)
                    .isInstanceOf(dev.codeagent.domain.execution.SandboxUnavailableException.class)
                    .hasMessageContaining("symbolic link");
        }
        assertThat(target).doesNotExist();
        assertThat(UidPool.unclaimed(locks, List.of(), UidPool.BASE)).as("a link proves no JVM is done with it").isFalse();
        assertThat(target).doesNotExist();
    }

    private static String python() {
        return Interpreters.nativeBinary(Path.of("/usr/bin/python3")).map(Path::toString).orElse("/usr/bin/python3.11");
    }
}
