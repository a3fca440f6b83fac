package dev.codeagent.sandbox.process;

import dev.codeagent.application.host.PrivateDirectory;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out, once, at construction, how runs can be wrapped on this host: the best {@link Mode} whose
 * {@link IsolationProbe} really runs, and the features it verified from inside; and whether the work root
 * is usable.
 */
final class HostProbe {

    private static final Logger log = LoggerFactory.getLogger(HostProbe.class);

    /** The wrapping chosen, the features it verified, and why better ones were not chosen. */
    record Choice(LaunchPlan plan, Set<IsolationFeature> features, String why) {
    }

    private HostProbe() {
    }

    /**
     * Probes the best wrapping first and settles for the first that really works.
     *
     * @throws SandboxUnavailableException when none works (in best-effort mode; strict mode gets the plain
     *     wrapping with no features, which its caller refuses with the reasons)
     */
    static Choice choose(IsolationMode mode, HostTools tools, Interpreters interpreters, Path privateTime, UidPool uids,
            Path workRoot) {
        return choose(mode, tools, interpreters, privateTime, uids, workRoot, null);
    }

    /**
     * @param state the sandbox's root-owned state directory (seccomp filter, empty mask file), or null; a
     *     bubblewrap probe then runs under the filter, so a filter the kernel refuses fails the probe
     */
    static Choice choose(IsolationMode mode, HostTools tools, Interpreters interpreters, Path privateTime, UidPool uids,
            Path workRoot, Path state) {
        List<Path> prefixes = interpreterPrefixes(interpreters);
        List<String> reasons = new ArrayList<>();
        List<Mode> candidates = new ArrayList<>();
        if (tools.bwrap() != null) {
            candidates.add(Mode.BWRAP);
        } else {
            reasons.add("bubblewrap (bwrap) is not installed");
        }
        if (tools.root() && tools.unshare() != null && tools.setpriv() != null) {
            candidates.add(Mode.UNSHARE);
        }
        candidates.add(Mode.PLAIN);
        if (!tools.root()) {
            reasons.add("not running as root, so runs cannot get their own uid");
        }
        if (tools.prlimit() == null) {
            reasons.add("prlimit is not installed");
        }
        for (Mode m : candidates) {
            LaunchPlan p = new LaunchPlan(m, tools, prefixes, privateTime, state);
            long uid = uids == null ? -1 : uids.acquire();
            IsolationProbe.Result r;
            try {
                r = IsolationProbe.run(p, uid, workRoot);
            } finally {
                if (uid >= 0) {
                    uids.release(uid);
                }
            }
            if (r.ok()) {
                return new Choice(p, r.features(), reasons.isEmpty() ? "probe" : String.join("; ", reasons));
            }
            reasons.add(m.name().toLowerCase(Locale.ROOT) + " failed: " + r.problem());
            log.warn("process sandbox: {} does not work on this host: {}", m.name().toLowerCase(Locale.ROOT), r.problem());
        }
        if (mode == IsolationMode.STRICT) {
            return new Choice(new LaunchPlan(Mode.PLAIN, tools, prefixes), Set.of(), String.join("; ", reasons));
        }
        throw new SandboxUnavailableException("the process sandbox cannot start a process on this host: "
                + String.join("; ", reasons));
    }

    /** Install prefixes of interpreters outside /usr, which the sandbox's view must show read-only. */
    private static List<Path> interpreterPrefixes(Interpreters interpreters) {
        List<Path> prefixes = new ArrayList<>();
        for (Path bin : interpreters.all().values()) {
            Path dir = bin.getParent();
            Path prefix = dir != null && dir.getFileName() != null && dir.getFileName().toString().equals("bin")
                    ? dir.getParent() : dir;
            if (prefix != null && !prefix.startsWith("/usr") && !prefix.toString().equals("/") && !prefixes.contains(prefix)) {
                prefixes.add(prefix);
            }
        }
        return prefixes;
    }

    /** The configured work root ({@code sandbox.process.workRoot}), else {@link #defaultWorkRoot}. */
    static Path workRoot(ProcessSandboxConfig config) {
        if (config.workRoot() != null && !config.workRoot().isBlank()) {
            return Path.of(config.workRoot()).toAbsolutePath().normalize();
        }
        return defaultWorkRoot(currentUid(), Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** Where root keeps its work directories and compiled helpers unless told otherwise. */
    static final Path ROOT_WORK_ROOT = Path.of("/var/lib/codeagent/process-sandbox");

    /**
     * Root's work root is {@link #ROOT_WORK_ROOT}: /var/lib is root's alone (0755), so no other user
     * can make the directory first, as anyone can in /tmp (and root compiles and runs its supervisor from the
     * work root). Any other user gets a directory of its own in the temp directory, checked like any work root.
     */
    static Path defaultWorkRoot(int uid, Path tmp) {
        return uid == 0 ? ROOT_WORK_ROOT : tmp.toAbsolutePath().normalize().resolve("codeagent-" + uid);
    }

    private static int currentUid() {
        try {
            return PrivateDirectory.currentUid();
        } catch (IOException e) {
            throw new SandboxUnavailableException("cannot tell which user this process runs as: " + e.getMessage(), e);
        }
    }

    /**
     * Makes the work root (0711) or checks it: this user's, writable by no one else, under ancestors no other user
     * can steer ({@link PrivateDirectory}). One another user made first, or can write, is refused in one line
     * naming it: they could swap what root writes, compiles and runs there.
     */
    static void requirePrivate(Path root) {
        try {
            PrivateDirectory.ensure(root, PosixFilePermissions.fromString("rwx--x--x"));
        } catch (PrivateDirectory.InsecurePathException e) {
            throw new SandboxUnavailableException("sandbox.process.workRoot: " + e.getMessage()
                    + " (set sandbox.process.workRoot to a directory only this user can write, or leave it unset)", e);
        } catch (IOException e) {
            throw new SandboxUnavailableException("sandbox.process.workRoot: cannot make " + root + ": " + e.getMessage()
                    + " (set sandbox.process.workRoot to a directory this user can create)", e);
        }
    }

    /**
     * Runs reach their work directories as their own uid, so every directory above them must be
     * searchable by others (as /tmp is). Checked here so that a bad work root fails at start, clearly.
     */
    static void requireSearchable(Path root) {
        try {
            Files.createDirectories(root);
            for (Path p = root.toRealPath(); p != null; p = p.getParent()) {
                if (!Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    throw new SandboxUnavailableException("sandbox.process.workRoot: " + p + " is not searchable by other "
                            + "users (mode o+x), so the sandbox's unprivileged uids cannot reach their work directories; "
                            + "chmod o+x " + p + ", or use another directory");
                }
            }
        } catch (IOException e) {
            throw new SandboxUnavailableException("sandbox.process.workRoot: cannot use " + root + ": " + e.getMessage(), e);
        }
    }
}
