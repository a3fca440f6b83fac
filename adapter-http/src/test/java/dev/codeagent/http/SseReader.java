package dev.codeagent.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Reads a server-sent event stream as a browser's EventSource would, one event at a time; close() hangs up. */
final class SseReader implements AutoCloseable {

    /** One event. */
    record Event(long id, String name, String data) {
    }

    final HttpResponse<InputStream> response;
    private final BufferedReader reader;

    SseReader(TestServer server, String runId, String key, Long lastEventId) {
        this(get(server, "/v1/runs/" + runId + "/events", key, lastEventId));
    }

    /** A GET of an event stream, as an EventSource sends it. */
    static HttpRequest get(TestServer server, String path, String key, Long lastEventId) {
        HttpRequest.Builder b = server.request(path).timeout(Duration.ofSeconds(60))
                .header("Accept", "text/event-stream").header("Authorization", "Bearer " + key).GET();
        if (lastEventId != null) {
            b.header("Last-Event-ID", Long.toString(lastEventId));
        }
        return b.build();
    }

    /** Any request whose answer is an event stream. */
    SseReader(HttpRequest request) {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    }

    /** The next event, or null when the stream has ended. */
    Event next() {
        Long id = null;
        String name = "message";
        StringBuilder data = new StringBuilder();
        try {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data.length() > 0) {
                        return new Event(id == null ? -1 : id, name, data.toString());
                    }
                    continue;
                }
                if (line.startsWith(":") || line.startsWith("retry:")) {
                    continue;
                }
                if (line.startsWith("id: ")) {
                    id = Long.parseLong(line.substring(4));
                } else if (line.startsWith("event: ")) {
                    name = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    data.append(line.substring(6));
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every event up to the end of the stream. */
    List<Event> rest() {
        List<Event> out = new ArrayList<>();
        for (Event e = next(); e != null; e = next()) {
            out.add(e);
        }
        return out;
    }

    @Override
    public void close() {
        try {
            response.body().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
