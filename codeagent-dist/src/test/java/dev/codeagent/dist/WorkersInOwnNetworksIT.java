package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.store.postgres.PostgresStore;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers as close to separate machines as one host allows: each {@code codeagent worker} in a network namespace of
 * its own, reaching the database only over its link (its loopback is its own), while the evaluation that queues the
 * work runs here. The samples are spread over both and the report is whole. Runs as root (CI); skipped otherwise,
 * except under {@code CI=true}.
 */
@Tag("slow")
class WorkersInOwnNetworksIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<LaunchedWorker> workers = new ArrayList<>();
    private final List<NetworkNamespace> namespaces = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (LaunchedWorker w : workers) {
            w.stop();
        }
        namespaces.forEach(NetworkNamespace::close);
    }

    @Test
    void workersInTheirOwnNetworksShareAnEvaluationQueuedHere() throws Exception {
        String why = NetworkNamespace.unavailable();
        if ("true".equals(System.getenv("CI"))) {
            assertThat(why).as("under CI the workers get network namespaces").isNull();
        }
        Assumptions.assumeTrue(why == null, why);
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        PostgresStore.open(db).close(); // the schema
        Matcher url = Pattern.compile("jdbc:postgresql://127\\.0\\.0\\.1:(\\d+)/(\\w+)").matcher(db.jdbcUrl());
        assertThat(url.matches()).as(db.jdbcUrl()).isTrue();
        int port = Integer.parseInt(url.group(1));
        Path here = config("here.yaml", db.jdbcUrl(), db);

        for (int i = 1; i <= 2; i++) {
            NetworkNamespace ns = NetworkNamespace.create(i);
            namespaces.add(ns);
            // as on another machine: the database host's loopback is not this one's
            NetworkNamespace.Result direct = ns.run("/usr/bin/python3", "-c",
                    "import socket; socket.create_connection(('127.0.0.1', " + port + "), 2)");
            assertThat(direct.status()).as("the database is not on the worker's loopback: " + direct.output()).isNotZero();
            int forwarded = ns.forward(port);
            Path there = config("worker" + i + ".yaml",
                    "jdbc:postgresql://" + ns.hostAddress() + ":" + forwarded + "/" + url.group(2), db);
            workers.add(LaunchedWorker.start(ns.prefix(), ns.innerAddress(), dir, there, "worker" + i));
        }

        List<String> problems = humanEval(12);
        Path problemsFile = Files.write(dir.resolve("problems.jsonl"), problems);
        Process eval = LaunchedWorker.launch(dir, here, "eval", "eval", "--problems", problemsFile.toString(),
                "--json", "--queue", "--timeout", "5s");
        assertThat(eval.waitFor(180, TimeUnit.SECONDS)).as("the evaluation ends").isTrue();
        String out = Files.readString(dir.resolve("eval.out"));
        assertThat(eval.exitValue()).as(Files.readString(dir.resolve("eval.err"))).isZero();
        JsonNode report = JSON.readTree(out);
        assertThat(report.get("passed").asInt()).as(out).isEqualTo(problems.size());
        double first = workers.get(0).value("codeagent_worker_executions_worked_total");
        double second = workers.get(1).value("codeagent_worker_executions_worked_total");
        assertThat(first + second).isEqualTo(problems.size());
        assertThat(first).as("work spread over both networks").isPositive();
        assertThat(second).as("work spread over both networks").isPositive();
    }

    private Path config(String name, String jdbcUrl, PostgresStoreConfig db) throws Exception {
        return TestCluster.writePrivate(dir.resolve(name), "store:\n  kind: postgres\n  postgres:\n"
                + "    jdbcUrl: " + jdbcUrl + "\n    user: " + db.user() + "\n    password: '" + db.password() + "'\n"
                + "    heartbeat: 200ms\n    leaseTimeout: 2s\n"
                + "sandbox:\n  kind: process\n  maxConcurrent: 2\n");
    }

    private static List<String> humanEval(int n) throws Exception {
        Path data = Path.of(System.getenv().getOrDefault("CODEAGENT_DATA", "../../shared/data")).toAbsolutePath().normalize();
        Path file = data.resolve("HumanEval.jsonl");
        Assumptions.assumeTrue(Files.isRegularFile(file), file + " is not here");
        return Files.readAllLines(file).subList(0, n);
    }
}
