package dev.codeagent.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One call on a pooled thread: nothing of it may outlive it on that thread. */
class CliCallTest {

    @Test
    void theClientLeavingAfterTheExitStatusDoesNotInterruptTheThreadsNextCall() throws Exception {
        PipedOutputStream client = new PipedOutputStream();
        PipedInputStream fromClient = new PipedInputStream(client, 1 << 16);
        ByteArrayOutputStream toClient = new ByteArrayOutputStream();
        CliProtocol.write(client, CliProtocol.HELLO, CliProtocol.VERSION + " b1");
        CliProtocol.write(client, CliProtocol.CWD, Path.of("/").toString());
        CliProtocol.write(client, CliProtocol.ARG, "version");
        CliProtocol.write(client, CliProtocol.FLAGS, new byte[] {0});
        CliProtocol.write(client, CliProtocol.GO, new byte[0]);

        new CliCall(fromClient, toClient, "b1", config -> {
            throw new AssertionError("version needs no agent");
        }).serve();
        assertThat(toClient.toString(java.nio.charset.StandardCharsets.ISO_8859_1)).contains("codeagent ");

        // as a client does once it has the status: it goes away; the call's reader sees the end
        client.close();
        for (Thread t : readers()) {
            t.join(10_000);
        }
        // a pooled thread carrying this interrupt into the next call had that call's channel closed under it
        assertThat(Thread.interrupted()).as("interrupt left on the call's thread").isFalse();
    }

    private static List<Thread> readers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("codeagent-call-reader")).toList();
    }
}
