package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.kit.sandbox.JudgeReportJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One long-lived judge sandbox for a batch of jobs whose tests share one source ({@link JudgeJob#batch()}):
 * {@code judge_server.py} under a pool uid of its own, in a bubblewrap sandbox and control group of its own,
 * forks a child per job from an interpreter that has the judge imported. A job's channel is a directory of
 * FIFOs made under {@link #channels()}, which the server sees whole and the job's candidate sees only its own
 * of; the verdict comes back on the server's stdout behind the job's nonce, which only this JVM reads.
 *
 * <p>Saves every sample of an evaluation a judge sandbox and interpreter start (the largest cost of judging).
 * A server that dies fails its pending jobs (no verdict: never a pass) and is replaced on the next job.
 */
final class JudgeServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JudgeServer.class);
    /** A nonce is 32 hex characters (see {@code Launches.nonce}). */
    static final int NONCE = 32;

    private final Process process;
    private final OutputStream stdin;
    private final Path channels;
    /** The uid the server and its judges run as (-1: this JVM's): each job's channel is handed over to it. */
    private final long uid;
    private final JudgeChannel.Pool pool;
    private final Runnable release;
    private final Map<String, CompletableFuture<String>> pending = new ConcurrentHashMap<>();
    private volatile boolean dead;

    JudgeServer(Process process, Path channels, long uid, ExecutorService threads, Runnable release) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.channels = channels;
        this.uid = uid;
        this.pool = new JudgeChannel.Pool(channels);
        this.release = release;
        threads.submit(this::readVerdicts);
        threads.submit(() -> drain(process.getErrorStream()));
    }

    /** Where the jobs' channel directories are made on the host. */
    Path channels() {
        return channels;
    }

    /**
     * A fresh channel directory for one job, under {@link #channels()}, never handed out twice: open to this server's
     * judges and to the job's candidate ({@code candidateUid}) alone (see {@link JudgeChannel#handOver}).
     */
    Path newChannel(long candidateUid) throws IOException {
        Path channel = pool.take();
        try {
            JudgeChannel.handOver(channel, uid, candidateUid);
        } catch (IOException e) {
            Reaper.remove(channel, null);
            throw e;
        }
        return channel;
    }

    boolean alive() {
        return !dead && process.isAlive();
    }

    /**
     * Hands the server a job; the future completes with the verdict line (after the nonce), or null when the job's
     * child ended without one or the server died.
     *
     * @param wall how long the job's child may live (it is killed at that time by its own alarm)
     * @param memory the job's child's address-space limit, in bytes
     * @param sampleCpu the sample's own CPU limit: the judge's CPU spent reading the sample's replies counts against it
     * @param channel the job's channel directory's name under {@link #channels()}
     */
    CompletableFuture<String> submit(String nonce, Duration wall, long memory, Duration sampleCpu, String channel, JudgeJob job,
            String code, int cpu) {
        CompletableFuture<String> verdict = new CompletableFuture<>();
        pending.put(nonce, verdict);
        byte[] c = code.getBytes(StandardCharsets.UTF_8);
        byte[] t = job.tests().getBytes(StandardCharsets.UTF_8);
        byte[] p = job.prelude() == null ? null : job.prelude().getBytes(StandardCharsets.UTF_8);
        String header = "J " + nonce + " " + Math.max(1, wall.toSeconds() + 1) + " " + memory + " " + JudgedLaunches.seconds(sampleCpu) + " " + JudgeChannel.SANDBOX_CHANNELS + "/"
                + channel + " " + (job.entryPoints().isEmpty() ? "-" : String.join(",", job.entryPoints())) + " " + c.length
                + " " + t.length + " " + (p == null ? -1 : p.length) + " " + CpuSlots.wire(cpu) + "\n";
        try {
            synchronized (stdin) {
                stdin.write(header.getBytes(StandardCharsets.US_ASCII));
                stdin.write(c);
                stdin.write(t);
                if (p != null) {
                    stdin.write(p);
                }
                stdin.flush();
            }
        } catch (IOException e) {
            log.warn("process sandbox: the judge server took no job: {}", e.getMessage());
            dead = true;
            pending.remove(nonce);
            verdict.complete(null);
        }
        return verdict;
    }

    /** Ends the job's child (its candidate has ended and the grace for its verdict is over). */
    void kill(String nonce) {
        CompletableFuture<String> f = pending.remove(nonce);
        if (f != null) {
            f.complete(null);
        }
        try {
            synchronized (stdin) {
                stdin.write(("K " + nonce + "\n").getBytes(StandardCharsets.US_ASCII));
                stdin.flush();
            }
        } catch (IOException e) {
            dead = true;
        }
    }

    private void readVerdicts() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.length() < NONCE || line.length() > NONCE + JudgeReportJson.MAX_LINE) {
                    continue;
                }
                CompletableFuture<String> f = pending.remove(line.substring(0, NONCE));
                if (f != null) {
                    f.complete(line.length() == NONCE ? null : line.substring(NONCE));
                }
            }
        } catch (IOException e) {
            log.debug("process sandbox: judge server's stdout: {}", e.toString());
        } finally {
            dead = true;
            pending.values().forEach(f -> f.complete(null));
            pending.clear();
        }
    }

    /** The tests' prints and the server's own complaints: read so the pipe never fills, kept only in the debug log. */
    private static void drain(InputStream err) {
        eachLine(err, line -> {
            if (line.startsWith("judge_server:")) {
                log.debug("process sandbox: {}", line);
            }
        });
    }

    /**
     * Reads a long-lived helper's stderr to its end (so the pipe never fills), each line cut to 500 characters, for
     * {@code line} to log.
     */
    static void eachLine(InputStream err, java.util.function.Consumer<String> line) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(err, StandardCharsets.UTF_8))) {
            String l;
            while ((l = lines.readLine()) != null) {
                line.accept(l.length() > 500 ? l.substring(0, 500) : l);
            }
        } catch (IOException e) {
            // it has ended
        }
    }

    @Override
    public void close() {
        dead = true;
        try {
            stdin.close();
        } catch (IOException e) {
            // it has ended already
        }
        release.run();
    }
}
