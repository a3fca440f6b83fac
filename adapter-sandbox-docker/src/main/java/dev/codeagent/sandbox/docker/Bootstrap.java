package dev.codeagent.sandbox.docker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.compile.Toolchains;
import dev.codeagent.kit.sandbox.SupervisorJob;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.kit.sandbox.JudgeScripts;
import dev.codeagent.domain.execution.ResourceLimits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a program gets into a container whose root filesystem is read-only, and how its end gets out
 * without waiting for the container to stop.
 *
 * <p>Every container runs a small Python bootstrap ({@link #COMMAND}, {@code supervisor.py}) as its init, pid 1 (the
 * container is made without Docker's own init). It makes itself non-dumpable and blocks reading its
 * stdin. The sandbox attaches and writes one job in the supervisor wire format ({@link SupervisorJob}: files,
 * arguments, environment, rlimits, and stdin, a backstop and a nonce). The bootstrap writes the files into the tmpfs work dir, puts
 * the program's stdin in a memfd, writes {@link #ACK} to stdout, and forks: the child raises its OOM
 * score, lowers its rlimits (CPU time, file size, core) and {@code execve}s a fresh interpreter on
 * {@code main.py}; the parent waits for it, reaping the orphans that come to pid 1 meanwhile, then
 * SIGKILLs and reaps everything else in the container until nothing is left, and writes a one-line
 * report (exit status or signal, CPU time, peak RSS, the cgroup's OOM-kill count) to stdout behind a
 * marker made from the nonce, and the bare marker to stderr (the two pipes are not ordered against
 * each other), then exits — which ends the container.
 *
 * <p>A live run ({@link #livePayload}, {@link LiveDocker}) differs in one thing: the program's stdin is a pipe the
 * supervisor feeds from {@link LiveFrames} that follow the payload on its own stdin (the request's stdin first), and
 * a signal frame makes it {@code kill(-1)} the rest of the container; the ack, the report and the nonce are the same.
 *
 * <p>Why pid 1 and non-dumpable: the program runs with the supervisor's uid. As the pid namespace's
 * init the supervisor cannot be killed or stopped from inside (the kernel drops such signals), so the
 * program cannot turn its own failure into a sandbox fault; {@code kill(-1)} from pid 1 reaches every
 * other process, and when pid 1 ends the kernel ends the rest, so nothing outlives the report. Being
 * non-dumpable, it cannot be ptraced, and its memory (the nonce), fds (the pipes) and OOM score are
 * closed to the program. A bootstrap that cannot be both refuses to run the program.
 *
 * <p>So a pooled container has paid for create/start and the bootstrap's own start-up before the
 * request arrives; the program still starts in a pristine interpreter with ordinary tracebacks; and
 * the result is known as soon as the program ends, not when the engine has finished tearing the
 * container down (about 100 ms here). The ack proves the program really started in this container;
 * the nonce, which never reaches the program's memory or any process alive when the report is
 * written, makes the report unforgeable by it.
 *
 * <p>Two deadlines of its own cover a host that died: a pooled container nobody claims exits after
 * {@link #IDLE_ENV} seconds, and a run ends itself at its backstop, {@link #BACKSTOP_GRACE} past the
 * wall-clock limit at which a living host would have killed it.
 */
final class Bootstrap {

    /** Written by the bootstrap to stdout just before the program starts; stripped from the output. */
    static final byte[] ACK = "\u0000codeagent:go\n".getBytes(StandardCharsets.US_ASCII);

    /** Environment variable of the container: seconds a pooled bootstrap waits for its payload before it exits. */
    static final String IDLE_ENV = "CODEAGENT_IDLE_SECONDS";
    /** Set to 1 in a reusable container ({@link DockerContainers.Spec#forBatches(boolean)}): its supervisor takes job after job. */
    static final String REUSE_ENV = "CODEAGENT_REUSE";

    /** How long past the wall-clock limit a run's supervisor ends the run itself (when its host is gone). */
    static final Duration BACKSTOP_GRACE = Duration.ofSeconds(30);

    /** The exit status of a bootstrap that could not start the program. */
    static final int FAILED = 121;

    /** Exit status of a supervisor that ended the program itself at its backstop (its host had gone). */
    static final int BACKSTOP = 122;

    /** The program's whole environment. */
    static final Map<String, String> ENV = Map.of(
            "PATH", "/usr/local/bin:/usr/bin:/bin",
            "LANG", "C.UTF-8",
            "HOME", DockerContainers.WORK_DIR,
            "TMPDIR", "/tmp");

    /** The supervisor's source, {@code supervisor.py} beside this class. */
    static final String SOURCE = SupervisorJob.script(Bootstrap.class, "supervisor.py");

    /** The container's command: the bootstrap, in an interpreter that ignores the image's environment. */
    static final List<String> COMMAND = List.of("python3", "-I", "-S", "-c", SOURCE);

    /**
     * Set in a reusable container with zygotes ({@link DockerContainers.Spec#forBatches(boolean)}): the flags a judged
     * Python program's interpreter gets, which the candidates' zygote starts with; a job whose argv has others is
     * started afresh.
     */
    static final String ZYGOTE_ENV = "CODEAGENT_ZYGOTE";

    /**
     * A reusable container's command with zygotes: {@link #COMMAND}, then the zygote's source ({@code zygote.py} beside
     * this class) and the kit's judge, candidate and wire scripts, which its zygotes compile before any job.
     */
    static final List<String> ZYGOTE_COMMAND = zygoteCommand();

    private static List<String> zygoteCommand() {
        List<String> cmd = new ArrayList<>(COMMAND);
        cmd.add(SupervisorJob.script(Bootstrap.class, "zygote.py"));
        for (String name : List.of(JudgeScripts.JUDGE, JudgeScripts.CANDIDATE, JudgeScripts.WIRE)) {
            cmd.add(JudgeScripts.files().get(name));
        }
        return List.copyOf(cmd);
    }

    /**
     * The call a reusable container with zygotes gets before its first job: its supervisor reports (nothing run, the
     * container ready for a job) once its zygotes are up.
     */
    static byte[] readyPayload(String nonce) {
        return new SupervisorJob(Map.of(), Map.of(), List.of(""), ENV).with("nonce", nonce).with("ready", Boolean.TRUE)
                .encode();
    }

    /** The value of {@link #ZYGOTE_ENV}: a judged Python program's interpreter flags. */
    static String zygoteFlags() {
        return String.join(" ", Toolchains.interpreterArgs(Language.PYTHON, ResourceLimits.defaults()));
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    /** A fresh secret for one execution: 128 random bits in hex. */
    static String newNonce() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        StringBuilder sb = new StringBuilder(32);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return sb.toString();
    }

    /** The bytes that open the bootstrap's report on stdout; the program cannot know them. */
    static byte[] reportMarker(String nonce) {
        return ("\u0000codeagent:" + nonce + ":").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * How the program ended, as its parent saw it ({@code os.wait4}).
     *
     * @param exitCode the exit status, or null when a signal ended it
     * @param signal the signal, or null
     * @param cpuSeconds user + system CPU time of the program and the children it waited for
     * @param maxRssBytes the program's peak resident memory
     * @param oomKills the OOM kills in the container during this job, or -1 when the cgroup could not be read
     * @param judge for a judged run, the judge's verdict line as it wrote it to the supervisor's own pipe, or null
     * @param again whether the container (a reusable one) holds nothing of this job and waits for another
     * @param zygoteFailure why the container's zygotes could not fork this job's judge and candidate, which then
     *     started afresh (the container then serves no other job), or null
     * @param spent for a reusable container that will not serve again, why (what the job left, or what failed), or null
     */
    record Report(Integer exitCode, Integer signal, double cpuSeconds, long maxRssBytes, int oomKills, String judge,
            boolean again, String zygoteFailure, String spent) {

        static Report parse(byte[] line) {
            try {
                com.fasterxml.jackson.databind.JsonNode n = JSON.readTree(line);
                return new Report(n.path("exit").isNumber() ? n.path("exit").asInt() : null,
                        n.path("signal").isNumber() ? n.path("signal").asInt() : null,
                        n.path("cpu").asDouble(), n.path("maxrss").asLong(), n.path("oom").asInt(-1),
                        n.path("judge").isTextual() ? n.path("judge").asText() : null,
                        n.path("again").asBoolean(false),
                        n.path("zygote").isTextual() ? n.path("zygote").asText() : null,
                        n.path("spent").isTextual() ? n.path("spent").asText() : null);
            } catch (java.io.IOException e) {
                return null;
            }
        }
    }

    private Bootstrap() {
    }

    /**
     * The interpreter command of a language, up to the file name: its {@link Toolchains} command, looked up
     * on the PATH, and arguments. Python is the bootstrap's own interpreter ("" stands for it): the image's
     * one Python, whatever its PATH.
     */
    static List<String> interpreter(Language language, ResourceLimits limits) {
        List<String> cmd = new ArrayList<>();
        cmd.add(language == Language.PYTHON ? "" : Toolchains.command(language));
        cmd.addAll(Toolchains.interpreterArgs(language, limits));
        return cmd;
    }

    /**
     * The bytes to write to a waiting bootstrap's stdin for this request.
     *
     * @param fileSizeCap the largest file the container's tmpfs can hold; the request's file limit is capped by it
     * @param nonce the secret that marks the bootstrap's report at the end of stdout (see {@link #reportMarker})
     */
    static byte[] payload(ExecutionRequest request, long fileSizeCap, String nonce) {
        return payload(request, fileSizeCap, nonce, null);
    }

    /**
     * @param programFilter a seccomp program (BPF, {@link dev.codeagent.kit.sandbox.SeccompFilter#bytes()}) the
     *     supervisor installs in the program's process before it starts the program, or null: under gVisor, where the
     *     engine's profile does not reach the program
     */
    static byte[] payload(ExecutionRequest request, long fileSizeCap, String nonce, byte[] programFilter) {
        return payload(request, fileSizeCap, nonce, programFilter, 0);
    }

    /**
     * @param cpuBackstop how many whole seconds past the CPU-time limit RLIMIT_CPU's soft limit sits ({@link
     *     #cpuBackstop}): 0 where RLIMIT_CPU is the limit, more where the caller holds the limit itself over the
     *     container's group
     */
    static byte[] payload(ExecutionRequest request, long fileSizeCap, String nonce, byte[] programFilter,
            long cpuBackstop) {
        return payload(request, fileSizeCap, nonce, backstop(request), programFilter, false, cpuBackstop);
    }

    /**
     * How far past the CPU-time limit RLIMIT_CPU goes, in whole seconds. Where the caller holds the limit over the
     * container's group, read exactly and often ({@code exactGroup}: a local cgroupfs), RLIMIT_CPU is only a backstop,
     * as on the process tier, because the clocks it is checked against run ahead of the CPU really used on a loaded
     * host, and a SIGXCPU short of the measured limit must never read as the limit:
     * <ul>
     *   <li>runc: the kernel checks it against tick-sampled time (SIGXCPU came at 0.87 s of a 1 s limit with load 20
     *       on 2 cores): a second behind is enough;</li>
     *   <li>gVisor: its own kernel counts a task's time from the host's clock while the task is in the program, host
     *       preemption included (SIGXCPU came when the host group had counted 0.87 s of a 2 s limit on a loaded host):
     *       the backstop is the limit again plus a second, and the host group, which also counts the time gVisor's
     *       kernel spends on the program's behalf (its system calls and page faults), holds the limit.</li>
     * </ul>
     * Without an exact group, RLIMIT_CPU is the limit (0).
     */
    static long cpuBackstop(ResourceLimits limits, boolean exactGroup, boolean gvisor) {
        if (!exactGroup) {
            return 0;
        }
        return gvisor ? cpuSeconds(limits) + 1 : 1;
    }

    /** The CPU-time limit in the whole seconds RLIMIT_CPU counts, rounded up so a 500 ms limit still lets the program start. */
    private static long cpuSeconds(ResourceLimits limits) {
        return Math.max(1L, (limits.cpuTime().toMillis() + 999) / 1000);
    }

    /**
     * The payload of a live run: the program's stdin is a pipe the supervisor feeds from {@link LiveFrames} that follow
     * the payload on its own stdin (the request's stdin first), rather than a file holding all of it.
     */
    static byte[] livePayload(ExecutionRequest request, long fileSizeCap, String nonce, byte[] programFilter,
            long cpuBackstop) {
        return payload(request, fileSizeCap, nonce, backstop(request), programFilter, true, cpuBackstop);
    }

    private static long backstop(ExecutionRequest request) {
        return request.limits().wallTime().plus(BACKSTOP_GRACE).toSeconds() + 1;
    }

    /** The payload with an explicit backstop: seconds after the program's start at which its supervisor ends the run. */
    static byte[] payload(ExecutionRequest request, long fileSizeCap, String nonce, long backstopSeconds) {
        return payload(request, fileSizeCap, nonce, backstopSeconds, null, false, 0);
    }

    private static byte[] payload(ExecutionRequest request, long fileSizeCap, String nonce, long backstopSeconds,
            byte[] programFilter, boolean live, long cpuBackstop) {
        ResourceLimits limits = request.limits();
        Map<String, String> files = new LinkedHashMap<>(request.program().files());
        files.put(request.program().mainFileName(), request.program().source());
        List<String> argv = new ArrayList<>(interpreter(request.program().language(), limits));
        if (request.judged()) {
            // the supervisor puts candidate.py and the ends of the judge's pipes in these places
            argv.addAll(List.of("\u0000candidate", "\u0000in", "\u0000out"));
        }
        argv.add(request.program().mainFileName());
        argv.addAll(request.args());
        long cpu = cpuSeconds(limits) + cpuBackstop;
        long fsize = Math.min(limits.maxFileBytes(), fileSizeCap);
        return new SupervisorJob(files, request.program().binaryFiles(), argv, ENV)
                .rlimit("RLIMIT_CPU", cpu, cpu + 1)
                .rlimit("RLIMIT_FSIZE", fsize, fsize)
                .rlimit("RLIMIT_CORE", 0, 0)
                .with("stdin", request.stdin())
                .with("backstop", backstopSeconds)
                .with("nonce", nonce)
                .with("live", live ? Boolean.TRUE : null)
                .with("judge", request.judged() ? judge(request) : null)
                .with("seccomp", programFilter == null ? null : java.util.Base64.getEncoder().encodeToString(programFilter))
                .encode();
    }

    /** What the supervisor's judge needs: its scripts, its own copy of the code, the tests, the prelude. */
    private static Map<String, Object> judge(ExecutionRequest request) {
        JudgeJob job = request.judging();
        Map<String, Object> judge = new LinkedHashMap<>();
        judge.put("scripts", JudgeScripts.files());
        judge.put("code", request.program().source());
        judge.put("tests", job.tests());
        judge.put("prelude", job.prelude());
        judge.put("entries", job.entryPoints());
        // the judge's CPU reading the sample's replies counts against the sample's own limit
        judge.put("cpu", request.limits().cpuTime().toMillis() / 1000.0);
        return judge;
    }
}
