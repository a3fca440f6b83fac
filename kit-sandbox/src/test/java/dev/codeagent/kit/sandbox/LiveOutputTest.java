package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.LiveExecution;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LiveOutputTest {

    @Test
    void passesOnNoMoreOfEachStreamThanTheRunsOutputLimit() {
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        LiveOutput live = new LiveOutput((stream, text) -> (stream == LiveExecution.Listener.STDOUT ? out : err).append(text),
                4096);
        byte[] chunk = new byte[1000];
        Arrays.fill(chunk, (byte) 'x');
        for (int i = 0; i < 10; i++) {
            live.pass(LiveExecution.Listener.STDOUT, chunk, 0, chunk.length);
            live.pass(LiveExecution.Listener.STDERR, chunk, 0, 500);
        }
        live.end(LiveExecution.Listener.STDERR, chunk, 0, chunk.length);
        live.end(LiveExecution.Listener.STDOUT, new byte[0], 0, 0);
        assertThat(out.length()).isEqualTo(4096);
        assertThat(err.length()).isEqualTo(4096);
    }

    @Test
    void aCharacterCutByTheLimitIsNotPassedHalf() {
        StringBuilder out = new StringBuilder();
        LiveOutput live = new LiveOutput((stream, text) -> out.append(text), 5);
        byte[] text = "abcdé".getBytes(StandardCharsets.UTF_8);
        live.pass(LiveExecution.Listener.STDOUT, text, 0, text.length);
        assertThat(out.toString()).isEqualTo("abcd");
        live.end(LiveExecution.Listener.STDOUT, new byte[0], 0, 0);
        assertThat(out.toString()).isEqualTo("abcd\uFFFD");
    }
}
