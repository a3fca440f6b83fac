package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Another local user attacks root's process sandbox before it starts, knowing every path it uses: it makes the
 * lock directories of this and earlier versions first (where the parents let it), fills them with links to a
 * file root must never create and with lock files it holds, and makes the work roots and compiled-binary caches
 * first with a planted "binary" that leaves a mark if anyone runs it. The sandbox must then run a program as
 * usual (or refuse in one line naming the squatted path), create nothing through a link, and run nothing planted.
 *
 * <p>The user is real ({@code useradd}) and the attack runs as its uid ({@code setpriv}); the targets are files
 * in a directory of this test's own. Skipped when not root (fails under {@code CI=true}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProcessSandboxOtherUsersIT {

    private static final String USER = "codeagent-squatter";
    /** The links: as many as a pool would try before finding a free uid, the rest are lock files the user holds. */
    private static final int LINKS = 16;

    private static int squatterUid;
    private static int squatterGid;
    private static boolean madeUser;
    private static Path home;
    /** Where every link points and every planted binary writes: nothing may ever appear here. */
    private static Path targets;
    private static Path plantedRan;
    private static final List<Path> squatted = new ArrayList<>();
    private static final List<Path> squattedLockDirs = new ArrayList<>();
    private static Path squattedWorkRoot;
    private static Process holder;

    @BeforeAll
    static void squat() throws Exception {
        // failsafe reruns a failed class in the same JVM
        squatted.clear();
        squattedLockDirs.clear();
        HostSupport.require(HostTools.runningAsRoot(), "root (to create another local user and attack as it)");
        HostSupport.require(HostTools.find("useradd") != null && HostTools.find("setpriv") != null,
                "useradd and setpriv");
        if (run(List.of("id", "-u", USER)).exit() != 0) {
            Result made = run(List.of(HostTools.find("useradd").toString(), "--system", "--no-create-home",
                    "--shell", "/usr/sbin/nologin", USER));
            assertThat(made.exit()).as("useradd: " + made.out()).isZero();
            madeUser = true;
        }
        squatterUid = Integer.parseInt(run(List.of("id", "-u", USER)).out().trim());
        squatterGid = Integer.parseInt(run(List.of("id", "-g", USER)).out().trim());

        home = Files.createTempDirectory("codeagent-otherusers-");
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        targets = Files.createDirectory(home.resolve("targets"));
        // anyone may write here, so a planted binary leaves its mark whichever uid runs it
        Files.setPosixFilePermissions(targets, PosixFilePermissions.fromString("rwxrwxrwx"));
        plantedRan = targets.resolve("planted-binary-ran");
        Path planted = home.resolve("planted");
        Files.writeString(planted, "#!/bin/sh\ntouch " + plantedRan + "\n");
        Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxr-xr-x"));

        // the lock directories of earlier versions (world-writable parents) and of this one (root's /run)
        for (Path dir : Stream.concat(UidPool.legacyLockDirs().stream(), Stream.of(UidPool.hostLockDir().getParent(),
                UidPool.hostLockDir())).toList()) {
            if (asSquatter("mkdir", "-m", "0755", dir.toString()).exit() == 0) {
                squatted.add(dir);
                squattedLockDirs.add(dir);
            }
        }
        assertThat(squattedLockDirs).as("this version's lock directory is out of another user's reach")
                .doesNotContain(UidPool.hostLockDir(), UidPool.hostLockDir().getParent());
        // a private lock directory the user owns, whatever earlier runs left on this host: the refusal is tested on it
        Path ownLockDir = home.resolve("squatted-uids");
        Files.createDirectory(ownLockDir);
        Files.setAttribute(ownLockDir, "unix:uid", squatterUid);
        squattedLockDirs.add(ownLockDir);

        String holderScript = """
                import fcntl, os, resource, sys
                base, count, links, target = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
                hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
                resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
                held = []
                for d in sys.argv[5:]:
                    for i in range(count):
                        name = os.path.join(d, 'uid-%d.lock' % (base + i))
                        if i < links:
                            os.symlink('%s-%d' % (target, i), name)
                        else:
                            f = open(name, 'w')
                            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                            held.append(f)
                print('holding', len(held), flush=True)
                sys.stdin.read()
                """;
        Path script = home.resolve("hold.py");
        Files.writeString(script, holderScript);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
        List<String> holdCmd = new ArrayList<>(squatterPrefix());
        holdCmd.addAll(List.of(HostSupport.PYTHON.toString(), script.toString(), Long.toString(UidPool.BASE),
                Integer.toString(UidPool.MAX), Integer.toString(LINKS), targets.resolve("through-link").toString()));
        squattedLockDirs.forEach(d -> holdCmd.add(d.toString()));
        holder = new ProcessBuilder(holdCmd).redirectErrorStream(true).start();
        BufferedReader said = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        String ready = said.readLine();
        String expected = "holding " + (UidPool.MAX - LINKS) * squattedLockDirs.size();
        if (!expected.equals(ready)) {
            holder.getOutputStream().close();
            // it has ended (or ends now): the rest of what it said is its error
            assertThat(ready + "\n" + String.join("\n", said.lines().limit(20).toList())).as("the squatter holds its locks")
                    .startsWith(expected);
        }

        // the old default work root's cache (the temp directory), and a work root the user made for root to be told
        Path oldCache = Path.of(System.getProperty("java.io.tmpdir")).resolve(ExecuteOnlyCopy.DIR);
        if (asSquatter("mkdir", "-m", "0711", oldCache.toString()).exit() == 0) {
            squatted.add(oldCache);
            plant(oldCache, planted);
        }
        squattedWorkRoot = Path.of(System.getProperty("java.io.tmpdir")).resolve("codeagent-squatted-" + ProcessHandle.current().pid());
        assertThat(asSquatter("mkdir", "-m", "0711", squattedWorkRoot.toString()).exit()).isZero();
        squatted.add(squattedWorkRoot);
        assertThat(asSquatter("mkdir", "-m", "0711", squattedWorkRoot.resolve(ExecuteOnlyCopy.DIR).toString()).exit()).isZero();
        plant(squattedWorkRoot.resolve(ExecuteOnlyCopy.DIR), planted);
        // root's own directories are out of reach: the parents of its lock and work directories take no other user's name
        for (Path parent : List.of(UidPool.hostLockDir().getParent().getParent(), HostProbe.ROOT_WORK_ROOT.getParent().getParent())) {
            Path probe = parent.resolve("codeagent-squatter-probe");
            Result r = asSquatter("mkdir", probe.toString());
            if (r.exit() == 0) {
                Files.delete(probe);
            }
            assertThat(r.exit()).as(USER + " made " + probe).isNotZero();
        }
    }

    /** The attack would work on code that follows links: root opening a squatted lock file makes the target. */
    @Test
    void theLinksAreLive() throws IOException {
        Path ownLockDir = squattedLockDirs.get(squattedLockDirs.size() - 1);
        Path link = ownLockDir.resolve("uid-" + (UidPool.BASE + 1) + ".lock");
        Path target = targets.resolve("through-link-1");
        try (FileChannel naive = FileChannel.open(link, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertThat(target).as("created as root through the user's link").exists();
        } finally {
            Files.deleteIfExists(target);
        }
    }

    @Test
    void theSandboxRunsAsUsualWhileAnotherUserSquatsEverythingItCan() {
        try (ProcessSandbox sandbox = new ProcessSandbox(new ProcessSandboxConfig(null, null, null, null),
                IsolationMode.BEST_EFFORT, 0)) {
            assertThat(sandbox.isolation().has(IsolationFeature.UNPRIVILEGED_UID)).as("a uid from the pool").isTrue();
            Execution e = sandbox.execute(ExecutionRequest.of(Language.PYTHON, "print(1)"));
            assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text()).isEqualTo("1\n");
        }
        assertNothingCreatedAndNothingRan();
        assertSquattedDirectoriesHoldOnlyTheirOwnersFiles();
    }

    @Test
    void aLockDirectoryAnotherUserMadeIsRefusedInOneLineNamingIt() {
        Path theirs = squattedLockDirs.get(squattedLockDirs.size() - 1);
        try (UidPool pool = new UidPool(theirs, uid -> false)) {
            assertThatThrownBy(pool::acquire).isInstanceOf(SandboxUnavailableException.class)
                    .hasMessageContaining(theirs.toString()).hasMessageContaining("uid " + squatterUid)
                    .satisfies(t -> assertThat(t.getMessage()).doesNotContain("\n"));
        }
        assertNothingCreatedAndNothingRan();
    }

    @Test
    void lockDirectoriesOfEarlierVersionsAnotherUserMadeHoldNoUid() throws IOException {
        Path mine = Files.createTempDirectory(home, "uids-");
        try (UidPool pool = new UidPool(mine, squattedLockDirs, uid -> false)) {
            long uid = pool.acquire();
            assertThat(uid).isBetween(UidPool.BASE, UidPool.BASE + UidPool.MAX - 1);
            assertThat(UidPool.heldByEarlierVersion(squattedLockDirs, UidPool.BASE + LINKS)).isFalse();
        } finally {
            WorkDir.delete(mine);
        }
        assertNothingCreatedAndNothingRan();
    }

    @Test
    void aWorkRootAnotherUserMadeIsRefusedInOneLineNamingItAndTheKey() {
        assertThatThrownBy(() -> new ProcessSandbox(new ProcessSandboxConfig(null, null, null, squattedWorkRoot.toString()),
                IsolationMode.BEST_EFFORT, 0)).isInstanceOf(SandboxUnavailableException.class)
                .hasMessageContaining(squattedWorkRoot.toString()).hasMessageContaining("sandbox.process.workRoot")
                .satisfies(t -> assertThat(t.getMessage()).doesNotContain("\n"));
        assertNothingCreatedAndNothingRan();
        assertSquattedDirectoriesHoldOnlyTheirOwnersFiles();
    }

    @Test
    void theSharedTempDirectoryIsNoWorkRoot() {
        String tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize().toString();
        assertThatThrownBy(() -> new ProcessSandbox(new ProcessSandboxConfig(null, null, null, tmp), IsolationMode.BEST_EFFORT, 0))
                .isInstanceOf(SandboxUnavailableException.class)
                .hasMessageContaining(tmp).hasMessageContaining("sandbox.process.workRoot").hasMessageContaining("writable by other users");
        assertNothingCreatedAndNothingRan();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (holder != null) {
            holder.getOutputStream().close();
            if (!holder.waitFor(10, TimeUnit.SECONDS)) {
                holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        for (int i = squatted.size() - 1; i >= 0; i--) {
            WorkDir.delete(squatted.get(i));
        }
        if (home != null) {
            WorkDir.delete(home);
        }
        if (madeUser) {
            run(List.of(HostTools.find("userdel").toString(), USER));
        }
    }

    private static void assertNothingCreatedAndNothingRan() {
        try (Stream<Path> made = Files.list(targets)) {
            assertThat(made.toList()).as("files created through the user's links, or by its planted binaries").isEmpty();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertThat(plantedRan).doesNotExist();
    }

    /** Root made nothing in a directory another user made: every entry is still that user's. */
    private static void assertSquattedDirectoriesHoldOnlyTheirOwnersFiles() {
        for (Path dir : Stream.concat(squatted.stream(), squattedLockDirs.stream()).distinct().toList()) {
            try (Stream<Path> entries = Files.list(dir)) {
                for (Path p : entries.toList()) {
                    assertThat(Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).as(p.toString()).isEqualTo(squatterUid);
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
    }

    /**
     * The "compiled" supervisor and launcher under the names root would look for (the attacker has read
     * {@link ExecuteOnlyCopy}: a digest of the source and the compiler's path), and the copy of GNU time.
     */
    private static void plant(Path cache, Path planted) throws Exception {
        List<String> names = new ArrayList<>();
        Path cc = HostTools.find("cc");
        for (String source : List.of("supervisor.c", "launch.c")) {
            if (cc != null) {
                names.add(source.substring(0, source.indexOf('.')) + "-" + digest(source, cc.toRealPath().toString()));
            }
        }
        Path time = HostTools.detect().time();
        if (time != null) {
            Path real = time.toRealPath();
            names.add(real.getFileName() + "-" + Files.size(real) + "-" + Files.getLastModifiedTime(real).toMillis());
        }
        for (String name : names) {
            assertThat(asSquatter("cp", planted.toString(), cache.resolve(name).toString()).exit()).isZero();
        }
    }

    private static String digest(String source, String compiler) throws Exception {
        try (InputStream in = ExecuteOnlyCopy.class.getResourceAsStream(source)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(in.readAllBytes());
            sha.update(compiler.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest(), 0, 12);
        }
    }

    private static List<String> squatterPrefix() {
        return List.of(HostTools.find("setpriv").toString(), "--reuid=" + squatterUid, "--regid=" + squatterGid,
                "--clear-groups", "--");
    }

    private static Result asSquatter(String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(squatterPrefix());
        cmd.addAll(List.of(command));
        return run(cmd);
    }

    private record Result(int exit, String out) {
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(
                Path.of("/dev/null").toFile())).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(command + " took over 30 s");
        }
        return new Result(p.exitValue(), out);
    }
}
