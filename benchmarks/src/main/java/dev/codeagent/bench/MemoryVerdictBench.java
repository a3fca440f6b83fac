package dev.codeagent.bench;

import dev.codeagent.application.compile.CompilingSandbox;
import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.sandbox.MemoryHogs;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.sandbox.docker.DockerSandbox;
import dev.codeagent.sandbox.docker.DockerSandboxConfig;
import dev.codeagent.sandbox.process.ProcessSandbox;
import dev.codeagent.sandbox.process.ProcessSandboxConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The verdict a contest user expects of a program that touches 1 GiB under {@code --memory 256m --timeout 2s}
 * ({@link MemoryHogs}), per tier and language: how many runs ended MEMORY_LIMIT (and what else), and the time from the
 * breach to the end of the run. The breach is bounded by the hog's last step line (its memory was under the limit
 * then, and its next 8 MiB step crossed it); the end is when {@code execute} returned, so the figure is an upper bound
 * on breach→kill that also holds the tier's clean-up after the kill (for docker, the container's removal). The
 * breach is also watched from outside: the first moment a run's control group (process tier or container) stood at
 * its limit, read from the host's cgroupfs every few milliseconds; the earlier of the two is taken, since a group
 * held at its limit before the hog's last line was already thrashing in reclaim.
 *
 * <p>Usage: {@code MemoryVerdictBench [runs] [tiers]} (defaults 5 and {@code process,process-cold,runc,runsc}); the
 * image is {@code $CODEAGENT_SANDBOX_IMAGE} or {@code codeagent-sandbox:latest}. A tier the host cannot run is skipped
 * with its reason.
 */
public final class MemoryVerdictBench {

    private static final ResourceLimits LIMITS = ResourceLimits.defaults().withMemoryBytes(256 * ResourceLimits.MIB)
            .withWallTime(Duration.ofSeconds(2));

    private static final GroupBreaches BREACHES = new GroupBreaches();

