package dev.codeagent.sandbox.docker;

import com.github.dockerjava.api.model.Container;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns every container one sandbox makes: the warm pool, the containers in use, and those waiting
 * to be removed. One background thread refills the pool, removes finished containers, and after an
 * engine fault drains the (now stale) pool, waits for the engine with backoff, sweeps whatever of
 * ours the fault left behind and refills: the tier heals without help.
 */
final class ContainerKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ContainerKeeper.class);
    private static final long IDLE_WAKE_MILLIS = 5_000;
    private static final long MAX_BACKOFF_MILLIS = 2_000;

    private final DockerEngine engine;
    private final DockerContainers.Spec poolSpec;
    private final int poolSize;
    private final String ownerId;
    private final Set<String> live = ConcurrentHashMap.newKeySet();
    private final Set<String> inUse = ConcurrentHashMap.newKeySet();
    private final LinkedBlockingDeque<String> ready = new LinkedBlockingDeque<>();
    /**
     * The compile pool: containers made for compile stages' limits (a compiled language's first stage), kept warm once
     * such a stage has asked for one, so that compiling spares the create/start as running does. Null spec: none.
     */
    private final DockerContainers.Spec compileSpec;
    private final int compileSize;
    private final LinkedBlockingDeque<String> compileReady = new LinkedBlockingDeque<>();
    private volatile boolean compileWanted;
    /** When each pooled container was started (System.nanoTime), to retire it before its bootstrap's idle time runs out. */
    private final Map<String, Long> startedAt = new ConcurrentHashMap<>();
    private final long maxWarmNanos;
    private final LinkedBlockingQueue<String> doomed = new LinkedBlockingQueue<>();
    /**
     * Reusable containers between two jobs of a batch, by batch and container key, most recently used first; each
     * one's time of return is in {@link #startedAt}, so one idle too long is retired as a pooled one is.
     */
    private final Map<String, LinkedBlockingDeque<String>> batchIdle = new ConcurrentHashMap<>();
    /** How many reusable containers may wait between jobs, over all batches; past it one is removed instead. */
    static final int MAX_BATCH_IDLE = 8;
    /** How long a reusable container waits for its batch's next job before it is removed (a batch's jobs come back to back). */
    static final Duration BATCH_IDLE = Duration.ofSeconds(30);
    private final AtomicBoolean troubled = new AtomicBoolean();
    private final Object kick = new Object();
    private boolean kicked;
    private volatile boolean closed;
    private volatile int creating;
    private final Thread thread;

    ContainerKeeper(DockerEngine engine, DockerContainers.Spec poolSpec, int poolSize, String ownerId) {
        this(engine, poolSpec, poolSize, null, 0, ownerId);
    }

    /**
     * @param compileSpec what compile stages' containers are made as, or null; a pool of {@code compileSize} of them
     *     is kept from the first time one is asked for (before that, a sandbox that never compiles holds none)
     */
    ContainerKeeper(DockerEngine engine, DockerContainers.Spec poolSpec, int poolSize, DockerContainers.Spec compileSpec,
            int compileSize, String ownerId) {
        this.compileSpec = compileSpec == null || compileSpec.key().equals(poolSpec.key()) || compileSize <= 0 ? null : compileSpec;
        this.compileSize = compileSize;
        this.engine = engine;
        this.poolSpec = poolSpec;
        this.poolSize = poolSize;
        this.ownerId = ownerId;
        // well before the bootstrap's own idle exit, so that no request is handed a container that just ended
        this.maxWarmNanos = poolSpec.idle().toNanos() * 2 / 3;
        this.thread = new Thread(this::loop, "codeagent-docker-keeper");
        thread.setDaemon(true);
        thread.start();
    }

    /** A started pooled container for a request whose container-level limits give {@code key}, or null. */
    String takeWarm(String key) {
        if (compileSpec != null && compileSpec.key().equals(key)) {
            compileWanted = true;
            return take(compileReady);
        }
        if (poolSize == 0 || !poolSpec.key().equals(key)) {
            return null;
        }
        return take(ready);
    }

    private String take(LinkedBlockingDeque<String> pool) {
        String id;
        while ((id = pool.pollFirst()) != null) {
            if (!stale(id)) {
                startedAt.remove(id);
                inUse.add(id);
                wake();
                return id;
            }
            retire(id);
        }
        wake();
        return null;
    }

    /** A reusable container that served a job of batch {@code batchKey} and is fit for another, or null. */
    String takeForBatch(String batchKey) {
        LinkedBlockingDeque<String> idle = batchIdle.get(batchKey);
        return idle == null ? null : take(idle);
    }

    /**
     * Gives back a reusable container whose supervisor said it holds nothing of the job it ran and waits for
     * another: kept for the batch's next job. When {@link #MAX_BATCH_IDLE} wait already, the one that has waited
     * longest goes to make room (a batch that just returned one is the likeliest to come back; one that stopped
     * sending jobs is not).
     */
    void keepForBatch(String batchKey, String id) {
        if (closed) {
            release(id, false);
            return;
        }
        while (batchIdle.values().stream().mapToInt(LinkedBlockingDeque::size).sum() >= MAX_BATCH_IDLE) {
            String oldest = null;
            LinkedBlockingDeque<String> from = null;
            for (LinkedBlockingDeque<String> idle : batchIdle.values()) {
                String last = idle.peekLast();
                Long t = last == null ? null : startedAt.get(last);
                if (t != null && (oldest == null || t < startedAt.getOrDefault(oldest, Long.MAX_VALUE))) {
                    oldest = last;
                    from = idle;
                }
            }
            if (oldest == null) {
                break;
            }
            // another thread may have taken it meanwhile: only the one that removes it releases it
            if (from.removeLastOccurrence(oldest)) {
                startedAt.remove(oldest);
                release(oldest, false);
            }
        }
        // stale (see retireStale) BATCH_IDLE after its return; close() removes by owner label what it did not find
        // here, so a return racing it leaks nothing
        startedAt.put(id, System.nanoTime() - maxWarmNanos + BATCH_IDLE.toNanos());
        batchIdle.computeIfAbsent(batchKey, k -> new LinkedBlockingDeque<>()).addFirst(id);
        inUse.remove(id);
        wake();
    }

    private boolean stale(String id) {
        Long t = startedAt.get(id);
        return t != null && System.nanoTime() - t > maxWarmNanos;
    }

    private void retire(String id) {
        startedAt.remove(id);
        doomed.add(id);
    }

    /** Pooled containers near their bootstrap's idle exit go, and are replaced. */
    private void retireStale() {
        List<LinkedBlockingDeque<String>> pools = new ArrayList<>(List.of(ready, compileReady));
        pools.addAll(batchIdle.values());
        for (LinkedBlockingDeque<String> pool : pools) {
            for (String id : pool) {
                if (stale(id) && pool.remove(id)) {
                    retire(id);
                }
            }
        }
    }

    /** Creates and starts a container for one execution, outside the pool. */
    String createAndStart(DockerContainers.Spec spec) {
        String id = engine.create(spec);
        live.add(id);
        inUse.add(id);
        try {
            engine.start(id);
        } catch (RuntimeException e) {
            release(id, false);
            throw e;
        }
        return id;
    }

    /**
     * Gives back a used container: it is removed now ({@code now}: kills whatever still runs in it
     * before returning) or by the background thread. A removal the engine refuses is retried later.
     */
    void release(String id, boolean now) {
        inUse.remove(id);
        if (now) {
            try {
                engine.remove(id);
                live.remove(id);
                return;
            } catch (EngineFailure e) {
                log.debug("removing {} failed, will retry: {}", shortId(id), e.getMessage());
                troubled.set(true);
            }
        }
        doomed.add(id);
        wake();
    }

    /** A used container the caller has already removed. */
    void forget(String id) {
        inUse.remove(id);
        live.remove(id);
    }

    /** Something went wrong talking to the engine: distrust the pool until it answers again. */
    void engineTrouble() {
        troubled.set(true);
        wake();
    }

    int warm() {
        return ready.size();
    }

    /** Containers made and not yet known to be removed. */
    int live() {
        return live.size();
    }

    /** Waits until the pool holds {@code poolSize} started containers and nothing awaits removal. */
    boolean awaitSettled(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (ready.size() >= poolSize && (!compileWanted || compileReady.size() >= compileSize) && doomed.isEmpty()
                    && creating == 0 && !troubled.get()) {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }

    private void wake() {
        synchronized (kick) {
            kicked = true;
            kick.notifyAll();
        }
    }

    private void sleep(long millis) throws InterruptedException {
        synchronized (kick) {
            long deadline = System.currentTimeMillis() + millis;
            while (!kicked && !closed) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    break;
                }
                kick.wait(left);
            }
            kicked = false;
        }
    }

    /** Sleeps without being woken by kicks (a backoff), but not past close. */
    private void pause(long millis) throws InterruptedException {
        synchronized (kick) {
            long deadline = System.currentTimeMillis() + millis;
            while (!closed) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    break;
                }
                kick.wait(left);
            }
        }
    }

    private void loop() {
        long backoff = 0;
        while (!closed) {
            try {
                if (troubled.get()) {
                    recover();
                }
                retireStale();
                reap();
                refill();
                backoff = 0;
                sleep(IDLE_WAKE_MILLIS);
            } catch (EngineFailure e) {
                troubled.set(true);
                backoff = backoff == 0 ? 100 : Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
                log.debug("docker engine trouble, retrying in {} ms: {}", backoff, e.getMessage());
                try {
                    pause(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // the keeper must outlive surprises; the next round retries
                log.warn("docker sandbox housekeeping failed: {}", e.toString());
                try {
                    pause(MAX_BACKOFF_MILLIS);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** After a fault: pooled containers may have died with the engine, so they go; then sweep. */
    private void recover() {
        List<String> stale = new ArrayList<>();
        ready.drainTo(stale);
        compileReady.drainTo(stale);
        batchIdle.values().forEach(idle -> idle.drainTo(stale));
        stale.forEach(startedAt::remove);
        doomed.addAll(stale);
        engine.ping();
        for (Container c : engine.listByLabels(Map.of(DockerContainers.LABEL_OWNER, ownerId))) {
            if (!inUse.contains(c.getId()) && !ready.contains(c.getId()) && !compileReady.contains(c.getId())
                    && !doomed.contains(c.getId()) && batchIdle.values().stream().noneMatch(idle -> idle.contains(c.getId()))) {
                live.add(c.getId());
                doomed.add(c.getId());
            }
        }
        troubled.set(false);
        log.info("docker engine at {} answers again; {} container(s) to clean up", engine.host(), doomed.size());
    }

    private void reap() {
        String id;
        while ((id = doomed.peek()) != null) {
            engine.remove(id);
            live.remove(id);
            doomed.remove(id);
        }
    }

    private void refill() {
        refill(ready, poolSpec, poolSize);
        if (compileWanted) {
            refill(compileReady, compileSpec, compileSize);
        }
    }

    private void refill(LinkedBlockingDeque<String> pool, DockerContainers.Spec spec, int size) {
        while (!closed && !troubled.get() && pool.size() < size) {
            creating = 1;
            try {
                String id = engine.create(spec);
                live.add(id);
                try {
                    engine.start(id);
                } catch (EngineFailure e) {
                    doomed.add(id);
                    throw e;
                }
                if (closed) {
                    doomed.add(id);
                } else {
                    startedAt.put(id, System.nanoTime());
                    pool.addLast(id);
                }
            } finally {
                creating = 0;
            }
        }
    }

    /**
     * Stops the background thread and removes every container this keeper made, in use or not, with
     * a last sweep by owner label for any whose creation answer was lost.
     */
    @Override
    public void close() {
        closed = true;
        wake();
        // no interrupt: an engine call cut short on our side may still complete on the engine's, and
        // its container would escape the sweep below; the thread finishes its step (calls are bounded)
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Set<String> all = new java.util.HashSet<>(live);
        all.addAll(ready);
        all.addAll(compileReady);
        batchIdle.values().forEach(all::addAll);
        all.addAll(doomed);
        all.addAll(inUse);
        try {
            for (Container c : engine.listByLabels(Map.of(DockerContainers.LABEL_OWNER, ownerId))) {
                all.add(c.getId());
            }
        } catch (EngineFailure e) {
            log.debug("cannot list containers while closing: {}", e.getMessage());
        }
        int failed = 0;
        for (String id : all) {
            try {
                engine.remove(id);
            } catch (EngineFailure e) {
                failed++;
            }
        }
        if (failed > 0) {
            log.warn("{} sandbox container(s) could not be removed (engine unreachable); the next start removes them", failed);
        }
        live.clear();
        ready.clear();
        compileReady.clear();
        batchIdle.clear();
        startedAt.clear();
        doomed.clear();
        inUse.clear();
    }

    static String shortId(String id) {
        return id.length() > 12 ? id.substring(0, 12) : id;
    }
}
