package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Finds out what isolation a {@link Mode} really achieves on this host by running one tiny command
 * through it and asking, from inside, which namespaces, uid, limits and filesystem it got.
 */
final class IsolationProbe {

    /** Everything the process tier provides on a capable host, in the order they are reported. */
    static final List<IsolationFeature> ALL_FEATURES = List.of(IsolationFeature.RLIMITS, IsolationFeature.PID_NAMESPACE,
            IsolationFeature.NETWORK_NONE, IsolationFeature.MOUNT_NAMESPACE, IsolationFeature.IPC_NAMESPACE,
            IsolationFeature.UTS_NAMESPACE, IsolationFeature.FS_VIEW, IsolationFeature.UNPRIVILEGED_UID,
            IsolationFeature.CGROUP_MEMORY, IsolationFeature.CGROUP_CPU, IsolationFeature.CGROUP_PIDS,
            IsolationFeature.SECCOMP, IsolationFeature.TMPFS_ONLY, IsolationFeature.INIT);

    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    private static final String SCRIPT = "ulimit -n; id -u; "
            + "for n in pid net mnt ipc uts; do readlink /proc/self/ns/$n || echo none; done; "
            + "if [ -e /etc/passwd ] || [ -e /home ]; then echo view=host; else echo view=minimal; fi; "
            + "if grep -q '^Seccomp:[[:space:]]*2' /proc/self/status; then echo seccomp=on; else echo seccomp=off; fi";

    /**
     * What a probe found.
     *
     * @param ok whether the probe command ran at all
     * @param features the features verified from inside
     * @param problem why it did not run, or null
     */
    record Result(boolean ok, Set<IsolationFeature> features, String problem) {
    }

    private IsolationProbe() {
    }

    static Result run(LaunchPlan plan, long uid, Path workRoot) {
        Path dir = null;
        try {
            Files.createDirectories(workRoot);
            dir = Files.createTempDirectory(workRoot, "codeagent-probe-");
            Path marker = dir.resolve("probe.txt");
            Files.writeString(marker, "probe");
            if (uid >= 0) {
                Files.setAttribute(dir, "unix:uid", (int) uid);
                Files.setAttribute(marker, "unix:uid", (int) uid);
            }
            Map<String, String> env = new HashMap<>();
            env.put("PATH", "/usr/bin:/bin");
            env.put("LANG", "C.UTF-8");
            LaunchSpec spec = new LaunchSpec(uid, dir, List.of("probe.txt"), List.of("/bin/sh", "-c", SCRIPT), env,
                    ResourceLimits.defaults(), true, null, true);
            List<String> cmd = plan.command(spec);
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
            pb.environment().clear();
            pb.environment().putAll(env);
            Path err = dir.resolve("stderr");
            pb.redirectError(err.toFile());
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            Process p = pb.start();
            byte[] out = p.getInputStream().readNBytes(64 * 1024);
            if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return new Result(false, Set.of(), plan.mode().name().toLowerCase() + " probe did not finish");
            }
            if (p.exitValue() != 0) {
                String why = Files.readAllLines(err).stream().filter(l -> !l.isBlank()).findFirst().orElse("exit " + p.exitValue());
                return new Result(false, Set.of(), why.trim());
            }
            return new Result(true, parse(new String(out, StandardCharsets.UTF_8), uid, plan), null);
        } catch (IOException e) {
            return new Result(false, Set.of(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(false, Set.of(), "interrupted");
        } finally {
            if (dir != null) {
                try {
                    WorkDir.delete(dir);
                } catch (IOException ignored) {
                    // a probe directory left in the temp dir is harmless
                }
            }
        }
    }

    private static Set<IsolationFeature> parse(String out, long uid, LaunchPlan plan) {
        List<String> lines = new ArrayList<>(out.lines().map(String::trim).toList());
        Set<IsolationFeature> f = new LinkedHashSet<>();
        if (lines.size() < 8) {
            return f;
        }
        if (lines.get(0).equals(Integer.toString(LaunchPlan.OPEN_FILES))) {
            f.add(IsolationFeature.RLIMITS);
        }
        if (uid >= 0 && lines.get(1).equals(Long.toString(uid))) {
            f.add(IsolationFeature.UNPRIVILEGED_UID);
        }
        String[] names = {"pid", "net", "mnt", "ipc", "uts"};
        IsolationFeature[] features = {IsolationFeature.PID_NAMESPACE, IsolationFeature.NETWORK_NONE,
            IsolationFeature.MOUNT_NAMESPACE, IsolationFeature.IPC_NAMESPACE, IsolationFeature.UTS_NAMESPACE};
        for (int i = 0; i < names.length; i++) {
            String inside = lines.get(2 + i);
            String outside = ownNamespace(names[i]);
            if (!inside.equals("none") && outside != null && !inside.equals(outside)) {
                f.add(features[i]);
            }
        }
        if (lines.get(7).equals("view=minimal") && plan.mode() == Mode.BWRAP) {
            f.add(IsolationFeature.FS_VIEW);
        }
        if (lines.size() > 8 && lines.get(8).equals("seccomp=on") && plan.filters()) {
            f.add(IsolationFeature.SECCOMP);
        }
        return f;
    }

    private static String ownNamespace(String name) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns", name)).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }
}
