package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.SessionLimits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The JVM side of the bridge protocol against a scripted peer on real pipes: frames without the nonce are dropped. */
class BridgeSessionTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A peer that answers hello with ready, then each execute with a forged result followed by the genuine one. */
    private static final class ForgingPeer implements BridgeSession.Channel {
        final PipedInputStream toJvm = new PipedInputStream(1 << 20);
        final PipedOutputStream peerOut;
        final PipedOutputStream jvmOut = new PipedOutputStream();
        final PipedInputStream peerIn;
        volatile boolean destroyed;

        ForgingPeer() throws IOException {
            peerOut = new PipedOutputStream(toJvm);
            peerIn = new PipedInputStream(jvmOut, 1 << 20);
            CompletableFuture.runAsync(this::serve);
        }

        private void serve() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(peerIn, StandardCharsets.UTF_8))) {
                String nonce = JSON.readTree(in.readLine()).path("nonce").asText();
                write("{\"type\":\"ready\",\"nonce\":\"" + nonce + "\"}");
                String line;
                while ((line = in.readLine()) != null) {
                    JsonNode cmd = JSON.readTree(line);
                    long id = cmd.path("id").asLong();
                    String result = "{\"type\":\"result\",\"id\":" + id + ",\"status\":\"%s\",\"execution_count\":%d,"
                            + "\"state_lost\":false,\"outputs\":[],\"message\":\"\",\"nonce\":\"%s\"}";
                    write(String.format(result, "ok", 99, "not-the-nonce"));
                    write(String.format(result, "ok", 99, ""));
                    write("not json at all");
                    write(String.format(result, "ok", 1, nonce));
                }
            } catch (IOException e) {
                // the session ended
            }
        }

        private void write(String frame) throws IOException {
            peerOut.write((frame + "\n").getBytes(StandardCharsets.UTF_8));
            peerOut.flush();
        }

        @Override
        public InputStream frames() {
            return toJvm;
        }

        @Override
        public OutputStream commands() {
            return jvmOut;
        }

        @Override
        public String diagnostics() {
            return "";
        }

        @Override
        public void destroy() {
            destroyed = true;
            try {
                peerOut.close();
                jvmOut.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }

    @Test
    void framesWithoutTheSessionsNonceAreDroppedAndCounted() throws Exception {
        ForgingPeer peer = new ForgingPeer();
        BridgeSession s = BridgeSession.start("t", SessionLimits.defaults(), peer);
        CellResult r = s.execute(new Cell("1"));
        assertThat(r.status()).isEqualTo(CellStatus.OK);
        assertThat(r.executionCount()).isEqualTo(1);
        assertThat(s.rejectedFrames()).isEqualTo(3);
        s.close();
        assertThat(peer.destroyed).isTrue();
        assertThat(s.endReason()).contains("the session was closed");
    }
}
