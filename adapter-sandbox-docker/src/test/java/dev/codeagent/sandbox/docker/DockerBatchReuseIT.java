package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.application.sandbox.JudgedSandboxContractTest;
import dev.codeagent.application.sandbox.MemoryHogs;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch's judged jobs share reusable containers (DockerContainers.Spec#forBatches): attacks by one job on the next
 * one run in the same container, on runc and on gVisor. Each attack plants what a job can leave (files where its uid
 * can write, a directory it locked, a message queue, a process that outlives it, a System V segment) and the next job
 * of the batch looks for it; the container's hostname (its id) shows whether the two ran in the same one, so a test
 * cannot pass by never reusing. The judged contract runs again with every job in one batch.
 */
@Tag("docker")
class DockerBatchReuseIT {

    @Nested
    class Runc extends ReuseAttacks {
        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(1);

        @Override
        DockerSandbox sandbox() {
            return tier.sandbox();
        }
    }

    @Nested
    class Runsc extends ReuseAttacks {
        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runsc(1);

        @Override
        DockerSandbox sandbox() {
            return tier.sandbox();
        }

        @Override
        boolean gvisor() {
            return true;
        }
    }

    /** The judged contract (attack corpus, references, bounds) with every job in one batch, so in reused containers. */
    @Nested
    class JudgedInOneBatchOnRunc extends JudgedSandboxContractTest {
        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(1);

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }

