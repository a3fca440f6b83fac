package dev.codeagent.kit.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The supervisor wire ({@link SupervisorJob}) as every in-sandbox supervisor must speak it: one job in, one report
 * out. A subclass runs one supervisor (the process tier's compiled and Python builds, the docker tier's pid 1) as the
 * init of a fresh sandbox of its tier and takes the tier's framing off what comes back (where the report travels,
 * the docker ack, how a refusal looks); the tests here hold them all to the same behaviour: the files written, argv,
 * the environment, stdin, rlimits, exit status or signal, output of any size, nothing left running, and a frame that
 * is not a job refused with the supervisor's own message before anything starts. Run by the process tier's
 * {@code SupervisorWireTest} (its compiled and its Python supervisor, on the host as pid 1 of a pid namespace) and the
 * docker tier's {@code DockerSupervisorWireIT} (its supervisor in the sandbox image, through the engine).
 */
public abstract class SupervisorWireContractTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * How the program ended, as the supervisor reported it behind its marker.
     *
     * @param exit the exit status, or null when a signal ended the program
     * @param signal the signal, or null
     */
    public record Report(Integer exit, Integer signal) {
    }

    /**
     * What came out of one supervisor, its tier's framing taken off.
     *
     * @param stdout what the program wrote to stdout
     * @param stderr what the program wrote to stderr (the supervisor's own refusal included)
     * @param report the report, or null when the supervisor wrote none
     * @param refusal the supervisor's own message when it refused the job (its tier's exit status and prefix), or null
     */
    public record Supervised(String stdout, String stderr, Report report, String refusal) {
    }

    /**
     * The bytes that give this tier's supervisor {@code job} with {@code stdin} for the program: the job with the
     * tier's own keys added (its nonce; its stdin, where the tier carries it in the job), and after it whatever the
     * tier streams on the same pipe.
     */
    protected abstract byte[] wire(SupervisorJob job, String stdin);

    /** Runs the supervisor as the init of a fresh sandbox of its tier, gives it {@code wire} and then end of input. */
    protected abstract Supervised supervise(byte[] wire) throws Exception;

    /** Runs the supervisor as a process that is not its pid namespace's init, and gives it {@code wire}. */
    protected abstract Supervised superviseNotAsInit(byte[] wire) throws Exception;

    /** An absolute path of a Python 3 where the supervisor runs, for argv[0]. */
    protected abstract String python();

    /**
     * What follows {@code marker} in a supervisor's output up to the line's end, read as a report (a JSON object with
     * {@code exit} and {@code signal}, each a number or null); null when the marker is not there.
     */
    protected static Report reportAfter(String marker, String output) throws java.io.IOException {
        int m = output.indexOf(marker);
        if (m < 0) {
            return null;
        }
        int end = output.indexOf('\n', m);
        com.fasterxml.jackson.databind.JsonNode n = JSON.readTree(output.substring(m + marker.length(), end < 0 ? output.length() : end));
        return new Report(n.path("exit").isNumber() ? n.path("exit").asInt() : null,
                n.path("signal").isNumber() ? n.path("signal").asInt() : null);
    }

    /** {@code output} up to {@code marker}, or all of it. */
    protected static String before(String marker, String output) {
        int m = output.indexOf(marker);
        return m < 0 ? output : output.substring(0, m);
    }

    /** The environment most tests give the program; no locale coercion adds to it (PEP 538). */
    protected static Map<String, String> env() {
        return Map.of("PATH", "/usr/bin:/bin", "LANG", "C.UTF-8");
    }

    private SupervisorJob program(String source, String... args) {
        return job(Map.of("main.py", source), args);
    }

    private SupervisorJob job(Map<String, String> files, String... args) {
        List<String> argv = new java.util.ArrayList<>(List.of(python(), "main.py"));
        argv.addAll(List.of(args));
        return new SupervisorJob(files, argv, env());
    }

    private Supervised run(SupervisorJob job, String stdin) throws Exception {
        return supervise(wire(job, stdin));
    }

    private static String why(Supervised s) {
        return "stdout: " + s.stdout() + "\nstderr: " + s.stderr() + "\nreport: " + s.report() + "\nrefusal: " + s.refusal();
    }

    private static void assertEndedWith(Supervised s, Integer exit, Integer signal) {
        assertThat(s.refusal()).as(why(s)).isNull();
        assertThat(s.report()).as(why(s)).isEqualTo(new Report(exit, signal));
    }

    @Test
    void theFilesOfTheJobAreWrittenByteForByteWhereTheProgramRuns() throws Exception {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("main.py", "from pkg.m import v\n"
                + "print(v)\n"
                + "print(repr(open('pkg/data.txt', encoding='utf-8', errors='surrogateescape').read()))\n"
                + "print(open('blob.bin', 'rb').read().hex())\n");
        files.put("pkg/__init__.py", "");
        files.put("pkg/m.py", "v = 'ünï'\n");
        // what JSON escapes and what it does not: a NUL, controls, quotes, a surrogate pair, a slash
        files.put("pkg/data.txt", "a\u0000b\t\"q\"\\ \uD83D\uDE00 \u20ac/");
        byte[] blob = {0, (byte) 0xff, (byte) 0x80, '\n', '\r', (byte) 0xe9};
        SupervisorJob job = new SupervisorJob(files, Map.of("blob.bin", Base64.getEncoder().encodeToString(blob)),
                List.of(python(), "main.py"), env());

        Supervised s = run(job, "");

        assertEndedWith(s, 0, null);
        assertThat(s.stdout()).isEqualTo("ünï\n'a\\x00b\\t\"q\"\\\\ 😀 €/'\n00ff800a0de9\n");
    }

    @Test
    void argvReachesTheProgramAsGiven() throws Exception {
        Supervised s = run(program("import sys, json\nprint(json.dumps(sys.argv[1:]))\n", "a b", "", "ü", "--x=1"), "");

        assertEndedWith(s, 0, null);
        assertThat(s.stdout()).isEqualTo("[\"a b\", \"\", \"\\u00fc\", \"--x=1\"]\n");
    }

    @Test
    void theEnvironmentIsTheJobsAndNothingElse() throws Exception {
        Map<String, String> env = new TreeMap<>(env());
        env.put("X", "y=z ü");
        SupervisorJob job = new SupervisorJob(Map.of("main.py", "import os, json\nprint(json.dumps(dict(os.environ)))\n"),
                List.of(python(), "main.py"), env);

        Supervised s = run(job, "");

        assertEndedWith(s, 0, null);
        assertThat(JSON.readValue(s.stdout(), TreeMap.class)).isEqualTo(env);
    }

    @Test
    void theProgramReadsItsStdin() throws Exception {
        Supervised s = run(program("import sys\nsys.stdout.write(sys.stdin.read())\n"), "line 1\nline 2\né");

        assertEndedWith(s, 0, null);
        assertThat(s.stdout()).isEqualTo("line 1\nline 2\né");
    }

    @Test
    void anEmptyStdinEndsAtOnce() throws Exception {
        Supervised s = run(program("import sys\nprint(repr(sys.stdin.read()))\n"), "");

        assertEndedWith(s, 0, null);
        assertThat(s.stdout()).isEqualTo("''\n");
    }

    /** 137 is an exit status, not "killed by 9": the report says which it was. */
    @ParameterizedTest
    @ValueSource(ints = {0, 3, 137, 255})
    void anExitStatusIsReportedAsAnExitStatus(int status) throws Exception {
        assertEndedWith(run(program("import os\nos._exit(" + status + ")\n"), ""), status, null);
    }

    @ParameterizedTest
    @ValueSource(ints = {9, 15})
    void aSignalIsReportedAsASignal(int signal) throws Exception {
        assertEndedWith(run(program("import os\nos.kill(os.getpid(), " + signal + ")\n"), ""), null, signal);
    }

    @Test
    void theRlimitsAreSetBeforeTheProgramStarts() throws Exception {
        SupervisorJob job = program("import resource as r\nprint(r.getrlimit(r.RLIMIT_NOFILE), r.getrlimit(r.RLIMIT_CORE))\n")
                .rlimit("RLIMIT_NOFILE", 64, 64)
                .rlimit("RLIMIT_CORE", 0, 0);

        Supervised s = run(job, "");

        assertEndedWith(s, 0, null);
        assertThat(s.stdout()).isEqualTo("(64, 64) (0, 0)\n");
    }

    /**
     * The file-size limit holds the program's files (an output limit the host cannot see to): a write is cut at it,
     * the next one fails with EFBIG (Python ignores SIGXFSZ, so the signal does not end it).
     */
    @Test
    void aFileCannotGrowPastTheSizeLimit() throws Exception {
        SupervisorJob job = program("import os\nfd = os.open('out.bin', os.O_WRONLY | os.O_CREAT, 0o600)\n"
                + "print(os.write(fd, b'x' * 8192))\ntry:\n    os.write(fd, b'x')\nexcept OSError as e:\n    print(e.errno)\n")
                .rlimit("RLIMIT_FSIZE", 4096, 4096);

        Supervised s = run(job, "");

        assertEndedWith(s, 0, null);
        assertThat(s.stdout()).isEqualTo("4096\n27\n");
    }

    /** A supervisor caps nothing itself (the host does): output of any size arrives whole, and the report after it. */
    @Test
    void outputOfAnySizeArrivesWholeBeforeTheReport() throws Exception {
        Supervised s = run(program("import sys\nsys.stdout.write('o' * (1 << 20))\nsys.stdout.flush()\n"
                + "sys.stderr.write('e' * (64 << 10))\nsys.stderr.flush()\nsys.exit(7)\n"), "");

        assertEndedWith(s, 7, null);
        assertThat(s.stdout()).hasSize(1 << 20).matches("o+");
        assertThat(s.stderr()).hasSize(64 << 10).matches("e+");
    }

    @Test
    void whatTheProgramLeftRunningIsKilledBeforeTheReport() throws Exception {
        long t0 = System.nanoTime();
        Supervised s = run(program("import os, time\nif os.fork() == 0:\n    time.sleep(30)\n    print('survived', flush=True)\n"
                + "else:\n    print('parent', flush=True)\n"), "");

        assertEndedWith(s, 0, null);
        assertThat(s.stdout()).isEqualTo("parent\n");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("not waited for").isLessThan(Duration.ofSeconds(20));
    }

    private Supervised refused(byte[] wire) throws Exception {
        Supervised s = supervise(wire);
        assertRefused(s);
        return s;
    }

    private static void assertRefused(Supervised s) {
        assertThat(s.refusal()).as(why(s)).isNotBlank();
        assertThat(s.report()).as(why(s)).isNull();
        assertThat(s.stdout()).as("nothing ran").doesNotContain("ran");
    }

    private byte[] ran() {
        return wire(program("print('ran')\n"), "");
    }

    /** The wire of {@link #ran}, its JSON object changed by {@code edit} and counted again; what followed it kept. */
    private byte[] edited(java.util.function.UnaryOperator<String> edit) {
        byte[] wire = ran();
        int nl = indexOf(wire, (byte) '\n');
        int length = Integer.parseInt(new String(wire, 0, nl, StandardCharsets.US_ASCII));
        String json = new String(wire, nl + 1, length, StandardCharsets.UTF_8);
        byte[] body = edit.apply(json).getBytes(StandardCharsets.UTF_8);
        byte[] rest = Arrays.copyOfRange(wire, nl + 1 + length, wire.length);
        byte[] head = (body.length + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(head, head.length + body.length + rest.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        System.arraycopy(rest, 0, out, head.length + body.length, rest.length);
        return out;
    }

    private static int indexOf(byte[] b, byte x) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == x) {
                return i;
            }
        }
        throw new AssertionError("no newline in the wire");
    }

    @Test
    void theWellFormedJobTheRefusalsAreMadeFromRuns() throws Exception {
        Supervised s = supervise(edited(json -> json));

        assertEndedWith(s, 0, null);
        assertThat(s.stdout()).isEqualTo("ran\n");
    }

    @Test
    void aHeaderLongerThanTheLimitIsRefused() throws Exception {
        refused("9".repeat(SupervisorJob.MAX_HEADER + 1).getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aHeaderThatIsNotAByteCountIsRefused() throws Exception {
        refused("twelve\n{\"argv\": []}".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aBodyThatIsNotJsonIsRefused() throws Exception {
        refused("5\nbad!!".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void moreThanOneObjectInTheCountedBytesIsRefused() throws Exception {
        refused(edited(json -> json + " {}"));
    }

    @Test
    void aJobWithoutArgvIsRefused() throws Exception {
        refused(edited(json -> {
            try {
                ObjectNode n = (ObjectNode) JSON.readTree(json);
                n.remove("argv");
                return JSON.writeValueAsString(n);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }));
    }

    /** Input that ends inside the job starts nothing (a refusal, or a quiet end: nobody will send the rest). */
    @Test
    void aJobCutShortRunsNothing() throws Exception {
        byte[] wire = ran();
        Supervised s = supervise(Arrays.copyOf(wire, wire.length / 2));

        assertThat(s.report()).as(why(s)).isNull();
        assertThat(s.stdout()).as(why(s)).doesNotContain("ran");
    }

    /** Not its sandbox's init, a supervisor could be signalled by the program and miss what it leaves: it refuses. */
    @Test
    void aSupervisorThatIsNotInitRefusesAWellFormedJob() throws Exception {
        assertRefused(superviseNotAsInit(ran()));
    }
}
