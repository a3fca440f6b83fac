package dev.codeagent.jupyter;

import static dev.codeagent.jupyter.CodeAgentKernel.oneLine;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.command.LimitOverrides;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.session.OpenSession;
import dev.codeagent.application.session.SessionRefusedException;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kernel's agent and its one session: opened in the background on the kernel's one worker thread, opened anew
 * after {@code %sandbox}, {@code %limits} or a session that ended, closed at shutdown; code cells run in it here.
 * The fields are guarded by this object.
 */
final class KernelSession {

    private static final Logger log = LoggerFactory.getLogger(KernelSession.class);

    /**
     * A notebook is a person's working session, not a request: cells may run for minutes and the notebook may sit
     * idle over lunch. The sandbox's limits (memory, processes, disk, CPU budget) stay those of a session.
     */
    static final SessionLimits NOTEBOOK_LIMITS = SessionLimits.defaults()
            .withCellTimeout(Duration.ofMinutes(10))
            .withIdleTimeout(Duration.ofHours(12))
            .withMaxLifetime(Duration.ofHours(24))
            .withMaxCells(100_000);

    private final Function<Map<String, String>, CodeAgentConfig> configs;
    private final Function<CodeAgentConfig, CodeAgent> agents;
    private final Map<String, String> overrides = new LinkedHashMap<>();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "codeagent-cell");
        t.setDaemon(true);
        return t;
    });
    private SessionLimits limits;
    private CodeAgent agent;
    private Future<OpenSession> session;

    KernelSession(Function<Map<String, String>, CodeAgentConfig> configs, Function<CodeAgentConfig, CodeAgent> agents) {
        this.configs = Objects.requireNonNull(configs, "configs");
        this.agents = Objects.requireNonNull(agents, "agents");
        // a configured ceiling below the notebook's defaults lowers them
        this.limits = LimitOverrides.within(NOTEBOOK_LIMITS, JupyterConfig.from(configs.apply(Map.of())).policy());
    }

    /** Work in order on the kernel's one worker: sessions open and close there, and %%solve runs there. */
    <T> Future<T> submit(Callable<T> work) {
        return worker.submit(work);
    }

    /** Starts opening the first session (and the agent) in the background. */
    synchronized void start() {
        openSession();
    }

    /** The per-cell time and the session's memory the next session opens with. */
    synchronized SessionLimits limits() {
        return limits;
    }

    /** The jupyter.* ceilings of the config in effect. */
    synchronized JupyterConfig ceilings() {
        return JupyterConfig.from(configs.apply(overrides));
    }

    /** {@code %sandbox}: a new agent on another tier and a new session; a bad config fails before the old is given up. */
    void switchSandbox(String kind) {
        Map<String, String> next;
        synchronized (this) {
            next = new LinkedHashMap<>(overrides);
        }
        next.put("sandbox.kind", kind);
        configs.apply(next); // a bad config fails here, before the working session is given up
        synchronized (this) {
            overrides.clear();
            overrides.putAll(next);
            closeAgent();
            openSession();
        }
    }

    /** {@code %limits}: a new session with these limits. */
    synchronized void relimit(SessionLimits next) {
        limits = next;
        closeSession();
        openSession();
    }

    /** Runs a code cell in the session; null when it went well. */
    Failure runCode(String source, Notebook out) {
        OpenSession open = session();
        Session s = open.session();
        CellResult r = open.use(x -> x.execute(new Cell(source), out::show));
        switch (r.status()) {
            case OK:
                return null;
            case OUTPUT_TRUNCATED:
                out.stderr("codeagent: " + r.message() + "\n");
                return null;
            case ERROR:
                CellOutput.Error e = r.error().orElseThrow();
                return new Failure(e.name(), e.value(), e.traceback());
            case INTERRUPTED:
                return new Failure("KeyboardInterrupt", r.message().isEmpty() ? "the cell was interrupted" : r.message());
            case TIMEOUT:
                return new Failure("CellTimeout", r.message() + (r.stateLost() ? " (the kernel was restarted: earlier"
                        + " definitions are gone)" : ""));
            case KERNEL_DIED:
            default:
                String why = r.message();
                recover(s, out);
                return new Failure("KernelDied", why + " (state lost: earlier definitions are gone)");
        }
    }

    /** After a dead kernel: restarts it, or opens a new session when the old one has ended. */
    private void recover(Session s, Notebook out) {
        try {
            if (s.endReason().isEmpty()) {
                s.restart();
                out.stderr("codeagent: the kernel inside the sandbox was restarted\n");
                return;
            }
        } catch (RuntimeException e) {
            log.debug("restart after a dead kernel failed", e);
        }
        synchronized (this) {
            closeSession();
            openSession();
        }
        out.stderr("codeagent: the session had ended (" + s.endReason().orElse("its sandbox failed")
                + "); a new one is starting\n");
    }

    /** The kernel's one owner in its agent's session registry: the notebook's. */
    static final String OWNER = "kernel";

    synchronized CodeAgent agent() {
        if (agent == null) {
            agent = agents.apply(configs.apply(overrides));
        }
        return agent;
    }

    /** Starts opening a session in the background; the caller holds this. */
    private void openSession() {
        SessionLimits l = limits;
        session = worker.submit(() -> {
            CodeAgent a = agent();
            try {
                return a.openSessions().open(OWNER, l);
            } catch (SessionRefusedException e) {
                throw new dev.codeagent.domain.execution.SandboxUnavailableException(e.getMessage());
            }
        });
    }

    /** The open session, waited for; a session that ended is replaced and the cell told to run again. */
    OpenSession session() {
        Future<OpenSession> f;
        synchronized (this) {
            if (session == null) {
                openSession();
            }
            f = session;
        }
        try {
            OpenSession s = f.get();
            if (s.endReason().isPresent()) {
                String why = s.endReason().get();
                synchronized (this) {
                    if (session == f) {
                        closeSession();
                        openSession();
                    }
                }
                throw new SessionGone("the session had ended (" + why + "); a new one is starting: run the cell again");
            }
            return s;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SessionGone("interrupted while the session was starting");
        } catch (ExecutionException e) {
            synchronized (this) {
                if (session == f) {
                    session = null; // the next cell tries again (e.g. after %sandbox)
                }
            }
            throw new SessionGone("no session: " + oneLine(e.getCause()));
        }
    }

    /** The session could not be had; one line for the notebook. */
    static final class SessionGone extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        SessionGone(String message) {
            super(message);
        }
    }

    /** The caller holds this. */
    private void closeSession() {
        Future<OpenSession> f = session;
        session = null;
        if (f == null) {
            return;
        }
        // closed when it has opened, on the worker (in order after the open), never blocking the shell thread
        worker.submit(() -> {
            try {
                f.get().close();
            } catch (ExecutionException e) {
                log.debug("the session never opened", e.getCause());
            } catch (RuntimeException e) {
                log.debug("closing the session failed", e);
            }
            return null;
        });
    }

    /** The caller holds this. */
    private void closeAgent() {
        closeSession();
        CodeAgent a = agent;
        agent = null;
        if (a != null) {
            worker.submit(() -> {
                a.close();
                return null;
            });
        }
    }

    /** Interrupts the cell running in the session, if one has opened. */
    void interrupt() {
        Future<OpenSession> f = session;
        if (f != null && f.isDone() && !f.isCancelled()) {
            try {
                f.get().session().interrupt();
            } catch (ExecutionException | InterruptedException | RuntimeException e) {
                log.debug("nothing to interrupt", e);
            }
        }
    }

    /** At the kernel's shutdown: the session and the agent are closed, the worker stopped. */
    void shutdown() {
        CodeAgent a;
        Future<OpenSession> f;
        synchronized (this) {
            a = agent;
            f = session;
            agent = null;
            session = null;
        }
        if (f != null) {
            f.cancel(false);
            if (f.isDone() && !f.isCancelled()) {
                try {
                    f.get().close();
                } catch (ExecutionException | InterruptedException | RuntimeException e) {
                    log.debug("closing the session at shutdown failed", e);
                }
            }
        }
        if (a != null) {
            a.close();
        }
        worker.shutdownNow();
    }
}
