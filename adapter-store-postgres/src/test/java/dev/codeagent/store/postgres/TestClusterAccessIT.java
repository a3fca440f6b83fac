package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 29: the tests' throwaway cluster is a superuser session for whoever reaches it, and a superuser runs
 * commands as the server's OS user ({@code COPY ... TO PROGRAM}). Another local user, created here, tries to
 * connect to the running cluster as its superuser, over loopback TCP and over the unix socket, and must be
 * refused; the same user with the cluster's password gets in, so the refusal is the authentication's and not a
 * port or a binary that user cannot reach.
 */
class TestClusterAccessIT {

    private static String attacker;
    private static int uid;
    private static int gid;

    @BeforeAll
    static void createAnotherUser() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "creating another local user to attack from needs root");
        attacker = "capgatk" + Integer.toHexString(new SecureRandom().nextInt(1 << 24));
        assertThat(run(List.of("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", attacker),
                Map.of()).status).as("useradd " + attacker).isZero();
        uid = Integer.parseInt(run(List.of("id", "-u", attacker), Map.of()).out.trim());
        gid = Integer.parseInt(run(List.of("id", "-g", attacker), Map.of()).out.trim());
        assertThat(uid).isNotZero();
    }

    @AfterAll
    static void removeTheUser() throws Exception {
        if (attacker != null) {
            run(List.of("userdel", attacker), Map.of());
        }
    }

    @Test
    void anotherLocalUserCannotConnectAsTheSuperuserOverLoopback() throws Exception {
        TestCluster cluster = TestCluster.get();
        Result noPassword = psqlAsAttacker(cluster, List.of("-h", "127.0.0.1", "-p", String.valueOf(cluster.port())), Map.of());
        assertThat(noPassword.status).as(noPassword.out).isNotZero();
        assertThat(noPassword.out).contains("no password supplied").doesNotContain("from-the-cluster");

        Result guessed = psqlAsAttacker(cluster, List.of("-h", "127.0.0.1", "-p", String.valueOf(cluster.port())),
                Map.of("PGPASSWORD", "postgres"));
        assertThat(guessed.status).as(guessed.out).isNotZero();
        assertThat(guessed.out).contains("password authentication failed for user \"" + TestCluster.SUPERUSER + "\"")
                .doesNotContain("from-the-cluster");

        Result control = psqlAsAttacker(cluster, List.of("-h", "127.0.0.1", "-p", String.valueOf(cluster.port())),
                Map.of("PGPASSWORD", cluster.password()));
        assertThat(control.status).as("with the password the same user and psql get in: " + control.out).isZero();
        assertThat(control.out).contains("from-the-cluster");
    }

    @Test
    void anotherLocalUserCannotReachTheUnixSocket() throws Exception {
        TestCluster cluster = TestCluster.get();
        Result viaSocket = psqlAsAttacker(cluster, List.of("-h", cluster.socketDirectory().toString(), "-p",
                String.valueOf(cluster.port())), Map.of("PGPASSWORD", cluster.password()));
        assertThat(viaSocket.status).as(viaSocket.out).isNotZero();
        assertThat(viaSocket.out).contains("Permission denied").doesNotContain("from-the-cluster");
    }

    private static Result psqlAsAttacker(TestCluster cluster, List<String> where, Map<String, String> env)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups",
                cluster.binary("psql").toString(), "-w", "-X", "-At"));
        command.addAll(where);
        command.addAll(List.of("-U", TestCluster.SUPERUSER, "-d", "postgres", "-c", "select 'from-the-cluster'"));
        return run(command, env);
    }

    private record Result(int status, String out) {
    }

    private static Result run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).directory(Path.of("/").toFile());
        // nothing of ours (a PGPASSWORD, a .pgpass under our HOME) may reach the attacker's psql
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        pb.environment().put("HOME", "/nonexistent");
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
