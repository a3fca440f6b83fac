package dev.codeagent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The events of one session cell, in order, for streaming it and for resuming the stream with
 * {@code Last-Event-ID}: {@code output} for each output as the kernel produced it, then one {@code result} (the
 * whole result, as the JSON answer gives it) or {@code failed} (the session ended or refused the cell), after
 * which nothing more comes. Ids count from 1. Bounded by the session's per-cell output caps, which the bridge
 * applies before an output is sent; kept for the last few cells of a session ({@link SessionRoutes}).
 */
final class CellJournal implements EventStreams.Source {

    private final List<EventStreams.Frame> frames = new ArrayList<>();
    private boolean ended;

    synchronized void output(JsonNode output) {
        add("output", output);
    }

    /** The last event: the cell's result, or why there is none. */
    synchronized void end(String event, JsonNode data) {
        add(event, data);
        ended = true;
    }

    private void add(String event, JsonNode data) {
        if (ended) {
            return;
        }
        String json;
        try {
            json = Views.MAPPER.writeValueAsString(data);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a cell event did not serialise", e);
        }
        frames.add(new EventStreams.Frame(frames.size() + 1, event, json));
        notifyAll();
    }

    @Override
    public synchronized EventStreams.Frames after(long lastId, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!ended && frames.size() <= lastId) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        int from = (int) Math.min(Math.max(lastId, 0), frames.size());
        return new EventStreams.Frames(List.copyOf(frames.subList(from, frames.size())), ended);
    }

    /** Whether the cell has ended and a reader who saw {@code lastId} has seen every event. */
    synchronized boolean seenToTheEnd(long lastId) {
        return ended && lastId >= frames.size();
    }

    /** Ends the journal for good if it has not ended: the server is stopping. */
    synchronized void close() {
        ended = true;
        notifyAll();
    }
}
