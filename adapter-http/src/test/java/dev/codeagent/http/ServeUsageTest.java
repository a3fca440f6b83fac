package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code codeagent serve} answers a mistyped command line like the other commands: one plain line, no log timestamp. */
class ServeUsageTest {

    @TempDir
    Path dir;

    private record Result(int status, String out, String err) {
    }

    private Result serve(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = HttpServerMain.run(args, Map.of("CODEAGENT_CONFIG", dir.resolve("none.yaml").toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aMisspeltOptionIsOneLineWithDidYouMean() {
        Result r = serve("serve", "--prot", "8080");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("codeagent: unknown option '--prot'; did you mean --port? (see 'codeagent serve --help')\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void helpGoesToStdoutAsUsageNotAsALogLine() {
        Result r = serve("serve", "--help");
        assertThat(r.status()).isZero();
        assertThat(r.out()).startsWith("Usage: codeagent serve").contains("--port N").doesNotContain("INFO");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void aConfigErrorIsOnePlainLine() throws Exception {
        Path config = Files.writeString(dir.resolve("c.yaml"), "limits: {timeout: soon}\n");
        Result r = serve("serve", "--config", config.toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).startsWith("codeagent: ").contains("limits.timeout").doesNotContain("ERROR", "Exception");
        assertThat(r.err().strip().lines().count()).isEqualTo(1);
    }

    /** Where work runs is {@code sandbox.kind: queue} now; the old keys must not be ignored, nor be a bare "unknown key". */
    @Test
    void theOldQueueKeysAreRefusedNamingTheirReplacement() throws Exception {
        Path config = Files.writeString(dir.resolve("old.yaml"), "store: {kind: postgres}\nhttp:\n  runsOn: queue\n");
        for (Result r : java.util.List.of(serve("serve", "--config", config.toString()),
                serve("serve", "--set", "http.executionsOn=queue"))) {
            assertThat(r.status()).isEqualTo(2);
            assertThat(r.err()).matches("codeagent: http\\.(runsOn|executionsOn) was replaced by sandbox\\.kind: queue .*\n")
                    .doesNotContain("Exception");
        }
    }

    /** An old variable would otherwise be ignored, and a door meant as a front door only would solve runs itself. */
    @Test
    void theOldQueueVariableIsRefusedToo() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "{}\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = HttpServerMain.run(new String[] {"serve"}, Map.of("CODEAGENT_CONFIG", empty.toString(),
                "CODEAGENT_HTTP_RUNS_ON", "queue"), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("codeagent: http.runsOn (environment variable "
                + "CODEAGENT_HTTP_RUNS_ON) was replaced by sandbox.kind: queue").hasLineCount(1);
    }

    /** A door on the queue over a store only it uses would accept work no worker can see: refused before it listens. */
    @Test
    void theQueueOverAStoreWithoutOneIsOneLineNamingStoreKind() throws Exception {
        Path config = Files.writeString(dir.resolve("q.yaml"), "sandbox: {kind: queue}\nstore: {kind: memory}\n");
        Result r = serve("serve", "--config", config.toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("codeagent: sandbox.kind: queue runs programs on workers, which needs a store they share;"
                + " store.kind 'memory' keeps no queue for other processes; set store.kind: postgres\n");
    }
}
