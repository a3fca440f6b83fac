package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.kit.sandbox.SupervisorJob;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pre-started, single-use sandboxes. Setting up the namespaces and the filesystem view costs more than
 * the interpreter's own start on a busy host (pivot_root and unmounting the old root wait for RCU grace
 * periods), so after an execution the sandbox starts the next one's sandbox in the background: its own
 * uid, namespaces, seccomp filter and empty tmpfs /work, already in a control group of its own (joining a
 * group is a cgroup migration, the slow part of a group's cost), with the supervisor blocked on stdin.
 *
 * <p>An execution takes one, sets its group to the request's limits ({@link WarmLaunches#warm}: two cgroupfs
 * writes, a peak reset and one read of the CPU used so far, which is not the program's) and writes it a
 * job — the program's files, the rlimits, the interpreter command and environment — followed by the
 * program's stdin. The supervisor writes the files into its private /work, forks the program exactly as on
 * the cold path and reports its wait status; only the setup happened earlier. Nothing is ever reused: a
 * sandbox serves one execution and dies with it, and its group is removed after.
 *
 * <p>The job is in the supervisor wire format both tiers share ({@link SupervisorJob}); the supervisor is
 * the Python build of the supervisor ({@code supervisor.py} beside this class), which cold runs use too.
 */
final class WarmPool implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WarmPool.class);

    /** Reads the job without buffering past it (the program's stdin follows), runs the program, reports its status. */
    static final String BOOTSTRAP = SupervisorJob.script(WarmPool.class, "supervisor.py");

    /** One pre-started sandbox, already in its control group (null where cgroups cannot be had). */
    record Warm(Launch launch, long uid, ChildGroup group, long memoryBytes) {
    }

    /** Starts a sandbox for the given memory size (its tmpfs sizes follow it); null when it cannot. */
    interface Starter {
        Warm start(long memoryBytes);
    }

    /** Kills a sandbox that will not be used and releases its uid and files. */
    interface Discarder {
        void discard(Warm warm);
    }

    private final int size;
    private final ExecutorService threads;
    private final Starter starter;
    private final Discarder discarder;
    private final Deque<Warm> idle = new ArrayDeque<>();
    private final AtomicInteger starting = new AtomicInteger();
    private boolean closed;

    WarmPool(int size, ExecutorService threads, Starter starter, Discarder discarder) {
        this.size = size;
        this.threads = threads;
        this.starter = starter;
        this.discarder = discarder;
    }

    /**
     * A live pre-started sandbox whose tmpfs sizes fit the memory limit, or null (the caller then starts
     * one cold). The caller refills the pool with {@link #refill} once its run is over, so that starting
     * the next sandbox does not compete with the run for the CPU.
     */
    Warm take(long memoryBytes) {
        Warm found = null;
        List<Warm> stale = new ArrayList<>();
        synchronized (this) {
            while (!idle.isEmpty()) {
                Warm w = idle.pollFirst();
                if (w.launch().exit.isDone() || w.memoryBytes() != memoryBytes) {
                    stale.add(w);
                } else {
                    found = w;
                    break;
                }
            }
        }
        stale.forEach(this::discardQuietly);
        return found;
    }

    /** Starts sandboxes in the background until {@code size} are idle or starting. */
    void refill(long memoryBytes) {
        while (true) {
            synchronized (this) {
                if (closed || idle.size() + starting.get() >= size) {
                    return;
                }
                starting.incrementAndGet();
            }
            threads.execute(() -> {
                Warm w = null;
                try {
                    w = starter.start(memoryBytes);
                } catch (RuntimeException e) {
                    log.debug("process sandbox: could not pre-start a sandbox: {}", e.toString());
                } finally {
                    boolean keep;
                    synchronized (this) {
                        keep = w != null && !closed;
                        if (keep) {
                            idle.addLast(w);
                            starting.decrementAndGet();
                        }
                    }
                    if (!keep) {
                        try {
                            if (w != null) {
                                discardQuietly(w);
                            }
                        } finally {
                            // counted until discarded, so that close() waits for it (its processes gone, its uid back)
                            starting.decrementAndGet();
                        }
                    }
                }
            });
        }
    }

    private void discardQuietly(Warm w) {
        try {
            discarder.discard(w);
        } catch (RuntimeException e) {
            log.warn("process sandbox: discarding a pre-started sandbox failed: {}", e.toString());
        }
    }

    /** Discards the idle sandboxes and waits (briefly) for those still starting, which discard themselves. */
    @Override
    public void close() {
        List<Warm> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(idle);
            idle.clear();
        }
        all.forEach(this::discardQuietly);
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(5).toNanos();
        while (starting.get() > 0 && System.nanoTime() < deadline) {
            // a close on an interrupted thread waits too: its caller closes the uid pool next
            Cleanup.pause(5);
        }
    }

    /**
     * The job for a sandbox's supervisor, followed by the program's stdin.
     *
     * @param nonce the secret behind which the supervisor reports the program's wait status (see {@link Child})
     */
    static byte[] job(List<String> argv, Map<String, String> env, Map<String, String> files, List<LaunchPlan.Limit> limits,
            ExecutionRequest request, String nonce) {
        SupervisorJob job = new SupervisorJob(files, request.program().binaryFiles(), argv, env).with("nonce", nonce);
        limits.forEach(l -> job.rlimit(l.name(), l.soft(), l.hard()));
        byte[] head = job.encode();
        byte[] stdin = request.stdin().getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream all = new ByteArrayOutputStream(head.length + stdin.length);
        all.writeBytes(head);
        all.writeBytes(stdin);
        return all.toByteArray();
    }
}
