package dev.codeagent.sandbox.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import dev.codeagent.kit.sandbox.SupervisorJob;
import dev.codeagent.kit.sandbox.SupervisorWireContractTest;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The supervisor wire contract, held by the docker tier's supervisor ({@link Bootstrap#COMMAND}) where it runs: the
 * init of a container of the sandbox image, made by the engine in the tier's own shape ({@link DockerContainers.Spec},
 * on the default runtime), attached to as the tier attaches. The tier carries the program's stdin in the job and
 * acknowledges the job on stdout before the program starts; the report comes on stdout behind the nonce's marker.
 * Skipped without an engine and image, failed under {@code CI=true} ({@link DockerTestSupport#assumeDocker}).
 */
@Tag("docker")
class DockerSupervisorWireIT extends SupervisorWireContractTest {

    private static final String NONCE = "0123456789abcdef0123456789abcdef";
    private static final String OWNER = "supervisor-wire-" + Bootstrap.newNonce().substring(0, 8);
    private static DockerEngine engine;

    @BeforeAll
    static void engine() {
        DockerTestSupport.assumeDocker();
        engine = DockerTestSupport.engine();
    }

    @AfterAll
    static void close() {
        if (engine != null) {
            engine.close();
        }
    }

    private static DockerContainers.Spec spec() {
        return DockerContainers.Spec.of(DockerTestSupport.IMAGE, ResourceLimits.defaults(), 1.0, 64L << 20,
                Map.of(DockerContainers.LABEL_SANDBOX, "true", DockerContainers.LABEL_OWNER, OWNER,
                        DockerContainers.LABEL_PROCESS, StrayContainers.processTag()));
    }

    /** The image's one Python (the supervisor's own is the same). */
    @Override
    protected String python() {
        return "/usr/bin/python3";
    }

    /** The job with this tier's keys: the program's stdin, the nonce and a backstop; nothing follows it. */
    @Override
    protected byte[] wire(SupervisorJob job, String stdin) {
        return job.with("stdin", stdin).with("nonce", NONCE).with("backstop", 60).encode();
    }

    @Override
    protected Supervised supervise(byte[] wire) throws Exception {
        String id = engine.create(spec());
        return run(id, wire);
    }

    /** The supervisor as pid 2 of its container: a Python init starts it and passes its exit status on. */
    @Override
    protected Supervised superviseNotAsInit(byte[] wire) throws Exception {
        List<String> command = new ArrayList<>(List.of("python3", "-I", "-S", "-c",
                "import subprocess, sys\nsys.exit(subprocess.call(sys.argv[1:]))"));
        command.addAll(Bootstrap.COMMAND);
        String id = engine.createSession(spec(), command);
        return run(id, wire);
    }

    private Supervised run(String id, byte[] wire) throws Exception {
        try {
            engine.start(id);
            Frames frames = engine.attach(id, wire, new Frames());
            // the engine's attach never closes the container's stdin: a supervisor given a job cut short waits for the
            // rest (as it would for a host that stopped sending) and ends with its container, here
            if (!frames.awaitCompletion(cutShort(wire) ? 5 : 60, TimeUnit.SECONDS)) {
                engine.remove(id);
                frames.awaitCompletion(10, TimeUnit.SECONDS);
            }
            Long status = exitStatus(id);
            return parse(frames, status);
        } finally {
            engine.remove(id);
        }
    }

    /** Whether {@code wire} ends before the byte count its header announces. */
    private static boolean cutShort(byte[] wire) {
        String text = new String(wire, StandardCharsets.ISO_8859_1);
        int nl = text.indexOf('\n');
        return nl > 0 && text.substring(0, nl).matches("\\d{1,9}") && wire.length < nl + 1 + Integer.parseInt(text.substring(0, nl));
    }

    private Long exitStatus(String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                var state = engine.inspect(id).getState();
                if (!Boolean.TRUE.equals(state.getRunning())) {
                    return state.getExitCodeLong();
                }
            } catch (com.github.dockerjava.api.exception.NotFoundException gone) {
                return null;
            }
            Thread.sleep(50);
        }
        return null;
    }

    private static Supervised parse(Frames frames, Long status) throws java.io.IOException {
        String stdout = frames.text(frames.out);
        String stderr = frames.text(frames.err);
        String ack = new String(Bootstrap.ACK, StandardCharsets.US_ASCII);
        if (stdout.startsWith(ack)) {
            stdout = stdout.substring(ack.length());
        }
        String marker = new String(Bootstrap.reportMarker(NONCE), StandardCharsets.US_ASCII);
        Report report = reportAfter(marker, stdout);
        stdout = before(marker, stdout);
        // the bare marker closes stderr
        stderr = before(marker + "\n", stderr);
        String refusal = status != null && status == Bootstrap.FAILED && stderr.startsWith("codeagent-bootstrap: ")
                ? stderr.strip() : null;
        return new Supervised(stdout, stderr, report, refusal);
    }

    /** The attach stream's frames, each pipe's bytes in order. */
    private static final class Frames extends ResultCallback.Adapter<Frame> {

        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();

        @Override
        public synchronized void onNext(Frame frame) {
            (frame.getStreamType() == StreamType.STDERR ? err : out).writeBytes(frame.getPayload());
        }

        synchronized String text(ByteArrayOutputStream s) {
            return s.toString(StandardCharsets.UTF_8);
        }
    }
}
