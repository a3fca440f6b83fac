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
            Path file = locks.resolve("uid-" + held + ".lock");
            Process p = new ProcessBuilder(List.of(python(), "-c",
                    "import fcntl, sys\nf = open(sys.argv[1], 'w')\ntry:\n    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
                            + "    print('got it')\nexcept OSError:\n    print('locked')", file.toString()))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            assertThat(out).isEqualTo("locked");
        }
    }

    private static String python() {
        return Interpreters.nativeBinary(Path.of("/usr/bin/python3")).map(Path::toString).orElse("/usr/bin/python3.11");
    }
}
