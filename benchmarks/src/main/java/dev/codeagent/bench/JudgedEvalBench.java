package dev.codeagent.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.sandbox.process.ProcessSandbox;
import dev.codeagent.sandbox.process.ProcessSandboxConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The 164 HumanEval reference solutions through the process tier, judged two ways in one run: as before the
 * sound judge (one program: prompt, solution, the tests appended, run in one sandbox) and with it (the code in
 * the candidate's sandbox, the tests in a child the batch's judge server forks). Same sandbox, same workers, rounds interleaved; prints
 * the wall time of each round and the ratio of the medians. Target (issue 12): at most 1.5x.
 *
 * <p>Arguments: {@code HumanEval.jsonl [ROUNDS] [WORKERS]}.
 */
public final class JudgedEvalBench {

    private JudgedEvalBench() {
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args.length > 0 ? args[0] : "../shared/data/HumanEval.jsonl");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> problems = new ArrayList<>();
        for (String line : Files.readAllLines(data, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                problems.add(json.readTree(line));
            }
        }
        ResourceLimits limits = ResourceLimits.defaults();
        Function<JsonNode, ExecutionRequest> appended = p -> new ExecutionRequest(new Program(Language.PYTHON,
                p.get("prompt").asText() + p.get("canonical_solution").asText() + "\n\n" + p.get("test").asText()
                        + "\ncheck(" + p.get("entry_point").asText() + ")\n"), "", List.of(), limits);
        Function<JsonNode, ExecutionRequest> judged = p -> new ExecutionRequest(new Program(Language.PYTHON,
                p.get("prompt").asText() + p.get("canonical_solution").asText()), "", List.of(), limits,
                new JudgeJob(p.get("test").asText() + "\ncheck(" + p.get("entry_point").asText() + ")\n",
                        p.get("prompt").asText(), List.of(p.get("entry_point").asText())).inBatch("humaneval"));
        System.out.printf(Locale.ROOT, "HumanEval references through the process tier: %d problems, %d workers, %d rounds, %d cores%n",
                problems.size(), workers, rounds, Runtime.getRuntime().availableProcessors());
        List<Long> before = new ArrayList<>();
        List<Long> after = new ArrayList<>();
        try (ProcessSandbox sandbox = new ProcessSandbox(ProcessSandboxConfig.defaults(), IsolationMode.BEST_EFFORT)) {
            ExecutorService pool = Executors.newFixedThreadPool(workers);
            round(sandbox, pool, problems, appended, false);
            for (int r = 0; r < rounds; r++) {
                before.add(round(sandbox, pool, problems, appended, false));
                after.add(round(sandbox, pool, problems, judged, true));
                System.out.printf(Locale.ROOT, "round %d: tests appended %.2f s, split judge %.2f s%n", r + 1,
                        before.get(r) / 1e9, after.get(r) / 1e9);
            }
            pool.shutdown();
        }
        double b = median(before);
        double a = median(after);
        System.out.printf(Locale.ROOT, "median: tests appended %.2f s, split judge %.2f s, ratio %.2fx (target at most 1.5x)%n",
                b / 1e9, a / 1e9, a / b);
    }

    private static long round(Sandbox sandbox, ExecutorService pool, List<JsonNode> problems,
            Function<JsonNode, ExecutionRequest> request, boolean judged) throws Exception {
        AtomicInteger passed = new AtomicInteger();
        long start = System.nanoTime();
        List<Future<?>> all = new ArrayList<>();
        for (JsonNode p : problems) {
            all.add(pool.submit(() -> {
                Execution e = sandbox.execute(request.apply(p));
                boolean ok = e.ok() && (!judged || (e.judgement() != null && e.judgement().passed()));
                if (ok) {
                    passed.incrementAndGet();
                }
            }));
        }
        for (Future<?> f : all) {
            f.get();
        }
        long took = System.nanoTime() - start;
        if (passed.get() != problems.size()) {
            System.out.printf(Locale.ROOT, "  (%s: %d of %d passed)%n", judged ? "split judge" : "tests appended", passed.get(),
                    problems.size());
        }
        return took;
    }

    private static double median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        s.sort(null);
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2.0;
    }
}
