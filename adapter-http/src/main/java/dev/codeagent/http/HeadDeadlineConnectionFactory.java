package dev.codeagent.http;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnection;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP/1.1 connections whose request head (request line and headers) must arrive within a deadline.
 *
 * <p>Jetty's idle timeout restarts with every byte and its minimum data rate covers only bodies, so a
 * client sending its headers one byte a second (slowloris) would hold a connection for ever. Here each
 * connection is looked at a few times per deadline; one whose parser has stayed in the head of the
 * same request for longer than the deadline is closed. Connections busy with a body or a response
 * (long executions, event streams) are not in the head and are left alone.
 */
final class HeadDeadlineConnectionFactory extends HttpConnectionFactory {

    private static final Logger log = LoggerFactory.getLogger(HeadDeadlineConnectionFactory.class);

    private final long deadlineNanos;
    private final long tickMillis;

    HeadDeadlineConnectionFactory(HttpConfiguration config, Duration deadline) {
        super(config);
        this.deadlineNanos = deadline.toNanos();
        this.tickMillis = Math.max(50, deadline.toMillis() / 4);
    }

    @Override
    public Connection newConnection(Connector connector, EndPoint endPoint) {
        Connection c = super.newConnection(connector, endPoint);
        if (c instanceof HttpConnection) {
            c.addEventListener(new Watch((HttpConnection) c, endPoint, connector.getScheduler()));
        }
        return c;
    }

    private final class Watch implements Connection.Listener {
        private final HttpConnection connection;
        private final EndPoint endPoint;
        private final Scheduler scheduler;
        private volatile Scheduler.Task next;
        private volatile boolean closed;
        // the request (by count of messages received) whose head is being waited for, and since when
        private long watchedMessages = -1;
        private long since;

        Watch(HttpConnection connection, EndPoint endPoint, Scheduler scheduler) {
            this.connection = connection;
            this.endPoint = endPoint;
            this.scheduler = scheduler;
        }

        @Override
        public void onOpened(Connection c) {
            since = System.nanoTime();
            watchedMessages = connection.getMessagesIn();
            schedule();
        }

        @Override
        public void onClosed(Connection c) {
            closed = true;
            Scheduler.Task t = next;
            if (t != null) {
                t.cancel();
            }
        }

        private void schedule() {
            if (!closed) {
                next = scheduler.schedule(this::check, tickMillis, TimeUnit.MILLISECONDS);
            }
        }

        private void check() {
            if (closed || !endPoint.isOpen()) {
                return;
            }
            HttpParser.State state = connection.getParser().getState();
            // START..HEADER: between requests or reading a head; CONTENT and later: a body or a response
            boolean inHead = state.ordinal() < HttpParser.State.CONTENT.ordinal();
            long messages = connection.getMessagesIn();
            long now = System.nanoTime();
            if (!inHead || messages != watchedMessages) {
                watchedMessages = inHead ? messages : -1;
                since = now;
            } else if (now - since > deadlineNanos) {
                log.debug("closing {}: the request head did not arrive within the deadline", endPoint.getRemoteSocketAddress());
                endPoint.close();
                return;
            }
            schedule();
        }
    }
}
