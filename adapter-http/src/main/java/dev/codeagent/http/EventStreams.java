package dev.codeagent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codeagent.http.ProblemException.Type;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a run's events as server-sent events: everything after the client's last seen id, then the
 * live ones as they come, with a comment line as heartbeat while nothing happens; the stream ends
 * after run-finished. The number of open streams is bounded.
 */
final class EventStreams {

    private static final Logger log = LoggerFactory.getLogger(EventStreams.class);

    private final Semaphore slots;
    private final int max;
    private final Duration heartbeat;

    EventStreams(int maxStreams, Duration heartbeat) {
        this.slots = new Semaphore(maxStreams);
        this.max = maxStreams;
        this.heartbeat = heartbeat;
    }

    /** Reserves a stream place. @throws ProblemException 503 when all are taken */
    void acquire() {
        if (!slots.tryAcquire()) {
            throw ProblemException.retryLater(Type.OVERLOADED, "all " + max
                    + " event stream places are taken (http.maxEventStreams)", Duration.ofSeconds(5));
        }
    }

    /** Streams the journal to the response (blocking this thread until the stream ends), then frees the place. */
    void stream(HttpServletResponse res, EventJournal journal, long lastId) {
        try {
            res.setStatus(200);
            res.setContentType("text/event-stream");
            res.setCharacterEncoding("UTF-8");
            res.setHeader("Cache-Control", "no-store");
            res.setHeader("X-Accel-Buffering", "no");
            ServletOutputStream out = res.getOutputStream();
            write(out, "retry: 2000\n\n");
            long last = lastId;
            while (true) {
                EventJournal.Batch batch = journal.after(last, heartbeat);
                for (EventJournal.Entry e : batch.entries()) {
                    write(out, frame(e));
                    last = e.id();
                }
                if (batch.finished() || batch.closed()) {
                    // a finished journal hands over everything up to run-finished in one batch
                    break;
                }
                if (batch.entries().isEmpty()) {
                    write(out, ": keep-alive\n\n");
                }
            }
        } catch (IOException e) {
            log.debug("event stream ended by the client: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            slots.release();
        }
    }

    private static String frame(EventJournal.Entry e) throws JsonProcessingException {
        // compact JSON has no raw newlines, so one data line carries the whole event
        String data = Views.MAPPER.writeValueAsString(Views.event(e.event(), e.id()));
        return "id: " + e.id() + "\nevent: " + e.event().name() + "\ndata: " + data + "\n\n";
    }

    private static void write(ServletOutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    int open() {
        return max - slots.availablePermits();
    }
}
