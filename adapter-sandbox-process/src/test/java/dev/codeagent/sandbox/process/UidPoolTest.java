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
        }
    }

    @Test
    void skipsUidsSomethingElseUses() {
        try (UidPool p = new UidPool(locks, uid -> uid < UidPool.BASE + 3)) {
            assertThat(p.acquire()).isGreaterThanOrEqualTo(UidPool.BASE + 3);
        }
    }

    @Test
    void aSecondPoolDoesNotDropTheFirstPoolsLockForOtherProcesses() throws Exception {
        try (UidPool a = new UidPool(locks, uid -> false); UidPool b = new UidPool(locks, uid -> false)) {
            long held = a.acquire();
            b.acquire();
            b.acquire();
            // another process (python's fcntl.lockf uses the same POSIX locks as the JVM) must still find it locked
            assertThat(lockedForOtherProcesses(locks.resolve("uid-" + held + ".lock"))).isEqualTo("locked");
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
