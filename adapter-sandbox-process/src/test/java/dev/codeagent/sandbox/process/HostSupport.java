package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the cgroup and seccomp tests need from the host (root, control groups, bubblewrap, a native
 * python3): without it a test is skipped, except under {@code CI=true}, where the tier must be tested and
 * the test fails instead.
 */
final class HostSupport {

    static final Path PYTHON = Path.of("/usr/bin/python3");

    private HostSupport() {
    }

    static void require(boolean present, String what) {
        if (present) {
            return;
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true but " + what + " is not available here");
        }
        assumeTrue(false, what + " is not available; skipping");
    }

    /** Child groups under a parent of the tests' own, or a skip (a failure under CI) saying why not. */
    static ChildGroups runGroups() {
        require(HostTools.runningAsRoot(), "root (for control groups)");
        try {
            return ChildGroups.open("codeagent-test");
        } catch (ChildGroups.Unavailable e) {
            require(false, "control groups (" + e.getMessage() + ")");
            return null;
        }
    }

    /** A host on which the process tier must give runs a control group, the filter and its supervisor. */
    static void requireRootBwrapAndCgroups() {
        bwrap();
        runGroups();
    }

    static Path bwrap() {
        Path bwrap = HostTools.find("bwrap");
        require(bwrap != null, "bubblewrap");
        require(Files.isExecutable(PYTHON), PYTHON.toString());
        return bwrap;
    }

    /** The read-only system view CommandPlan gives a run, without the run's files: enough for python3 and node. */
    static List<String> bwrapView(Path bwrap, Path... readOnlyFiles) {
        List<String> a = new ArrayList<>(List.of(bwrap.toString(), "--unshare-all", "--unshare-user", "--disable-userns",
                "--die-with-parent", "--new-session", "--hostname", "sandbox", "--ro-bind", "/usr", "/usr"));
        for (String entry : List.of("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")) {
            Path p = Path.of(entry);
            try {
                if (Files.isSymbolicLink(p)) {
                    a.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), entry));
                } else if (Files.isDirectory(p)) {
                    a.addAll(List.of("--ro-bind", entry, entry));
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        a.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--size", Long.toString(512L << 20), "--tmpfs", "/tmp",
                "--size", Long.toString(64L << 20), "--tmpfs", "/dev/shm"));
        for (Path f : readOnlyFiles) {
            a.addAll(List.of("--ro-bind", f.toString(), "/" + f.getFileName()));
        }
        a.addAll(List.of("--remount-ro", "/", "--chdir", "/tmp", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin"));
        return a;
    }

    /** A finished process: its exit status (128 + signal when a signal ended it) and its output. */
    record Result(int exit, String out, String err) {
    }

    static Result run(List<String> argv, long timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        p.getOutputStream().close();
        var out = p.getInputStream();
        var err = p.getErrorStream();
        StringBuilder errText = new StringBuilder();
        Thread errReader = new Thread(() -> {
            try {
                errText.append(new String(err.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the process is gone; what was read is what there is
            }
        });
        errReader.start();
        String outText = new String(out.readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("timed out: " + argv);
        }
        errReader.join();
        return new Result(p.exitValue(), outText, errText.toString());
    }
}
