package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Another local user attacks a judged run while it is in progress: it learns where the run's channel is (the
 * host paths of the two FIFOs are in the command lines of the sandboxes' bubblewrap, which every user can read
 * in /proc, and in their mountinfo) and tries to open both FIFOs, to read the tests' calls on the way to the
 * candidate or to write a forged reply on the way to the judge. It must be able to open neither, and the verdict
 * must stay the honest one — for a job judged alone and for a batch's job judged by the batch's server.
 *
 * <p>The user is real ({@code useradd}) and the attack runs as its uid ({@code setpriv}); every open is
 * non-blocking, so the attack cannot hang on a FIFO with no other end. Skipped when not root (fails under
 * {@code CI=true}).
 */
@Tag("slow")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class JudgeChannelOtherUserIT {

    private static final String USER = "codeagent-channel-thief";

    /**
     * The thief: watches /proc for a channel's FIFO paths (bind arguments in command lines, mount roots in
     * mountinfo resolved through its own view of the same file system), then opens each for reading and for
     * writing. Prints one line per path and attempt: {@code open <r|w> <path> <ok|errno name>}; a FIFO opened for
     * writing gets a forged frame, so a hole also shows in the verdict.
     */
    private static final String THIEF = """
            import errno, os, sys, time
            deadline = time.monotonic() + float(sys.argv[1])
            mine = {}
            for line in open('/proc/self/mountinfo'):
                f = line.split()
                mine.setdefault(f[2], []).append((f[3], f[4]))
            def found():
                paths = set()
                for pid in os.listdir('/proc'):
                    if not pid.isdigit():
                        continue
                    try:
                        with open('/proc/%s/cmdline' % pid, 'rb') as c:
                            args = c.read().decode('utf-8', 'replace').split('\\0')
                        paths.update(a for a in args if 'codeagent-judge-' in a and a.rsplit('/', 1)[-1] in ('j2c', 'c2j'))
                    except OSError:
                        pass
                    try:
                        with open('/proc/%s/mountinfo' % pid) as m:
                            for line in m:
                                f = line.split()
                                if 'codeagent-judge-' in f[3] and f[3].rsplit('/', 1)[-1] in ('j2c', 'c2j'):
                                    for root, point in mine.get(f[2], []):
                                        if f[3].startswith(root):
                                            paths.add(os.path.normpath(point + '/' + f[3][len(root):]))
                    except OSError:
                        pass
                return paths
            paths = set()
            while time.monotonic() < deadline and not {'j2c', 'c2j'} <= {p.rsplit('/', 1)[-1] for p in paths}:
                paths |= found()
                time.sleep(0.02)
            print('found', len(paths), flush=True)
            for p in sorted(paths):
                for how, flags in (('r', os.O_RDONLY), ('w', os.O_WRONLY)):
                    try:
                        fd = os.open(p, flags | os.O_NONBLOCK | os.O_CLOEXEC)
                    except OSError as e:
                        # ENXIO: a write end with no reader yet, past the permission check: the FIFO was open to us
                        print('open', how, p, 'ok' if e.errno == errno.ENXIO else errno.errorcode.get(e.errno, e.errno), flush=True)
                        continue
                    print('open', how, p, 'ok', flush=True)
                    if how == 'w':
                        try:
                            os.write(fd, b'9\\n["forged"]\\n')
                        except OSError:
                            pass
                    os.close(fd)
            """;

    @RegisterExtension
    static final ProcessFixture tier = ProcessFixture.cold("codeagent-thief-judged-").onAWholeHost();

    private static boolean madeUser;
    private static int thiefUid;
    private static int thiefGid;
    private static Path script;

    @BeforeAll
    static void makeTheThief() throws Exception {
        HostSupport.require(HostTools.runningAsRoot(), "root (to create another local user and attack as it)");
        HostSupport.require(HostTools.find("useradd") != null && HostTools.find("setpriv") != null, "useradd and setpriv");
        if (HostSupport.run(List.of("id", "-u", USER), 30).exit() != 0) {
            HostSupport.Result made = HostSupport.run(List.of(HostTools.find("useradd").toString(), "--system",
                    "--no-create-home", "--shell", "/usr/sbin/nologin", USER), 30);
            assertThat(made.exit()).as("useradd: " + made.err()).isZero();
            madeUser = true;
        }
        thiefUid = Integer.parseInt(HostSupport.run(List.of("id", "-u", USER), 30).out().trim());
        thiefGid = Integer.parseInt(HostSupport.run(List.of("id", "-g", USER), 30).out().trim());
        script = Files.createTempFile("codeagent-thief-", ".py");
        Files.writeString(script, THIEF);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
    }

    @AfterAll
    static void removeTheThief() throws Exception {
        if (script != null) {
            Files.deleteIfExists(script);
        }
        if (madeUser) {
            HostSupport.run(List.of(HostTools.find("userdel").toString(), USER), 30);
        }
    }

    @Test
    void anotherUserCannotOpenTheChannelOfAJobJudgedAlone() throws Exception {
        attackWhileJudging(new JudgeJob("assert f() == 1\n", null, List.of("f")));
    }

    @Test
    void anotherUserCannotOpenTheChannelOfABatchsJob() throws Exception {
        attackWhileJudging(new JudgeJob("assert f() == 1\n", null, List.of("f")).inBatch("thief"));
    }

    private static void attackWhileJudging(JudgeJob job) throws Exception {
        // the sample sleeps inside the call: the channel is open on both sides the whole time the thief looks
        String code = "import time\ndef f():\n    time.sleep(4)\n    return 1\n";
        ExecutionRequest request = new ExecutionRequest(new Program(Language.PYTHON, code), "", List.of(),
                ResourceLimits.defaults().withWallTime(Duration.ofSeconds(20)).withCpuTime(Duration.ofSeconds(5)), job);
        CompletableFuture<Execution> run = CompletableFuture.supplyAsync(() -> tier.sandbox().execute(request));
        HostSupport.Result thief = HostSupport.run(List.of(HostTools.find("setpriv").toString(), "--reuid=" + thiefUid,
                "--regid=" + thiefGid, "--clear-groups", "--", HostSupport.PYTHON.toString(), "-I", script.toString(), "8"), 60);
        Execution e = run.get(60, TimeUnit.SECONDS);

        assertThat(thief.exit()).as("the thief ran: " + thief.err()).isZero();
        List<String> lines = thief.out().lines().toList();
        assertThat(lines).as("the thief found both FIFOs of the run's channel (else it attacked nothing)")
                .anyMatch(l -> l.startsWith("open r ") && l.contains("/j2c "))
                .anyMatch(l -> l.startsWith("open r ") && l.contains("/c2j "));
        assertThat(lines.stream().filter(l -> l.startsWith("open ")).toList())
                .as("every open by another user is refused").allMatch(l -> l.endsWith(" EACCES"));
        assertThat(e.judgement()).as(String.valueOf(e)).isNotNull();
        assertThat(e.judgement().passed()).as("the honest verdict: " + e.judgement().message()).isTrue();
    }
}
