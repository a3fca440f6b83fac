package dev.codeagent.sandbox.docker;

import static dev.codeagent.sandbox.docker.DockerSandbox.TIER;

import com.github.dockerjava.api.model.Info;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.IsolationFeature;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the Docker engine can enforce, asked of it: which runtimes it has and with what arguments, and the isolation
 * features its info shows (cgroup controllers, security options) for the tier's containers.
 */
final class IsolationProbe {

    private IsolationProbe() {
    }

    /** What to do when runsc is asked for and the engine does not have it: one line. */
    static final String REGISTER_RUNSC = "install gVisor (apt-get install runsc), add"
            + " {\"runtimes\":{\"runsc\":{\"path\":\"/usr/bin/runsc\",\"runtimeArgs\":[\"--network=none\"]}}}"
            + " to /etc/docker/daemon.json and reload the engine (sudo kill -HUP $(pidof dockerd)), or set sandbox.docker.runtime: runc";

    /** The arguments the engine runs {@code runtime} with, or empty when it has no runtime of that name. */
    @SuppressWarnings("unchecked")
    static Optional<List<String>> runtimeArgs(Map<String, Object> raw, String runtime) {
        Object runtimes = raw == null ? null : raw.get("Runtimes");
        if (!(runtimes instanceof Map)) {
            // an engine that does not list its runtimes: only its own can be assumed
            return DockerSandboxConfig.RUNC.equals(runtime) ? Optional.of(List.of()) : Optional.empty();
        }
        Object entry = ((Map<String, Object>) runtimes).get(runtime);
        if (!(entry instanceof Map)) {
            return Optional.empty();
        }
        Object args = ((Map<String, Object>) entry).get("runtimeArgs");
        return Optional.of(args instanceof List ? ((List<Object>) args).stream().map(String::valueOf).toList() : List.of());
    }

    /** @param ownFilter whether the supervisor installs codeagent's filter in the program's process itself (gVisor) */
    static Isolation isolationOf(Info info, boolean gvisor, List<String> runtimeArgs, boolean ownFilter) {
        Set<IsolationFeature> features = EnumSet.of(IsolationFeature.CONTAINER, IsolationFeature.PID_NAMESPACE,
                IsolationFeature.MOUNT_NAMESPACE, IsolationFeature.IPC_NAMESPACE, IsolationFeature.UTS_NAMESPACE,
                IsolationFeature.NETWORK_NONE, IsolationFeature.FS_VIEW, IsolationFeature.CAP_DROP_ALL,
                IsolationFeature.NO_NEW_PRIVILEGES, IsolationFeature.UNPRIVILEGED_UID, IsolationFeature.READ_ONLY_ROOT,
                IsolationFeature.TMPFS_SIZE_CAP, IsolationFeature.RLIMITS, IsolationFeature.INIT,
                // the run's CPU time is its container's group's, read from the cgroupfs or the engine (GroupCpu)
                IsolationFeature.CGROUP_CPU);
        Set<IsolationFeature> missing = EnumSet.noneOf(IsolationFeature.class);
        (Boolean.TRUE.equals(info.getMemoryLimit()) && Boolean.TRUE.equals(info.getSwapLimit()) ? features : missing)
                .add(IsolationFeature.CGROUP_MEMORY);
        List<String> security = Optional.ofNullable(info.getSecurityOptions()).orElse(List.of());
        // codeagent's profile (SeccompProfile) contains Docker's default; gVisor applies it only with --oci-seccomp,
        // which in runsc 0.0~20221219 breaks select() (EPERM under any profile): .ci/run does not set it
        boolean seccomp = security.stream().anyMatch(s -> s.contains("name=seccomp"))
                && (!gvisor || runtimeArgs.stream().anyMatch(a -> a.matches("--?oci-seccomp(=true)?")));
        (seccomp ? features : missing).add(IsolationFeature.SECCOMP_DEFAULT);
        (seccomp || ownFilter ? features : missing).add(IsolationFeature.SECCOMP);
        if (gvisor) {
            features.add(IsolationFeature.GVISOR);
        }
        if (security.stream().anyMatch(s -> s.contains("name=apparmor"))) {
            features.add(IsolationFeature.APPARMOR);
        }
        if (security.stream().anyMatch(s -> s.contains("name=userns"))) {
            features.add(IsolationFeature.USERNS);
        }
        // the pids and CPU controllers: docker-java's Info lacks their flags, so ask the raw map. The CFS
        // quota caps cores, not CPU time summed over the run's processes, so it is cpu-quota, not cgroup-cpu.
        Map<String, Object> raw = info.getRawValues();
        (raw == null || !Boolean.FALSE.equals(raw.get("PidsLimit")) ? features : missing).add(IsolationFeature.CGROUP_PIDS);
        (raw == null || !Boolean.FALSE.equals(raw.get("CpuCfsQuota")) ? features : missing).add(IsolationFeature.CPU_QUOTA);
        return Isolation.of(TIER, features, missing);
    }
}
