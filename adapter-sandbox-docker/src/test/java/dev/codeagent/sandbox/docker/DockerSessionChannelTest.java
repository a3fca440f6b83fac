package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DockerSessionChannelTest {

    private static String readAll(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void aFramesBytesAreCopiedBeforeTheClientReusesItsBuffer() throws IOException {
        AtomicInteger removed = new AtomicInteger();
        DockerSessionChannel c = new DockerSessionChannel(removed::incrementAndGet);
        byte[] buffer = "{\"type\":\"ready\"}\n".getBytes(StandardCharsets.UTF_8);
        c.onNext(new Frame(StreamType.STDOUT, buffer));
        // docker-java may fill the same array with the next frame once onNext returned
        java.util.Arrays.fill(buffer, (byte) 'x');
        c.onNext(new Frame(StreamType.STDERR, "kernel says hi".getBytes(StandardCharsets.UTF_8)));
        c.onComplete();
        assertThat(readAll(c.frames())).isEqualTo("{\"type\":\"ready\"}\n");
        assertThat(c.diagnostics()).isEqualTo("kernel says hi");
        assertThat(removed).hasValue(0);
    }

    @Test
    void commandsReachTheContainersStdinUntilTheChannelIsDestroyedWhichRemovesTheContainerOnce() throws IOException {
        AtomicInteger removed = new AtomicInteger();
        DockerSessionChannel c = new DockerSessionChannel(removed::incrementAndGet);
        c.commands().write("{\"op\":\"hello\"}\n".getBytes(StandardCharsets.UTF_8));
        c.ended("the session used its CPU budget of 2s");
        c.destroy();
        assertThat(removed).hasValue(1);
        assertThat(readAll(c.containerStdin())).isEqualTo("{\"op\":\"hello\"}\n");
        assertThat(c.frames().read()).isEqualTo(-1);
        assertThat(c.diagnostics()).startsWith("the session used its CPU budget of 2s");
        assertThatThrownBy(() -> c.commands().write(1)).isInstanceOf(IOException.class).hasMessageContaining("gone");
    }
}
