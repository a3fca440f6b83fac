package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.ResourceLimits;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Everything the command of one run is built from.
 *
 * @param uid the unprivileged uid to run as, or -1 for the JVM's own
 * @param hostDir the private work directory on the host
 * @param files the program's files, relative to the work directory
 * @param argv the interpreter command as seen from inside the sandbox (binary, flags, file, args)
 * @param env the program's whole environment
 * @param limits the run's limits
 * @param addressSpaceLimit whether RLIMIT_AS applies (false for runtimes that reserve huge address ranges)
 * @param rusageHost the host file GNU time writes CPU time and peak memory to, or null not to measure
 * @param prlimit whether the command sets the rlimits with prlimit (false when the sandbox's bootstrap
 *     sets them itself, see {@link WarmPool})
 * @param group the run's control group, joined by the launcher before anything of the run exists, or null
 * @param supervised whether {@code argv} is the in-sandbox supervisor ({@link Supervisor}), which
 *     becomes the sandbox's pid 1, receives the program's files on stdin and reports its wait status
 * @param binds host paths bound read-only into the sandbox (a judged run's channel FIFOs, which stay writable
 *     as FIFOs, and the judge's scripts); empty for a plain run
 */
record LaunchSpec(long uid, Path hostDir, List<String> files, List<String> argv, Map<String, String> env,
        ResourceLimits limits, boolean addressSpaceLimit, Path rusageHost, boolean prlimit, ChildGroup group,
        boolean supervised, List<Bind> binds) {

    /** {@code host} bound read-only at {@code sandbox} (an absolute path inside the sandbox). */
    record Bind(Path host, String sandbox) {
    }

    LaunchSpec {
        files = List.copyOf(files);
        argv = List.copyOf(argv);
        env = Map.copyOf(env);
        binds = List.copyOf(binds);
    }

    LaunchSpec(long uid, Path hostDir, List<String> files, List<String> argv, Map<String, String> env,
            ResourceLimits limits, boolean addressSpaceLimit, Path rusageHost, boolean prlimit, ChildGroup group,
            boolean supervised) {
        this(uid, hostDir, files, argv, env, limits, addressSpaceLimit, rusageHost, prlimit, group, supervised, List.of());
    }

    LaunchSpec withBinds(List<Bind> more) {
        return new LaunchSpec(uid, hostDir, files, argv, env, limits, addressSpaceLimit, rusageHost, prlimit, group,
                supervised, more);
    }

    /** This spec with {@code more} bound besides its own binds (the supervisor's). */
    LaunchSpec withMoreBinds(List<Bind> more) {
        List<Bind> all = new java.util.ArrayList<>(binds);
        all.addAll(more);
        return withBinds(all);
    }

    /** A run without a control group or supervisor (the isolation probe, hosts without cgroups or Python). */
    LaunchSpec(long uid, Path hostDir, List<String> files, List<String> argv, Map<String, String> env,
            ResourceLimits limits, boolean addressSpaceLimit, Path rusageHost, boolean prlimit) {
        this(uid, hostDir, files, argv, env, limits, addressSpaceLimit, rusageHost, prlimit, null, false);
    }
}