    private MemoryVerdictBench() {
    }

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        List<String> tiers = List.of((args.length > 1 ? args[1] : "process,process-cold,runc,runsc").split(","));
        String image = System.getenv().getOrDefault("CODEAGENT_SANDBOX_IMAGE", "codeagent-sandbox:latest");
        System.out.printf(Locale.ROOT, "memory verdict: 1 GiB touched in 8 MiB steps under memory %d MiB, wall %s, cpu %s;"
                + " %d runs per cell, %d cores%n", LIMITS.memoryBytes() / ResourceLimits.MIB, LIMITS.wallTime(),
                LIMITS.cpuTime(), runs, Runtime.getRuntime().availableProcessors());
        System.out.println("breach: the hog's last line under the limit, or its group first at its hard limit if earlier;"
                + " b->k: to the group emptied (the kill, seen from the host); b->e: to execute()'s return (clean-up included)");
        System.out.printf(Locale.ROOT, "%-13s %-11s %-30s %9s %9s %9s %9s %9s %9s %6s%n", "tier", "language", "outcomes",
                "b->k p50", "b->k max", "b->e p50", "b->e max", "wall p50", "wall max", "steps");
        for (String tier : tiers) {
            Sandbox sandbox;
            try {
                sandbox = open(tier, image);
            } catch (RuntimeException e) {
                System.out.printf(Locale.ROOT, "%-13s skipped: %s%n", tier, e.getMessage());
                continue;
            }
            try (Sandbox s = sandbox) {
                BREACHES.only(s instanceof DockerSandbox d ? d.ownerId() : null);
                Sandbox compiling = CompilingSandbox.over(s);
                for (Language language : MemoryHogs.LANGUAGES) {
                    if (!s.languages().contains(language)) {
                        System.out.printf(Locale.ROOT, "%-13s %-11s not in this tier%n", tier, language.id());
                        continue;
                    }
                    measure(tier, compiling, language, runs);
                }
            }
        }
    }

    private static Sandbox open(String tier, String image) {
        return switch (tier) {
            case "process" -> new ProcessSandbox(ProcessSandboxConfig.defaults(), IsolationMode.BEST_EFFORT);
            case "process-cold" -> new ProcessSandbox(ProcessSandboxConfig.defaults(), IsolationMode.BEST_EFFORT, 0);
            case "runc", "runsc" -> DockerSandbox.create(new DockerSandboxConfig(null, image, 2, 1.0, ByteSize.ofMiB(64), tier),
                    LIMITS, IsolationMode.BEST_EFFORT);
            default -> throw new IllegalArgumentException("unknown tier '" + tier + "' (process, process-cold, runc, runsc)");
        };
    }

    private static void measure(String tier, Sandbox sandbox, Language language, int runs) {
        Map<String, Integer> outcomes = new TreeMap<>();
        List<Long> breachToEnd = new ArrayList<>();
        List<Long> breachToKill = new ArrayList<>();
        long[] walls = new long[runs];
        int maxSteps = 0;
        for (int i = 0; i < runs; i++) {
            final int run = i;
            long begin = System.currentTimeMillis();
            BREACHES.arm();
            Execution e = sandbox.execute(new ExecutionRequest(MemoryHogs.program(language), "", LIMITS));
            long end = System.currentTimeMillis();
            long groupBreach = BREACHES.first();
            long killed = Math.min(BREACHES.released(), end);
            if (System.getenv("MEMORY_VERDICT_TRACE") != null) {
                MemoryHogs.firstAndLast(e.stdout().text()).ifPresent(st -> System.out.printf(Locale.ROOT,
                        "  %s %s run %d: call->first step %d ms, first->last step %d ms (%d steps), last->return %d ms,"
                        + " group at limit->return %s ms, group emptied->return %d ms, wall %d ms%n",
                        tier, language.id(), run, st[0].epochMillis() - begin, st[1].epochMillis() - st[0].epochMillis(),
                        st[1].index() + 1, end - st[1].epochMillis(), groupBreach == Long.MAX_VALUE ? "-" : end - groupBreach,
                        end - killed,
                        e.wallTime().toMillis()));
            }
            String key = e.outcome().name();
            if (e.outcome() != Outcome.MEMORY_LIMIT) {
                // a wrong verdict is the finding: say what the run showed
                System.out.printf(Locale.ROOT, "  %s %s run %d: %s (%s) exit %s signal %s%n", tier, language.id(), i, e.outcome(),
                        e.detail(), e.exitCode(), e.signal());
            }
            outcomes.merge(key, 1, Integer::sum);
            walls[i] = e.wallTime().toNanos();
            Optional<MemoryHogs.Step[]> steps = MemoryHogs.firstAndLast(e.stdout().text());
            if (steps.isPresent() || groupBreach != Long.MAX_VALUE) {
                // the earlier of the two: a group held at its limit before the last step was thrashing already
                long breach = Math.min(groupBreach, steps.map(st -> st[1].epochMillis()).orElse(Long.MAX_VALUE));
                breachToEnd.add((end - breach) * 1_000_000);
                breachToKill.add((killed - breach) * 1_000_000);
            }
            if (steps.isPresent()) {
                maxSteps = Math.max(maxSteps, steps.get()[1].index() + 1);
            }
        }
        long[] b = breachToEnd.stream().mapToLong(Long::longValue).toArray();
        long[] k = breachToKill.stream().mapToLong(Long::longValue).toArray();
        System.out.printf(Locale.ROOT, "%-13s %-11s %-30s %9s %9s %9s %9s %9.0f %9.0f %6d%n", tier, language.id(), outcomes(outcomes),
                ms(k, 50), ms(k, 100), ms(b, 50), ms(b, 100),
                Latencies.pct(walls, 50), Arrays.stream(walls).max().getAsLong() / 1e6, maxSteps);
    }

    /** The p-th percentile in ms, or "-" when there is none. */
    private static String ms(long[] nanos, int p) {
        return nanos.length == 0 ? "-" : String.format(Locale.ROOT, "%.0f", Latencies.pct(nanos, p));
    }

    private static String outcomes(Map<String, Integer> counts) {
        StringBuilder s = new StringBuilder();
        counts.forEach((k, v) -> s.append(s.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return s.toString();
    }
}
