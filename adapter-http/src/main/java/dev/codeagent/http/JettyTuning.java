package dev.codeagent.http;

import dev.codeagent.http.ProblemException.Type;
import io.javalin.Javalin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.BlockingArrayQueue;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Javalin app on a Jetty tuned for hostile callers: a bounded request pool, a connection cap,
 * capped headers and bodies, a deadline for the request head, an idle timeout and a minimum body data
 * rate for slow clients, no version headers, and a problem document even for errors Jetty answers itself.
 */
final class JettyTuning {

    private static final Logger log = LoggerFactory.getLogger(JettyTuning.class);
    static final int MAX_THREADS = 200;
    static final int MAX_CONNECTIONS = 1024;

    private JettyTuning() {
    }

    /** The app, not yet started; {@code jetty} is set to its server once Javalin builds it. */
    static Javalin create(HttpConfig http, AtomicReference<Server> jetty) {
        return create(http, jetty, context -> { });
    }

    /** The same, with {@code mount} adding servlets beside Javalin's (what other doors serve: {@link HostedEndpoints}). */
    static Javalin create(HttpConfig http, AtomicReference<Server> jetty,
            java.util.function.Consumer<org.eclipse.jetty.servlet.ServletContextHandler> mount) {
        return Javalin.create(cfg -> {
            cfg.jetty.modifyServletContextHandler(mount::accept);
            cfg.showJavalinBanner = false;
            cfg.startupWatcherEnabled = false;
            cfg.http.prefer405over404 = true;
            cfg.http.disableCompression();
            cfg.http.maxRequestSize = http.maxBodyBytes().bytes();
            cfg.jetty.threadPool = threadPool();
            cfg.jetty.modifyServer(server -> {
                jetty.set(server);
                server.setErrorHandler(new Problems.JettyErrorHandler());
                // a flood of idle connections must not use up the file descriptors the sandbox needs: beyond
                // this Jetty stops accepting until some close (the head deadline and idle timeout close them)
                server.addBean(new ConnectionLimit(MAX_CONNECTIONS, server));
            });
            cfg.jetty.modifyHttpConfiguration(hc -> {
                hc.setRequestHeaderSize((int) http.maxHeaderBytes().bytes());
                hc.setSendServerVersion(false);
                hc.setSendXPoweredBy(false);
                // a client trickling its body slower than this is cut off (on top of the idle timeout)
                hc.setMinRequestDataRate(1024);
            });
            cfg.jetty.addConnector((server, hc) -> {
                ServerConnector c = new ServerConnector(server, new HeadDeadlineConnectionFactory(hc, http.requestTimeout()));
                c.setHost(http.host());
                c.setPort(http.port());
                c.setIdleTimeout(http.requestTimeout().toMillis());
                c.setAcceptQueueSize(128);
                return c;
            });
            cfg.pvt.javaLangErrorHandler((res, error) -> {
                log.error("fatal error while serving a request", error);
                try {
                    res.setStatus(500);
                    res.setContentType(Problems.CONTENT_TYPE);
                    res.getOutputStream().write(Problems.json(Problems.body(new ProblemException(Type.INTERNAL,
                            "internal error"), null, false)).getBytes(StandardCharsets.UTF_8));
                } catch (IOException | IllegalStateException e) {
                    log.debug("could not write the error response: {}", e.toString());
                }
            });
        });
    }

    private static QueuedThreadPool threadPool() {
        // a bounded queue: under a flood Jetty sheds connections instead of piling up work
        QueuedThreadPool pool = new QueuedThreadPool(MAX_THREADS, 8, 60_000, new BlockingArrayQueue<>(256, 256, 4096));
        pool.setName("http");
        pool.setDaemon(false);
        return pool;
    }
}
