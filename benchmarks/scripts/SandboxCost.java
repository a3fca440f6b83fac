import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.lang.reflect.Constructor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One round of the HumanEval references, the tests appended to each program (the workload the self-test ran
 * before the split judge), through whichever build's process tier is on the classpath; prints the wall time in
 * ms and how many were OK. Run as a single-file program by sandbox-cost.sh against two builds, so that one
 * source measures both: the sandbox is made by reflection (its config and mode types moved between builds).
 *
 * <p>Arguments: {@code HumanEval.jsonl WORKERS}.
 */
public class SandboxCost {

    public static void main(String[] args) throws Exception {
        List<ExecutionRequest> requests = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode p = json.readTree(line);
            requests.add(new ExecutionRequest(new Program(Language.PYTHON, p.get("prompt").asText()
                    + p.get("canonical_solution").asText() + "\n\n" + p.get("test").asText() + "\ncheck("
                    + p.get("entry_point").asText() + ")\n"), "", ResourceLimits.defaults()));
        }
        int workers = Integer.parseInt(args[1]);
        try (AutoCloseable sandbox = (AutoCloseable) processSandbox()) {
            Sandbox s = (Sandbox) sandbox;
            s.execute(requests.get(0));
            ExecutorService pool = Executors.newFixedThreadPool(workers);
            long t0 = System.nanoTime();
            List<Future<Execution>> runs = new ArrayList<>();
            for (ExecutionRequest r : requests) {
                runs.add(pool.submit(() -> s.execute(r)));
            }
            int ok = 0;
            for (Future<Execution> f : runs) {
                ok += f.get().outcome() == Outcome.OK ? 1 : 0;
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            pool.shutdown();
            System.out.println(ms + " " + ok + "/" + requests.size());
        }
    }

    private static Object processSandbox() throws Exception {
        Class<?> type = Class.forName("dev.codeagent.sandbox.process.ProcessSandbox");
        for (Constructor<?> c : type.getConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 2 && p[0].getSimpleName().equals("ProcessSandboxConfig") && p[1].isEnum()) {
                Object config = p[0].getConstructor(String.class, String.class, String.class, String.class)
                        .newInstance(null, null, null, null);
                @SuppressWarnings({"unchecked", "rawtypes"})
                Object mode = Enum.valueOf((Class) p[1], "BEST_EFFORT");
                return c.newInstance(config, mode);
            }
        }
        throw new IllegalStateException("no ProcessSandbox(ProcessSandboxConfig, IsolationMode) on the classpath");
    }
}
