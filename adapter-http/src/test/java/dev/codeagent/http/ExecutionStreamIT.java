package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/executions} with {@code Accept: text/event-stream}, read by the JDK's client line by line as the
 * lines arrive: the time each event came proves the output is sent while the program runs, not at its end.
 */
@Tag("slow")
class ExecutionStreamIT {

    /** The server; {@link ExecutionStreamDockerIT} starts one over the docker tier instead. */
    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** One server-sent event and when its last line arrived. */
    record Event(String name, JsonNode data, long atNanos) {
    }

    private static HttpResponse<Stream<String>> post(String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.base + "/v1/executions"))
                .header("Authorization", "Bearer " + TestServer.ADMIN_KEY)
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofLines());
    }

    private static List<Event> events(HttpResponse<Stream<String>> response) throws Exception {
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        List<Event> events = new ArrayList<>();
        String name = null;
        Iterator<String> lines = response.body().iterator();
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("event: ")) {
                name = line.substring("event: ".length());
            } else if (line.startsWith("data: ")) {
                events.add(new Event(name, Views.MAPPER.readTree(line.substring("data: ".length())), System.nanoTime()));
            }
        }
        return events;
    }

    private static String streamed(List<Event> events, String stream) {
        StringBuilder b = new StringBuilder();
        events.stream().filter(e -> e.name().equals("output") && e.data().get("stream").asText().equals(stream))
                .forEach(e -> b.append(e.data().get("text").asText()));
        return b.toString();
    }

    @Test
    void outputComesAsItIsWrittenThenTheResult() throws Exception {
        List<Event> events = events(post("{\"language\":\"python\",\"stdin\":\"fed\\n\",\"code\":"
                + "\"import sys, time\\nprint('first', flush=True)\\ntime.sleep(1.5)\\n"
                + "print('second', input(), file=sys.stderr, flush=True)\\nprint(repr(sys.stdin.read()))\\n\"}"));
        Event last = events.get(events.size() - 1);
        assertThat(last.name()).as(events.toString()).isEqualTo("result");
        JsonNode result = last.data();
        assertThat(result.get("outcome").asText()).as(result.toString()).isEqualTo("OK");
        assertThat(result.get("stdout").asText()).isEqualTo("first\n''\n");
        assertThat(streamed(events, "stdout")).isEqualTo(result.get("stdout").asText());
        assertThat(streamed(events, "stderr")).as("nothing of the supervisor's").isEqualTo("second fed\n");
        // chunks are as the stream delivered them: the line may come in pieces
        Event first = null;
        StringBuilder sofar = new StringBuilder();
        for (Event e : events) {
            if (e.name().equals("output") && e.data().get("stream").asText().equals("stdout")) {
                sofar.append(e.data().get("text").asText());
                if (sofar.toString().equals("first\n")) {
                    first = e;
                    break;
                }
            }
        }
        assertThat(first).as("an event completing the first line, before the rest: " + events).isNotNull();
        assertThat(Duration.ofNanos(last.atNanos() - first.atNanos())).as("the first line came before the 1.5 s sleep")
                .isGreaterThan(Duration.ofMillis(1200));
    }

    @Test
    void aForgedSupervisorReportIsOutput() throws Exception {
        String forged = "\\\\x00codeagent:00000000000000000000000000000000:{\\\"exit\\\":0}\\\\n";
        List<Event> events = events(post("{\"language\":\"python\",\"code\":\"import sys\\nsys.stdout.write('" + forged
                + "')\\nsys.stdout.flush()\\nprint('still here')\\nsys.exit(4)\\n\"}"));
        JsonNode result = events.get(events.size() - 1).data();
        assertThat(result.get("exitCode").asInt()).as(result.toString()).isEqualTo(4);
        assertThat(streamed(events, "stdout")).contains("codeagent:0000").endsWith("still here\n");
    }

    @Test
    void aCompiledLanguageSendsItsCompileStageFirst() throws Exception {
        List<Event> events = events(post("{\"language\":\"c\",\"code\":\"#include <stdio.h>\\n"
                + "int main(void) { puts(\\\"built\\\"); return 0; }\"}"));
        assertThat(events).extracting(Event::name).as(events.toString()).startsWith("compile").endsWith("result");
        assertThat(events.get(0).data().get("built").asBoolean()).isTrue();
        assertThat(streamed(events, "stdout")).isEqualTo("built\n");
    }

    @Test
    void aRefusalBeforeTheStreamIsAnOrdinaryProblem() throws Exception {
        HttpResponse<Stream<String>> response = post("{\"language\":\"cobol\",\"code\":\"x\"}");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        response.body().close();
    }
}
