package dev.codeagent.sandbox.docker;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.LogConfig;
import com.github.dockerjava.api.model.Ulimit;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The hardened shape of every sandbox container, and the labels that mark it as codeagent's. */
final class DockerContainers {

    static final String WORK_DIR = "/work";
    /** Present on every container codeagent makes. */
    static final String LABEL_SANDBOX = "dev.codeagent.sandbox";
    /** The sandbox instance that made the container. */
    static final String LABEL_OWNER = "dev.codeagent.owner";
    /** host:pid:start-instant of the JVM that made it, so a later start can tell strays from live containers. */
    static final String LABEL_PROCESS = "dev.codeagent.process";

    /**
     * The container starts as root with no capability but CAP_SETUID, CAP_SETGID and CAP_KILL (see
     * {@link #applyTo}): its supervisor (pid 1) runs the program as {@link #PROGRAM_UID} and a judge as another
     * uid, and can end them; the program itself never has a capability.
     */
    static final String USER = "0:0";
    /** The uid (and gid) every program runs as. */
    static final int PROGRAM_UID = 65534;
    static final long OPEN_FILES = 256;
    /** Memory of the bootstrap (the container's init and the program's supervisor), added to the program's limit. */
    static final long SUPERVISOR_MEMORY = 16L * 1024 * 1024;
    /** The bootstrap, added to the program's process limit. */
    static final int SUPERVISOR_PROCESSES = 1;
    /**
     * A reusable container's two zygotes (zygote.py), added to its memory: they hold the interpreters a job's judge and
     * candidate would otherwise start themselves (about 10 MiB each, measured; most of it shared with the forked
     * children and charged once).
     */
    // 32, not 24, since judge.py sends calls ahead (2026-12-08): under gVisor a forked hog then reached 216 MiB of a
    // 256 MiB limit (DockerBatchReuseIT$Runsc.aForkedJobGetsItsWholeMemoryLimitAndNoMore)
    static final long ZYGOTE_MEMORY = 32L * 1024 * 1024;
    /** A reusable container's two zygotes, added to its process limit. */
    static final int ZYGOTE_PROCESSES = 2;
    /**
     * Host threads and processes of gVisor itself (its kernel, file proxy and, on the ptrace platform, one
     * stub per address space): about 38 idle here, and runsc fails to start a sandbox under a pids limit
     * of 33; its kernel adds host threads as the program forks (a fork bomb under RLIMIT_NPROC 33 still broke a
     * limit of 97). Under runsc the container's pids limit is the program's plus this.
     */
    static final int GVISOR_PROCESSES = 256;
    /** Under gVisor: how many processes the program's pids group inside gVisor holds (read by the supervisor). */
    static final String PIDS_MAX_ENV = "CODEAGENT_PIDS_MAX";
    /** How long a started container waits for its program before its bootstrap gives up and exits. */
    static final Duration DEFAULT_IDLE = Duration.ofMinutes(15);

    private DockerContainers() {
    }

