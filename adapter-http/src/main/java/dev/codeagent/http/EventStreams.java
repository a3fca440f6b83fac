package dev.codeagent.http;

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
 * Writes events as server-sent events — a run's, a session cell's: everything after the client's last seen
 * id, then the live ones as they come, with a comment line as heartbeat while nothing happens; the stream
 * ends after the source's last event. The number of open streams is bounded.
 */
final class EventStreams {

    /** One event as it goes on the wire: its id, its name, and its data as one line of compact JSON. */
    record Frame(long id, String event, String data) {
    }

    /** What a reader gets: the frames after its position, and whether more can ever come. */
    record Frames(java.util.List<Frame> frames, boolean ended) {
    }

    /** Where a stream's events come from. */
    interface Source {
        /** The frames with ids above {@code lastId}; when there are none yet and more may come, waits up to {@code wait}. */
        Frames after(long lastId, Duration wait) throws InterruptedException, IOException;
    }

    /** A run's journal as a source. */
    static Source of(EventJournal journal) {
        return (lastId, wait) -> {
            EventJournal.Batch b = journal.after(lastId, wait);
            java.util.List<Frame> frames = new java.util.ArrayList<>();
            for (EventJournal.Entry e : b.entries()) {
                // compact JSON has no raw newlines, so one data line carries the whole event
                frames.add(new Frame(e.id(), e.event().name(), Views.MAPPER.writeValueAsString(Views.event(e.event(), e.id()))));
            }
            return new Frames(frames, b.finished() || b.closed());
        };
    }

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

    /** Streams the source to the response (blocking this thread until the stream ends), then frees the place. */
    void stream(HttpServletResponse res, Source source, long lastId) {
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
                Frames batch = source.after(last, heartbeat);
                for (Frame f : batch.frames()) {
                    write(out, "id: " + f.id() + "\nevent: " + f.event() + "\ndata: " + f.data() + "\n\n");
                    last = f.id();
                }
                if (batch.ended()) {
                    // an ended source hands over everything up to its last event in one batch
                    break;
                }
                if (batch.frames().isEmpty()) {
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

    private static void write(ServletOutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    int open() {
        return max - slots.availablePermits();
    }
}