        @Override
        protected Execution judge(String code, JudgeJob job) {
            return super.judge(code, job.inBatch("contract"));
        }
    }

    /** With {@code sandbox.docker.reuse: off} every job of a batch gets a container of its own, as before. */
    @Nested
    class ReuseOff {
        @Test
        void everyJobOfABatchGetsAContainerOfItsOwn() {
            withSandbox(DockerSandboxConfig.REUSE_OFF, DockerSandboxConfig.ZYGOTE_BATCH, jobs -> {
                Execution first = jobs.judged(LOOK.formatted("off"), "off");
                Execution second = jobs.judged(LOOK.formatted("off"), "off");
                ReuseAttacks.assertPassed(second);
                assertThat(ReuseAttacks.host(second)).isNotEqualTo(ReuseAttacks.host(first));
            });
        }
    }

    /** With {@code sandbox.docker.zygote: off} a reused container's jobs start their interpreters afresh. */
    @Nested
    class ZygoteOff {
        @Test
        void aReusedContainersJobsStartTheirOwnInterpreters() {
            withSandbox(DockerSandboxConfig.REUSE_BATCH, DockerSandboxConfig.ZYGOTE_OFF, jobs -> {
                Execution first = jobs.judged(SCAN.formatted("cold"), "cold");
                Execution second = jobs.judged(SCAN.formatted("cold"), "cold");
                ReuseAttacks.assertPassed(second);
                assertThat(ReuseAttacks.host(second)).isEqualTo(ReuseAttacks.host(first));
                assertThat(second.stdout().text()).contains("hits ['ctl'] forked False");
            });
        }
    }

    /** Runs {@code check} on the jobs of a runc sandbox with these settings; no container may be left behind. */
    private static void withSandbox(String reuse, String zygote, java.util.function.Consumer<ReuseAttacks> check) {
        DockerTestSupport.assumeDocker();
        DockerSandboxConfig config = new DockerSandboxConfig(null, DockerTestSupport.IMAGE, 0, 1.0,
                dev.codeagent.application.config.ByteSize.ofMiB(64), DockerSandboxConfig.RUNC, reuse, zygote);
        try (DockerSandbox sandbox = DockerSandbox.create(config, ResourceLimits.defaults(),
                dev.codeagent.application.spi.IsolationMode.BEST_EFFORT)) {
            check.accept(new ReuseAttacks() {
                @Override
                DockerSandbox sandbox() {
                    return sandbox;
                }
            });
        }
        assertThat(DockerTestSupport.leftovers()).as("containers left behind").isEmpty();
    }

    /** What a job plants: each path, queue and process is named with the batch's marker. */
    private static final String PLANT = """
            import ctypes, os, socket, sys
            M = '%1$s'
            for d in ('/tmp', '/work', '/dev/shm'):
                open(d + '/' + M, 'w').write('secret')
            os.makedirs('/tmp/%1$s-dir/deep/deeper', exist_ok=True)
            open('/tmp/%1$s-dir/deep/deeper/f', 'w').write('secret')
            os.chmod('/tmp/%1$s-dir/deep', 0)
            os.chmod('/tmp/%1$s-dir', 0)
            os.symlink('/tmp', '/work/%1$s-link')
            L = ctypes.CDLL(None, use_errno=True)
            L.mq_open.restype = ctypes.c_int
            mq = L.mq_open(b'/%1$s', os.O_CREAT | os.O_RDWR, 0o666, None)
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execv('/bin/sleep', ['%1$s-sleeper', '60'])
                os._exit(0)
            os.wait()
            print('host', socket.gethostname(), 'mq', mq)
            def f():
                return 1
            """;

    /** What the next job looks for: prints what it found, or nothing. */
    private static final String LOOK = """
            import ctypes, os, socket
            M = '%1$s'
            found = []
            for d in ('/tmp', '/work', '/dev/shm', '/dev/mqueue'):
                if os.path.isdir(d):
                    found += [d + '/' + n for n in os.listdir(d) if M in n]
            L = ctypes.CDLL(None, use_errno=True)
            L.mq_open.restype = ctypes.c_int
            if L.mq_open(b'/' + M.encode(), os.O_RDONLY, 0, None) >= 0:
                found.append('mq')
            for p in os.listdir('/proc'):
                try:
                    if p.isdigit() and M in open('/proc/%%s/cmdline' %% p).read():
                        found.append('process ' + p)
                except OSError:
                    pass
            if L.shmget(0x5eed, 0, 0) >= 0:
                found.append('shm')
            print('host', socket.gethostname(), 'found', found)
            def f():
                return 1
            """;

    /**
     * What a job finds in its own memory (every readable mapping, through /proc/self/mem) of the secrets {@code M}
     * marks: "SECRET-code-M" and "SECRET-tests-M" of an earlier job, and "SECRET-ctl-M", which it makes itself (so a
     * scan that reads nothing cannot pass); the pattern never matches its own text. Also whether a zygote forked it.
     */
    private static final String SCAN = """
            import os, re, socket
            M = '%1$s'
            pat = re.compile(('SEC[R]ET-(code|tests|ctl)-' + M).encode())
            ctl = ''.join(['SEC', 'RET-', 'ctl-', M])
            hits = set()
            with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:
                for line in maps.read().splitlines():
                    span, perms = line.split()[:2]
                    lo, hi = (int(x, 16) for x in span.split('-'))
                    if perms[0] != 'r' or hi - lo > 256 << 20:
                        continue
                    # a MiB at a time (overlapping by a marker's length), so the scan's own memory stays small
                    for at in range(lo, hi, 1 << 20):
                        try:
                            mem.seek(at)
                            data = mem.read(min(hi, at + (1 << 20) + 64) - at)
                        except (OSError, ValueError, OverflowError):
                            continue
                        hits.update(m.group(1).decode() for m in pat.finditer(data))
            cmd = open('/proc/self/cmdline', 'rb').read().split(b'\\0')
            print('host', socket.gethostname(), 'hits', sorted(hits), 'forked', b'-c' in cmd)
            def f():
                return 1
            """;

    /** The memory hog of the memory-verdict contract (8 MiB a step, a line each), as a judged job's program. */
    private static final String HOG = MemoryHogs.program(Language.PYTHON).source() + "def f():\n    return 1\n";

    abstract static class ReuseAttacks {

        abstract DockerSandbox sandbox();

        boolean gvisor() {
            return false;
        }

        private final String marker = "planted" + UUID.randomUUID().toString().substring(0, 8);

        private Execution judged(String code, String batch, ResourceLimits limits) {
            return judged(code, "assert f() == 1\n", batch, limits);
        }

        private Execution judged(String code, String tests, String batch, ResourceLimits limits) {
            JudgeJob job = new JudgeJob(tests, null, List.of("f"), batch);
            return sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON, code), "", List.of(), limits, job));
        }

        private Execution judged(String code, String batch) {
            return judged(code, batch, ResourceLimits.defaults().withWallTime(Duration.ofSeconds(20)));
        }

        /** How many MiB the hog reached before its limit ended it. */
        private static long reached(Execution e) {
            return MemoryHogs.firstAndLast(e.stdout().text()).map(s -> (s[1].index() + 1) * MemoryHogs.STEP_BYTES >> 20)
                    .orElse(0L);
        }

        /** The batch's next job after {@code earlier}: both pass, and the next one ran in the earlier one's container. */
        private Execution nextInItsContainer(Execution earlier, String code, String batch) {
            assertPassed(earlier);
            Execution next = judged(code, batch);
            assertPassed(next);
            assertThat(host(next)).as("the next job ran in the earlier one's container").isEqualTo(host(earlier));
            return next;
        }

        private static void assertPassed(Execution e) {
            String why = e.outcome() + " " + e.detail() + " " + e.judgement() + " " + e.stderr().text();
            assertThat(e.outcome()).as(why).isEqualTo(Outcome.OK);
            assertThat(e.judgement()).as(why).isNotNull();
            assertThat(e.judgement().outcome()).as(why).isEqualTo(JudgeReport.Outcome.PASSED);
        }

        private static String host(Execution e) {
            String out = e.stdout().text();
            assertThat(out).as("stdout of %s: %s", e.outcome(), e.stderr().text()).contains("host ");
            return out.substring(out.indexOf("host ") + 5).split(" ")[0];
        }

        @Test
        void theNextJobOfTheBatchFindsNothingTheLastOneLeftInTheContainerTheyShared() {
            String batch = "b" + marker;
            Execution planted = judged(PLANT.formatted(marker), batch);
            assertThat(planted.stdout().text()).as("the queue was made").doesNotContain("mq -1");
            Execution look = nextInItsContainer(planted, LOOK.formatted(marker), batch);
            assertThat(look.stdout().text()).contains("found []");
        }

        @Test
        void aSystemVSegmentNeverReachesTheNextJob() {
            String batch = "s" + marker;
            String shm = """
                    import ctypes, socket
                    L = ctypes.CDLL(None, use_errno=True)
                    print('host', socket.gethostname(), 'shm', L.shmget(0x5eed, 4096, 0o1666))
                    def f():
                        return 1
                    """;
            Execution planted = judged(shm, batch);
            assertThat(planted.stdout().text()).as("the segment was made").doesNotContain("shm -1");
            Execution look = judged(LOOK.formatted(marker), batch);
            assertThat(look.stdout().text()).contains("found []");
            if (!gvisor()) {
                // runc: the supervisor counts the namespace's objects, cannot remove another uid's, so retires the container
                assertThat(host(look)).as("a container holding a segment is not reused").isNotEqualTo(host(planted));
            } else {
                // gVisor: the job had an IPC namespace of its own, gone with its processes; the container is reused
                assertThat(host(look)).isEqualTo(host(planted));
            }
        }

        @Test
        void aJobKilledAtItsWallClockLimitLeavesNoContainerForTheNext() {
            String batch = "w" + marker;
            String hang = """
                    import socket, sys, time
                    print('host', socket.gethostname(), flush=True)
                    def f():
                        time.sleep(60)
                    """;
            Execution killed = judged(hang, batch, ResourceLimits.defaults().withWallTime(Duration.ofSeconds(3)));
            assertThat(killed.outcome()).isEqualTo(Outcome.TIME_LIMIT);
            Execution next = judged(LOOK.formatted(marker), batch);
            assertPassed(next);
            assertThat(host(next)).isNotEqualTo(host(killed));
        }

        @Test
        void thePathTheSupervisorKeepsOnGvisorIsWipedWhereItDoesNotMakeIt() {
            // (a review's attack) the supervisor's pids directory was kept on every runtime; on runc it never makes
            // it, so a job could, and what it left there crossed to the next job
            String batch = "k" + marker;
            Execution planted = judged("""
                    import os, socket
                    try:
                        os.makedirs('/tmp/.codeagent-pids/deep', exist_ok=True)
                        open('/tmp/.codeagent-pids/deep/secret', 'w').write('%1$s')
                    except OSError as e:
                        print('refused', e)
                    print('host', socket.gethostname())
                    def f():
                        return 1
                    """.formatted(marker), batch);
            Execution look = judged("""
                    import socket
                    try:
                        print('got', open('/tmp/.codeagent-pids/deep/secret').read())
                    except OSError as e:
                        print('nothing', e)
                    print('host', socket.gethostname())
                    def f():
                        return 1
                    """, batch);
            assertPassed(look);
            assertThat(look.stdout().text()).doesNotContain(marker);
            assertThat(host(look)).as("the container was reused").isEqualTo(host(planted));
        }

        @Test
        void aJobsMemoryLeftChargedToTheGroupNeverShrinksTheNextJobsLimit() {
            // (a review's attack) negative dentries are kernel memory charged to the container's group that no clean-up
            // inside frees; the next job's watch took them as not its own, so it got 80 of its 256 MiB
            Execution fresh = judged(HOG, "f" + marker);
            String batch = "m" + marker;
            Execution planted = judged("""
                    import os, socket, time
                    def u():
                        try:
                            return int(open('/sys/fs/cgroup/memory/memory.usage_in_bytes').read()) >> 20
                        except OSError:
                            return -1
                    kids = []
                    for k in range(2):
                        p = os.fork()
                        if p == 0:
                            t = time.time(); i = 0
                            while time.time() - t < 3.5 and u() < 190:
                                for j in range(1000):
                                    i += 1
                                    try:
                                        os.stat('/usr/lib/%%d-%%d-%%s' %% (k, i, 'a' * 240))
                                    except OSError:
                                        pass
                            os._exit(0)
                        kids.append(p)
                    for p in kids:
                        os.waitpid(p, 0)
                    print('host', socket.gethostname(), 'usage', u())
                    def f():
                        return 1
                    """, batch);
            Execution look = judged(HOG, batch);
            assertThat(reached(look)).as("MiB reached after the plant (%s) against a fresh container's (%s)", look.stdout().text(),
                    fresh.stdout().text()).isGreaterThanOrEqualTo(reached(fresh) - 16);
        }

        @Test
        void aJobsSocketLeftInTimeWaitNeverHoldsTheNextJobsPort() {
            // (a review's attack) a loopback connection the job closed first stays in TIME_WAIT for a minute in the
            // container's network namespace: the next job could not bind the port. runc shows it in /proc/net/tcp and
            // the container is retired; gVisor's tables show nothing (a residual, docs/security-model.md)
            assumeTrue(!gvisor(), "gVisor shows no TIME_WAIT socket in /proc/net/tcp");
            int port = 20000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(20000);
            String batch = "t" + marker;
            Execution planted = judged("""
                    import socket, time
                    s = socket.socket(); s.bind(('127.0.0.1', %1$d)); s.listen(1)
                    c = socket.create_connection(('127.0.0.1', %1$d))
                    a, _ = s.accept()
                    a.close(); time.sleep(0.1); c.close(); time.sleep(0.1); s.close()
                    print('host', socket.gethostname())
                    def f():
                        return 1
                    """.formatted(port), batch);
            Execution look = judged("""
                    import socket
                    try:
                        b = socket.socket(); b.bind(('127.0.0.1', %1$d)); print('bound')
                    except OSError as e:
                        print('refused', e)
                    print('host', socket.gethostname())
                    def f():
                        return 1
                    """.formatted(port), batch);
            assertPassed(planted);
            assertThat(look.stdout().text()).contains("bound");
            assertThat(host(look)).as("a container with a socket left is not reused").isNotEqualTo(host(planted));
        }

        @Test
        void theZygotesForkEachJobWithNothingOfAnEarlierJobInItsMemory() {
            // the zygotes are started before any payload and are told no code and no tests: a job forked from them
            // finds neither an earlier job's code nor its tests anywhere in its own memory
            String batch = "z" + marker;
            Execution planted = judged("K = 'SECRET-code-%s'\nimport socket\nprint('host', socket.gethostname(), 'planted')\ndef f():\n    return 1\n"
                    .formatted(marker), "assert f() == 1, 'SECRET-tests-%s'\n".formatted(marker), batch,
                    ResourceLimits.defaults().withWallTime(Duration.ofSeconds(20)));
            Execution look = nextInItsContainer(planted, SCAN.formatted(marker), batch);
            assertThat(look.stdout().text()).as("what the scan found").contains("hits ['ctl'] forked True");
        }

        @Test
        void aJobFindsNoArgumentOfAnEarlierJobInItsMemory() {
            // (a review's attack) the zygote parsed each request (argv, environment) in its own heap and forked the next
            // job's candidate from it: an earlier job's program arguments were still there, freed but not cleared
            String batch = "v" + marker;
            Execution planted = sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON,
                    "import socket\nprint('host', socket.gethostname(), 'planted')\ndef f():\n    return 1\n"), "",
                    List.of("SECRET-code-" + marker), ResourceLimits.defaults().withWallTime(Duration.ofSeconds(20)),
                    new JudgeJob("assert f() == 1\n", null, List.of("f"), batch)));
            Execution look = nextInItsContainer(planted, SCAN.formatted(marker), batch);
            assertThat(look.stdout().text()).as("what the scan found").contains("hits ['ctl'] forked True");
        }

        @Test
        void aForkedJobGetsItsWholeMemoryLimitAndNoMore() {
            // the zygotes' memory is the container's, on top of the job's: the watch ends a forked job at its own limit
            ResourceLimits limits = ResourceLimits.defaults().withMemoryBytes(256 * ResourceLimits.MIB)
                    .withWallTime(Duration.ofSeconds(20)).withCpuTime(Duration.ofSeconds(10));
            String batch = "h" + marker;
            for (int job = 0; job < 2; job++) {
                Execution e = judged(HOG, batch, limits);
                assertThat(e.outcome()).as("%s %s %s", e.detail(), e.judgement(), e.stderr().text()).isEqualTo(Outcome.MEMORY_LIMIT);
                assertThat(reached(e)).as("MiB the hog reached under 256: job %s %s (%s) stderr %s wall %s", job, e.stdout().text(), e.detail(), e.stderr().text(), e.wallTime()).isBetween(224L, 272L);
            }
        }

        @Test
        void aForkBombLeftRunningIsSweptAroundTheZygotes() {
            // processes that fork as fast as they can after the job's end race the sweep, which kills by pid around the
            // zygotes; the next job runs either in the same container, forked from its zygotes, or in a fresh one
            String batch = "f" + marker;
            Execution bomb = judged("""
                    import os, socket, time
                    if os.fork() == 0:
                        os.setsid()
                        while True:
                            try:
                                os.fork()
                            except OSError:
                                time.sleep(0.001)
                    print('host', socket.gethostname(), 'bomb')
                    def f():
                        return 1
                    """, batch);
            assertPassed(bomb);
            Execution next = judged(SCAN.formatted(marker), batch);
            assertPassed(next);
            assertThat(next.stdout().text()).contains("forked True");
        }

        @Test
        void aJobCannotSignalReadOrTraceTheZygotes() {
            String batch = "r" + marker;
            Execution attack = judged("""
                    import ctypes, os, signal, socket
                    L = ctypes.CDLL(None, use_errno=True)
                    def reach(p, really):
                        got = set()
                        for what in ('mem', 'environ', 'fd/3', 'maps'):
                            try:
                                open('/proc/%d/%s' % (p, what), 'rb').read(1)
                                got.add(what)
                            except OSError:
                                pass
                        if really:
                            try:
                                os.kill(p, signal.SIGKILL)
                                got.add('kill')
                            except OSError:
                                pass
                            if L.ptrace(16, p, 0, 0) == 0:
                                got.add('ptrace')
                        return got
                    zygotes = []
                    for p in os.listdir('/proc'):
                        try:
                            if p.isdigit() and p != '1' and os.stat('/proc/' + p).st_uid == 0:
                                zygotes.append(int(p))
                        except OSError:
                            pass
                    reached = set()
                    for z in zygotes:
                        reached |= reach(z, True)
                    print('host', socket.gethostname(), 'init', sorted(reach(1, False)), 'zygotes', len(zygotes), 'reached',
                          sorted(reached))
                    def f():
                        return 1
                    """, batch);
            assertPassed(attack);
            String out = attack.stdout().text();
            assertThat(out).contains("zygotes 2 reached [");
            if (!gvisor()) {
                assertThat(out).contains("reached []");
            } else {
                // gVisor shows any process's maps and environ to every uid, the supervisor's as well: the zygotes are
                // no more exposed than it is (their environment is PATH and LANG), and no further
                String init = out.substring(out.indexOf("init [") + 6, out.indexOf("]", out.indexOf("init [")));
                String reached = out.substring(out.indexOf("reached [") + 9, out.indexOf("]", out.indexOf("reached [")));
                for (String what : reached.split(", ")) {
                    assertThat(init).as("%s of a zygote, not of the supervisor: %s", what, out).contains(what);
                }
                assertThat(reached).doesNotContain("mem", "fd/3", "kill", "ptrace");
            }
            Execution next = nextInItsContainer(attack, SCAN.formatted(marker), batch);
            assertThat(next.stdout().text()).contains("forked True");
        }

        @Test
        void aJobFindsNoStatusOrUsageOfTheEarlierJobInTheZygotesGlobals() {
            // (a review's attack) the candidates' zygote kept the last child's wait status and rusage in its module
            // globals, which the next fork copied: the next candidate read them by walking its frames. The first job
            // touches 48 MiB, not the 123 it once did: after 123 MiB gVisor's own heap held 12.2 and 12.7 MiB more (the
            // sandbox's debug log, a clean clone's run and rerun), past the reuse rule's 12 MiB slack, so the container
            // was retired and the next job ran elsewhere, which this test needs it not to
            String batch = "u" + marker;
            Execution first = judged("""
                    import socket
                    print('host', socket.gethostname(), 'first')
                    touched = bytearray(48 << 20)
                    for i in range(0, len(touched), 4096):
                        touched[i] = 1
                    del touched
                    def f():
                        return 1
                    """, batch);
            Execution next = nextInItsContainer(first, """
                    import socket, sys
                    seen = None
                    fr = sys._getframe()
                    while fr is not None:
                        for v in list(fr.f_globals.values()):
                            if type(v).__name__ == 'struct_rusage':
                                seen = (v.ru_maxrss >> 10, v.ru_minflt)
                        fr = fr.f_back
                    print('host', socket.gethostname(), 'earlier', seen)
                    def f():
                        return 1
                    """, batch);
            assertThat(next.stdout().text()).as("the earlier job's status and usage").contains("earlier None");
        }

        @Test
        void anotherBatchNeverGetsTheContainer() {
            Execution first = judged(LOOK.formatted(marker), "x" + marker);
            Execution other = judged(LOOK.formatted(marker), "y" + marker);
            Execution again = judged(LOOK.formatted(marker), "x" + marker);
            assertThat(host(other)).isNotEqualTo(host(first));
            assertThat(host(again)).as("the first batch's container is reused").isEqualTo(host(first));
        }
    }
}