    /**
     * What one container is created with. The container-level limits (memory, processes) are fixed
     * at creation, so a pooled container serves only requests with the same {@link #key()}.
     */
    record Spec(String image, long memoryBytes, int maxProcesses, double cpus, long tmpfsBytes, Map<String, String> labels,
            Duration idle, String runtime, boolean seccomp, boolean reusable, boolean zygotes) {

        Spec {
            Objects.requireNonNull(image, "image");
            labels = Map.copyOf(labels);
            Objects.requireNonNull(idle, "idle");
            if (idle.toSeconds() < 1) {
                throw new IllegalArgumentException("idle must be at least a second: " + idle);
            }
        }

        Spec(String image, long memoryBytes, int maxProcesses, double cpus, long tmpfsBytes, Map<String, String> labels,
                Duration idle, String runtime, boolean seccomp) {
            this(image, memoryBytes, maxProcesses, cpus, tmpfsBytes, labels, idle, runtime, seccomp, false, false);
        }

        /**
         * The container for these limits. The bootstrap that supervises the program (and is the
         * container's init) lives in the same cgroup, so the container gets {@link #SUPERVISOR_MEMORY}
         * and {@link #SUPERVISOR_PROCESSES} on top of what the program may use.
         */
        static Spec of(String image, ResourceLimits limits, double cpus, long tmpfsBytes, Map<String, String> labels) {
            return new Spec(image, limits.memoryBytes() + SUPERVISOR_MEMORY, limits.maxProcesses() + SUPERVISOR_PROCESSES,
                    cpus, tmpfsBytes, labels, DEFAULT_IDLE, null, true);
        }

        /** The same shape with another idle time (after which an unclaimed container ends itself). */
        Spec withIdle(Duration idle) {
            return new Spec(image, memoryBytes, maxProcesses, cpus, tmpfsBytes, labels, idle, runtime, seccomp, reusable, zygotes);
        }

        /**
         * The same shape for a batch's judged jobs, one after another: its stdin stays open between attaches and its
         * supervisor, after each job, kills what is left, removes every file the job's uids could write and checks
         * the IPC namespace is empty, saying in its report whether the container is fit for another job
         * ({@link Bootstrap.Report#again()}); one that is not ends as a single-use container does. With {@code zygotes}
         * its supervisor starts two warm interpreters before any job (zygote.py), which fork each judged Python job's
         * judge and candidate; the container gets their memory and processes on top.
         */
        Spec forBatches(boolean zygotes) {
            return new Spec(image, memoryBytes + (zygotes ? ZYGOTE_MEMORY : 0), maxProcesses + (zygotes ? ZYGOTE_PROCESSES : 0),
                    cpus, tmpfsBytes, labels, idle, runtime, seccomp, true, zygotes);
        }

        /**
         * The same shape on an OCI runtime of the engine ({@code null}: its default), with or without codeagent's
         * seccomp profile ({@link SeccompProfile}; without, the engine's default applies).
         */
        Spec on(String runtime, boolean seccomp) {
            return new Spec(image, memoryBytes, maxProcesses, cpus, tmpfsBytes, labels, idle, runtime, seccomp, reusable, zygotes);
        }

        /** The container-level limits; requests whose limits give the same key can use this container. */
        String key() {
            return memoryBytes + "/" + maxProcesses + (reusable ? "/reusable" : "");
        }

        private boolean gvisor() {
            return "runsc".equals(runtime);
        }

        /**
         * Under gVisor the process limit is RLIMIT_NPROC, which its kernel counts per uid inside the sandbox,
         * where uid 65534 has only this run's processes (on the host every container shares that uid, so runc
         * relies on the pids cgroup alone); the cgroup then also has room for gVisor's own threads.
         */
        private List<Ulimit> ulimits() {
            List<Ulimit> limits = new java.util.ArrayList<>(List.of(
                    new Ulimit("nofile", OPEN_FILES, OPEN_FILES),
                    new Ulimit("fsize", tmpfsBytes, tmpfsBytes),
                    new Ulimit("core", 0L, 0L)));
            if (gvisor()) {
                // the program's uid has only the program's tasks (the supervisor is root), and under gVisor a
                // program that execve()d from the supervisor's child reaches two tasks more than its
                // RLIMIT_NPROC (measured with a thread bomb: 31 gives 33): maxProcesses in all
                long nproc = Math.max(1, maxProcesses - 2L - (zygotes ? ZYGOTE_PROCESSES : 0));
                limits.add(new Ulimit("nproc", nproc, nproc));
            }
            return limits;
        }

        /**
         * A session's container: {@code command} (the kernel bridge) is its init and runs as {@link #PROGRAM_UID}
         * with no capability at all (nothing in it starts anything under another uid), its stdin open for the
         * session's commands; otherwise the same container as a run's.
         */
        void applySessionTo(CreateContainerCmd cmd, List<String> command) {
            applyTo(cmd);
            cmd.getHostConfig().withCapAdd();
            cmd.withUser(PROGRAM_UID + ":" + PROGRAM_UID)
                    .withEntrypoint(command)
                    .withEnv(List.of("PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "HOME=" + WORK_DIR,
                            "PYDEVD_DISABLE_FILE_VALIDATION=1"));
        }

        /**
         * The supervisor's: it starts the program and the judge under their uids and kills what they leave. Under
         * gVisor also CAP_SYS_ADMIN, which there is gVisor's kernel's, not the host's: the supervisor mounts gVisor's
         * pids controller and puts the program in a group of {@link #PIDS_MAX_ENV} processes, the only thing that
         * stops a fork bomb in there (the host's pids cgroup counts gVisor's threads, not the program's processes).
         * The program, started as another uid with no-new-privileges, has no capability either way.
         */
        private Capability[] capabilities() {
            return gvisor() ? new Capability[] {Capability.SETUID, Capability.SETGID, Capability.KILL, Capability.SYS_ADMIN}
                    : new Capability[] {Capability.SETUID, Capability.SETGID, Capability.KILL};
        }

        private List<String> environment() {
            List<String> env = new java.util.ArrayList<>(List.of("PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
                    "HOME=" + WORK_DIR, Bootstrap.IDLE_ENV + "=" + idle.toSeconds()));
            if (reusable) {
                env.add(Bootstrap.REUSE_ENV + "=1");
            }
            if (zygotes) {
                env.add(Bootstrap.ZYGOTE_ENV + "=" + Bootstrap.zygoteFlags());
            }
            if (gvisor()) {
                env.add(PIDS_MAX_ENV + "=" + Math.max(1, maxProcesses - SUPERVISOR_PROCESSES - (zygotes ? ZYGOTE_PROCESSES : 0)));
            }
            return env;
        }

        void applyTo(CreateContainerCmd cmd) {
            String tmpfsOptions = "rw,nosuid,nodev,size=" + tmpfsBytes + ",mode=1777";
            Map<String, String> tmpfs = new LinkedHashMap<>();
            // exec: a compiled language's run stage starts the program built into the work dir (Docker's default for
            // a tmpfs is noexec). Nothing there is setuid (nosuid) and the uid can run code it wrote anyway: an
            // interpreter is one execve away. /tmp keeps noexec
            tmpfs.put(WORK_DIR, "rw,exec,nosuid,nodev,size=" + tmpfsBytes + ",mode=1777");
            tmpfs.put("/tmp", tmpfsOptions);
            HostConfig host = HostConfig.newHostConfig()
                    .withNetworkMode("none")
                    .withCapDrop(Capability.ALL)
                    .withCapAdd(capabilities())
                    .withSecurityOpts(seccomp ? List.of("no-new-privileges", "seccomp=" + SeccompProfile.JSON)
                            : List.of("no-new-privileges"))
                    .withRuntime(runtime)
                    .withReadonlyRootfs(true)
                    .withTmpFs(tmpfs)
                    .withShmSize(Math.min(tmpfsBytes, 64L * 1024 * 1024))
                    .withMemory(memoryBytes)
                    .withMemorySwap(memoryBytes)
                    .withMemorySwappiness(0L)
                    .withNanoCPUs((long) Math.ceil(cpus * 1_000_000_000L))
                    .withPidsLimit((long) maxProcesses + (gvisor() ? GVISOR_PROCESSES : 0))
                    .withUlimits(ulimits())
                    .withLogConfig(new LogConfig(LogConfig.LoggingType.NONE))
                    // no docker-init: the bootstrap must be pid 1 itself (see Bootstrap), since an init
                    // running as the program's uid could be ptraced and taken over by it
                    .withInit(false)
                    .withAutoRemove(false)
                    .withPrivileged(false);
            cmd.withHostConfig(host)
                    .withUser(USER)
                    .withWorkingDir(WORK_DIR)
                    .withNetworkDisabled(true)
                    // the whole command as entrypoint: nothing of the image's entrypoint or cmd runs
                    .withEntrypoint(zygotes ? Bootstrap.ZYGOTE_COMMAND : Bootstrap.COMMAND)
                    .withEnv(environment())
                    .withAttachStdin(true)
                    .withAttachStdout(true)
                    .withAttachStderr(true)
                    .withStdinOpen(true)
                    // a reusable container takes a job per attach: its stdin must outlive each
                    .withStdInOnce(!reusable)
                    .withTty(false)
                    // nothing in here deserves a graceful stop; an engine shutting down should not wait for it
                    .withStopSignal("SIGKILL")
                    .withLabels(labels);
        }
    }
}
