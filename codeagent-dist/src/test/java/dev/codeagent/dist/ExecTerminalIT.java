package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code codeagent exec} on a real terminal (a pty from Python's {@code pty} module), through the background process
 * and without it: a ticking program's lines arrive as it writes them, not at its end; Ctrl-C stops it with what came so
 * far and one line; {@code input()} reads what is typed; and piped stdin reaches the program as with
 * {@code python3 file.py}.
 */
@Tag("slow")
class ExecTerminalIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Runs argv[1] (a JSON list) on a new pty, in the directory and environment it was given; writes each action's
     * text to the terminal once its trigger has appeared in the output; prints {events: [[seconds, text]…], status}.
     */
    private static final String DRIVER = """
            import json, os, pty, select, signal, sys, time
            argv = json.loads(sys.argv[1]); actions = json.loads(sys.argv[2])
            pid, fd = pty.fork()
            if pid == 0:
                # as a login terminal has it: a build started in the background may have left SIGINT ignored
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.execvp(argv[0], argv)
            t0 = time.time(); events = []; seen = b""
            while True:
                r, _, _ = select.select([fd], [], [], 0.05)
                if r:
                    try:
                        d = os.read(fd, 4096)
                    except OSError:
                        break
                    if not d:
                        break
                    events.append([time.time() - t0, d.decode("utf-8", "replace")]); seen += d
                while actions and actions[0][0].encode() in seen:
                    os.write(fd, actions.pop(0)[1].encode())
                if time.time() - t0 > 120:
                    os.kill(pid, 9); break
            _, status = os.waitpid(pid, 0)
            print(json.dumps({"events": events, "status": os.waitstatus_to_exitcode(status), "seconds": time.time() - t0}))
            """;

    private static Path dir;
    private static Path runtime;

    @BeforeAll
    static void setUp() throws IOException {
        dir = Files.createTempDirectory("codeagent-terminal");
        runtime = Files.createDirectory(dir.resolve("runtime"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(dir.resolve("driver.py"), DRIVER);
    }

    @AfterAll
    static void stopBackgroundProcess() throws IOException {
        Path run = runtime.resolve("codeagent");
        if (Files.isDirectory(run)) {
            try (var files = Files.list(run)) {
                for (Path info : files.filter(f -> f.getFileName().toString().endsWith(".sock.info")).toList()) {
                    String pid = Files.readString(info).trim().split("\\s+")[0];
                    ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroy);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"daemon", "no-daemon"})
    void aTickingProgramsLinesArriveAsItWritesThem(String way) throws Exception {
        Path tick = Files.writeString(dir.resolve("tick.py"),
                "import time\nfor i in range(5):\n    print('tick', i)\n    time.sleep(0.7)\nprint('done')\n");
        Terminal t = onATerminal(way, List.of(), "exec", tick.toString());
        assertThat(t.status).as(t.toString()).isZero();
        double first = t.when("tick 0");
        double last = t.when("done");
        assertThat(last - first).as("tick 0 came %.1f s before the end: %s", last - first, t).isGreaterThan(2.0);
        assertThat(t.text().replace("\r", "")).contains("tick 0\ntick 1\ntick 2\ntick 3\ntick 4\ndone\n");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"daemon", "no-daemon"})
    void ctrlCStopsTheProgramWithWhatCameAndOneLine(String way) throws Exception {
        Path slow = Files.writeString(dir.resolve("slow.py"),
                "import time\nprint('started')\ntime.sleep(50)\nprint('never')\n");
        Terminal t = onATerminal(way, List.of(List.of("started", "\u0003")), "exec", slow.toString());
        assertThat(t.status).as(t.toString()).isEqualTo(130);
        assertThat(t.text()).contains("started").doesNotContain("never").containsPattern("codeagent: interrupted after \\d+\\.\\d s");
        assertThat(t.seconds - t.when("started")).as(t.toString()).isLessThan(20);
    }

    /** Exit 130 is Ctrl-C's status too: a program that chooses it, untouched, is shown as it ended, not as stopped. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"daemon", "no-daemon"})
    void aProgramsOwnExit130IsNotAnInterrupt(String way) throws Exception {
        Path own = Files.writeString(dir.resolve("own130.py"), "import sys\nprint('leaving')\nsys.exit(130)\n");
        Terminal t = onATerminal(way, List.of(), "exec", own.toString());
        assertThat(t.status).as(t.toString()).isEqualTo(130);
        assertThat(t.text()).contains("leaving").doesNotContain("interrupted");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"daemon", "no-daemon"})
    void inputReadsWhatIsTyped(String way) throws Exception {
        Path ask = Files.writeString(dir.resolve("ask.py"), "name = input('name? ')\nprint('hello', name)\n");
        Terminal t = onATerminal(way, List.of(List.of("name? ", "bob\n")), "exec", ask.toString());
        assertThat(t.status).as(t.toString()).isZero();
        assertThat(t.text()).contains("hello bob");
    }

    /** {@code echo bob | codeagent exec ask.py}, as {@code echo bob | python3 ask.py}; --stdin none turns it off. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"daemon", "no-daemon"})
    void pipedInputReachesTheProgram(String way) throws Exception {
        Path ask = Files.writeString(dir.resolve("ask.py"), "name = input('name? ')\nprint('hello', name)\n");
        ProcessBuilder pb = launcher(way, "exec", ask.toString());
        Path out = dir.resolve(way + "-piped.out");
        pb.redirectOutput(out.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        p.getOutputStream().write("bob\n".getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(out)).isEqualTo("name? hello bob\n");
        assertThat(p.exitValue()).isZero();
    }

    private ProcessBuilder launcher(String way, String... args) {
        Path root = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();
        List<String> command = new ArrayList<>(List.of(root.resolve("codeagent").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        Map<String, String> e = pb.environment();
        e.put("CODEAGENT_SKIP_BUILD", "1");
        e.put("CODEAGENT_CONFIG", "/dev/null");
        e.put("CODEAGENT_STORE", "memory");
        e.put("HOME", dir.toString());
        e.put("XDG_RUNTIME_DIR", runtime.toString());
        e.put("CODEAGENT_NO_DAEMON", way.equals("daemon") ? "0" : "1");
        e.put("TERM", "dumb");
        return pb;
    }

    private Terminal onATerminal(String way, List<List<String>> actions, String... args) throws Exception {
        ProcessBuilder inner = launcher(way, args);
        List<String> command = List.of("/usr/bin/python3", dir.resolve("driver.py").toString(),
                JSON.writeValueAsString(inner.command()), JSON.writeValueAsString(actions));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().clear();
        pb.environment().putAll(inner.environment());
        Path out = dir.resolve(way + "-" + System.nanoTime() + ".json");
        Path err = dir.resolve(way + "-" + System.nanoTime() + ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        if (!p.waitFor(150, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the pty driver did not finish: " + Files.readString(err));
        }
        JsonNode r = JSON.readTree(Files.readString(out));
        List<double[]> times = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (JsonNode e : r.get("events")) {
            times.add(new double[] {e.get(0).asDouble()});
            texts.add(e.get(1).asText());
        }
        return new Terminal(r.get("status").asInt(), r.get("seconds").asDouble(), times, texts);
    }

    private record Terminal(int status, double seconds, List<double[]> times, List<String> texts) {
        String text() {
            return String.join("", texts);
        }

        /** When {@code s} had fully appeared on the terminal. */
        double when(String s) {
            StringBuilder so = new StringBuilder();
            for (int i = 0; i < texts.size(); i++) {
                so.append(texts.get(i));
                if (so.toString().contains(s)) {
                    return times.get(i)[0];
                }
            }
            throw new AssertionError("'" + s + "' never appeared: " + this);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("status " + status + " after " + seconds + " s:\n");
            for (int i = 0; i < texts.size(); i++) {
                b.append(String.format(java.util.Locale.ROOT, "%6.2f %s%n", times.get(i)[0], texts.get(i).replace("\r", "\\r").replace("\n", "\\n")));
            }
            return b.toString();
        }
    }
}
