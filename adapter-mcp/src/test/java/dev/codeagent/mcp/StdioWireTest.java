package dev.codeagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StdioWireTest {

    private final ByteArrayOutputStream answers = new ByteArrayOutputStream();
    private final Calls calls = new Calls(2);
    private final AtomicInteger ends = new AtomicInteger();

    /** What the SDK would read from {@code input}, line by line. */
    private List<String> passed(byte[] input, int maxLine) throws Exception {
        StdioWire wire = new StdioWire(new ByteArrayInputStream(input), answers, calls, maxLine, ends::incrementAndGet);
        String all = new String(wire.readAllBytes(), StandardCharsets.UTF_8);
        return all.isEmpty() ? List.of() : List.of(all.split("\n"));
    }

    private List<JsonNode> errors() throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String line : answers.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
                out.add(new ObjectMapper().readTree(line));
            }
        }
        return out;
    }

    @Test
    void wellFormedMessagesPassUnchangedAndTheEndIsToldOnce() throws Exception {
        String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}";
        String note = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
        assertThat(passed((init + "\n" + note + "\n").getBytes(StandardCharsets.UTF_8), 1000)).containsExactly(init, note);
        assertThat(answers.size()).isZero();
        assertThat(ends.get()).isEqualTo(1);
    }

    @Test
    void eachBadLineIsAnsweredAndTheNextOneStillPasses() throws Exception {
        String ok = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}";
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes("not json\n".getBytes(StandardCharsets.UTF_8));
        in.writeBytes(new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', '}', '\n'});
        in.writeBytes("[1,2]\n{\"jsonrpc\":\"1.0\",\"id\":4,\"method\":\"x\"}\n{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"x\"}\n"
                .getBytes(StandardCharsets.UTF_8));
        in.writeBytes(("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"code\":\"" + "x".repeat(500) + "\"}}\n")
                .getBytes(StandardCharsets.UTF_8));
        in.writeBytes(("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":5}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":\"x\"}}\n")
                .getBytes(StandardCharsets.UTF_8));
        in.writeBytes((ok + "\n").getBytes(StandardCharsets.UTF_8));

        assertThat(passed(in.toByteArray(), 300)).containsExactly(ok);

        List<JsonNode> errors = errors();
        assertThat(errors).extracting(e -> e.get("error").get("code").asInt())
                .containsExactly(-32700, -32700, -32600, -32600, -32600, -32600, -32602, -32602);
        assertThat(errors.get(7).get("id").asInt()).isEqualTo(7);
        assertThat(errors.get(0).get("error").get("message").asText()).startsWith("parse error: not JSON");
        assertThat(errors.get(1).get("error").get("message").asText()).contains("not UTF-8");
        assertThat(errors.get(3).get("id").asInt()).as("the sender's id, where it could be read").isEqualTo(4);
        assertThat(errors.get(5).get("error").get("message").asText()).contains("at most 300 bytes");
    }

    @Test
    void aToolCallCarriesItsIdAndACancellationInterruptsItsThread() throws Exception {
        String call = "{\"jsonrpc\":\"2.0\",\"id\":\"r-7\",\"method\":\"tools/call\",\"params\":{\"name\":\"execute_code\",\"arguments\":{}}}";
        List<String> passed = passed((call + "\n").getBytes(StandardCharsets.UTF_8), 1000);
        assertThat(new ObjectMapper().readTree(passed.get(0)).at("/params/_meta").get(Calls.REQUEST_ID).asText()).isEqualTo("r-7");

        CountDownLatch running = new CountDownLatch(1);
        List<String> seen = new ArrayList<>();
        Thread t = new Thread(() -> {
            try {
                calls.run("s", "r-7", c -> {
                    running.countDown();
                    try {
                        Thread.sleep(30_000);
                        seen.add("slept");
                    } catch (InterruptedException e) {
                        seen.add(c.cancelled());
                    }
                    return null;
                });
            } catch (InterruptedException e) {
                seen.add("never admitted");
            }
        });
        t.start();
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        String cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"r-7\",\"reason\":\"enough\"}}";
        assertThat(passed((cancel + "\n").getBytes(StandardCharsets.UTF_8), 1000)).as("the SDK never sees it").isEmpty();
        t.join(10_000);
        assertThat(seen).containsExactly("cancelled by the client: enough");
        assertThat(calls.running()).isZero();
    }
}
