package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code codeagent eval --queue}: the samples are judged by {@code codeagent worker} processes over a real PostgreSQL,
 * each started by the real launcher, and the command gathers the report a local evaluation gives. A worker killed
 * with SIGKILL mid-evaluation loses its samples to another; an interrupted evaluation leaves nothing for the workers.
 * {@code codeagent exec --queue} runs one program, interpreted or compiled, on a worker.
 */
@Tag("slow")
class QueuedExecutionsIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<LaunchedWorker> workers = new ArrayList<>();

    @AfterEach
    void stopWorkers() throws Exception {
        for (LaunchedWorker w : workers) {
            w.stop();
        }
    }

    @Test
    void anEvaluationOnTheWorkersReportsWhatALocalOneDoesAndSpreadsOverThem() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        Path config = config(db);
        List<JsonNode> problems = problems(16);
        Path problemsFile = write("problems.jsonl", problems);
        List<JsonNode> samples = new ArrayList<>();
        for (int i = 0; i < problems.size(); i++) {
            JsonNode p = problems.get(i);
            samples.add(sample(p, p.get("canonical_solution").asText()));
            samples.add(sample(p, "    return None\n"));
            samples.add(sample(p, "    return (\n"));
            if (i % 8 == 0) {
                samples.add(sample(p, "    while True:\n        pass\n"));
            }
        }
        Path samplesFile = write("samples.jsonl", samples);
        LaunchedWorker a = start(config, "worker-a");
        LaunchedWorker b = start(config, "worker-b");

        Result queued = eval(config, "queued", "--problems", problemsFile.toString(), "--samples", samplesFile.toString(),
                "--timeout", "1s", "--json", "--out", dir.resolve("queued.jsonl").toString(), "--queue");
        Result local = eval(config, "local", "--problems", problemsFile.toString(), "--samples", samplesFile.toString(),
                "--timeout", "1s", "--json", "--out", dir.resolve("local.jsonl").toString(), "--sandbox", "process");
        assertThat(queued.status).as(queued.err).isEqualTo(local.status).isZero();
        JsonNode q = JSON.readTree(queued.out);
        JsonNode l = JSON.readTree(local.out);
        assertThat(q.get("total").asInt()).isEqualTo(samples.size());
        assertThat(q.get("passed").asInt()).isEqualTo(l.get("passed").asInt()).isEqualTo(problems.size());
        assertThat(q.get("verdicts")).isEqualTo(l.get("verdicts"));
        assertThat(q.get("verdicts").get("TIME_LIMIT_EXCEEDED").asInt()).isEqualTo(2);
        assertThat(q.get("sandbox").asText()).isEqualTo("queue");
        assertThat(perSample(dir.resolve("queued.jsonl"))).isEqualTo(perSample(dir.resolve("local.jsonl")));

        double byA = a.value("codeagent_worker_executions_worked_total");
        double byB = b.value("codeagent_worker_executions_worked_total");
        assertThat(byA + byB).as("each sample run once").isEqualTo(samples.size());
        assertThat(byA).as("work spread over the workers").isPositive();
        assertThat(byB).as("work spread over the workers").isPositive();
        assertThat(rows(db)).as("nothing left in the queue").isZero();
    }

    @Test
    void aWorkerKilledMidEvaluationLosesItsSamplesToAnotherAndNoneIsLost() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        Path config = config(db);
        List<JsonNode> problems = problems(6);
        List<JsonNode> samples = new ArrayList<>();
        for (JsonNode p : problems) {
            // slow enough that the first worker is killed while it holds some (once, as the module loads)
            samples.add(sample(p, p.get("canonical_solution").asText() + "\n\nimport time\ntime.sleep(1.5)\n"));
        }
        LaunchedWorker first = start(config, "first");
        Process eval = LaunchedWorker.launch(dir, config, "eval", "eval", "--problems", write("p.jsonl", problems).toString(),
                "--samples", write("s.jsonl", samples).toString(), "--timeout", "5s", "--json", "--queue");
        first.awaitAtLeast("codeagent_worker_execution_claims_total", 1);
        Process kill = new ProcessBuilder("kill", "-KILL", Long.toString(first.process().pid())).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).isTrue();
        assertThat(first.process().waitFor(10, TimeUnit.SECONDS)).isTrue();

        LaunchedWorker second = start(config, "second");
        assertThat(eval.waitFor(120, TimeUnit.SECONDS)).as("the evaluation ends").isTrue();
        Result r = new Result(eval.exitValue(), Files.readString(dir.resolve("eval.out")), Files.readString(dir.resolve("eval.err")));
        assertThat(r.status).as(r.err).isZero();
        JsonNode report = JSON.readTree(r.out);
        assertThat(report.get("passed").asInt()).as(r.out).isEqualTo(samples.size());
        assertThat(second.value("codeagent_worker_execution_takeovers_total")).as("taken over after a lost lease").isPositive();
        assertThat(rows(db)).isZero();
    }

    @Test
    void anInterruptedEvaluationLeavesNothingForTheWorkers() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        Path config = config(db);
        List<JsonNode> problems = problems(4);
        List<JsonNode> samples = new ArrayList<>();
        for (JsonNode p : problems) {
            samples.add(sample(p, p.get("canonical_solution").asText()));
        }
        // no worker yet: the samples wait in the queue
        Process eval = LaunchedWorker.launch(dir, config, "eval", "eval", "--problems", write("p.jsonl", problems).toString(),
                "--samples", write("s.jsonl", samples).toString(), "--json", "--queue");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (rows(db) < samples.size() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(rows(db)).as("queued").isEqualTo(samples.size());
        // the launcher exec()s the JVM: this pid is the JVM, which gets SIGINT as from a terminal's Ctrl-C
        new ProcessBuilder("kill", "-INT", Long.toString(eval.pid())).start().waitFor(10, TimeUnit.SECONDS);
        assertThat(eval.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(eval.exitValue()).isNotZero();
        assertThat(rows(db)).as("withdrawn as it stopped").isZero();

        LaunchedWorker late = start(config, "late");
        Thread.sleep(1500);
        assertThat(late.value("codeagent_worker_execution_claims_total")).as("nothing left to run").isZero();
    }

    @Test
    void execOnTheQueueRunsOneProgramOnAWorkerCompiledOrNot() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        Path config = config(db);
        LaunchedWorker worker = start(config, "worker");
        Path py = Files.writeString(dir.resolve("answer.py"), "import sys\nprint(6 * 7, sys.argv[1:])\n");
        Result r = command(config, "exec-py", "exec", "--queue", "--json", py.toString());
        assertThat(r.status).as(r.err).isZero();
        JsonNode e = JSON.readTree(r.out);
        assertThat(e.get("stdout").asText()).isEqualTo("42 []\n");
        assertThat(e.get("sandbox").asText()).as("the worker's tier, not the queue").isEqualTo("process");

        Path c = Files.writeString(dir.resolve("exit.c"), "#include <stdio.h>\nint main(void) { puts(\"from C\"); return 3; }\n");
        Result rc = command(config, "exec-c", "exec", "--queue", c.toString());
        assertThat(rc.status).as("the program's own status: " + rc.err).isEqualTo(3);
        assertThat(rc.out).isEqualTo("from C\n");
        assertThat(worker.value("codeagent_worker_executions_worked_total")).isEqualTo(2);
        assertThat(rows(db)).isZero();
    }

    /** {@code --queue} is a shorthand: {@code sandbox.kind: queue} set any other way sends the program to a worker too. */
    @Test
    void sandboxKindQueueIsWhatTheFlagSaysAndAWorkerRefusesIt() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        Path config = config(db);
        Result refused = command(config, "worker-on-queue", "worker", "--sandbox", "queue", "--exit-when-idle");
        assertThat(refused.status).as(refused.err).isEqualTo(2);
        assertThat(refused.err).isEqualTo("codeagent: sandbox.kind: queue: a worker runs programs in a sandbox of its own;"
                + " set sandbox.kind: process or docker\n");

        LaunchedWorker worker = start(config, "worker");
        Path py = Files.writeString(dir.resolve("answer.py"), "print(6 * 7)\n");
        Result r = command(config, "exec-kind", "exec", "--sandbox", "queue", "--json", py.toString());
        assertThat(r.status).as(r.err).isZero();
        JsonNode e = JSON.readTree(r.out);
        assertThat(e.get("stdout").asText()).isEqualTo("42\n");
        assertThat(e.get("sandbox").asText()).as("the worker's tier, not the queue").isEqualTo("process");
        assertThat(worker.value("codeagent_worker_executions_worked_total")).isEqualTo(1);
        assertThat(rows(db)).isZero();
    }

    private Path config(PostgresStoreConfig db) throws Exception {
        // the schema, before any command of the test looks at the queue's table
        dev.codeagent.store.postgres.PostgresStore.open(db).close();
        return TestCluster.writePrivate(dir.resolve("config.yaml"), "store:\n  kind: postgres\n  postgres:\n"
                + "    jdbcUrl: " + db.jdbcUrl() + "\n    user: " + db.user() + "\n    password: '" + db.password() + "'\n"
                + "    heartbeat: 200ms\n    leaseTimeout: 1s\n"
                + "sandbox:\n  kind: process\n  maxConcurrent: 2\n");
    }

    private LaunchedWorker start(Path config, String name) throws Exception {
        LaunchedWorker w = LaunchedWorker.start(dir, config, name);
        workers.add(w);
        return w;
    }

    private static List<JsonNode> problems(int n) throws Exception {
        Path data = Path.of(System.getenv().getOrDefault("CODEAGENT_DATA", "../../shared/data")).toAbsolutePath().normalize();
        Path humanEval = data.resolve("HumanEval.jsonl");
        Assumptions.assumeTrue(Files.isRegularFile(humanEval), humanEval + " is not here");
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(humanEval).subList(0, n)) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    private static JsonNode sample(JsonNode problem, String completion) {
        ObjectNode s = JSON.createObjectNode();
        s.put("task_id", problem.get("task_id").asText());
        s.put("completion", completion);
        return s;
    }

    private Path write(String name, List<JsonNode> lines) throws Exception {
        StringBuilder b = new StringBuilder();
        for (JsonNode l : lines) {
            b.append(JSON.writeValueAsString(l)).append('\n');
        }
        return Files.writeString(dir.resolve(name), b);
    }

    /** Each sample's verdict by task and index: what must not depend on where it ran. */
    private static Map<String, String> perSample(Path out) throws Exception {
        Map<String, String> by = new TreeMap<>();
        for (String line : Files.readAllLines(out)) {
            JsonNode r = JSON.readTree(line);
            by.put(r.get("task_id").asText() + "#" + r.get("sample").asText(),
                    r.get("passed").asText() + " " + r.get("verdict").asText() + " " + r.get("outcome").asText());
        }
        return by;
    }

    private static int rows(PostgresStoreConfig db) throws Exception {
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM executions")) {
            r.next();
            return r.getInt(1);
        }
    }

    private Result eval(Path config, String name, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("eval"));
        all.addAll(List.of(args));
        return command(config, name, all.toArray(String[]::new));
    }

    /** A command through the real launcher, waited for. */
    private Result command(Path config, String name, String... args) throws Exception {
        Process p = LaunchedWorker.launch(dir, config, name, args);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as(name + " ends").isTrue();
        return new Result(p.exitValue(), Files.readString(dir.resolve(name + ".out")), Files.readString(dir.resolve(name + ".err")));
    }

    private record Result(int status, String out, String err) {
    }
}
