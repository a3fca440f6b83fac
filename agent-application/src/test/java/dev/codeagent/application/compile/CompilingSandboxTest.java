package dev.codeagent.application.compile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LiveExecution;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The decorator's routing: what it compiles, what it hands to the tier as it is, and what a live run and a run per
 * input see. The stages' contents are {@link CompileStagesTest}'s; real tiers run them in their ITs.
 */
class CompilingSandboxTest {

    private static final String ELF = Base64.getEncoder().encodeToString(new byte[] {0x7f, 'E', 'L', 'F'});

    /** A tier that answers stages in turn: the compile stage builds, every later stage exits 0 with its stdin. */
    private final ScriptedSandbox tier = new ScriptedSandbox(r -> r.program().mainFileName().equals("codeagent-compile.sh")
            ? ScriptedSandbox.exited(0, "main\n" + ELF + "\n", "a warning\n")
            : ScriptedSandbox.exited(0, "ran with " + r.stdin(), ""));

    private static ExecutionRequest c(String stdin) {
        return new ExecutionRequest(new Program(Language.C, "int main(){}"), stdin, List.of(), ResourceLimits.defaults());
    }

    @Test
    void anInterpretedOrJudgedProgramReachesTheTierAsItIs() {
        Sandbox compiling = CompilingSandbox.over(tier);
        ExecutionRequest python = ExecutionRequest.of(Language.PYTHON, "print(1)");
        ExecutionRequest judged = new ExecutionRequest(new Program(Language.PYTHON, "def f(): return 1"), "", List.of(),
                ResourceLimits.defaults(), JudgeJob.of("assert f() == 1"));
        compiling.execute(python);
        compiling.execute(judged);
        assertThat(tier.requests()).containsExactly(python, judged);
    }

    @Test
    void aCompiledProgramIsItsTwoStagesThroughTheTier() {
        Execution e = CompilingSandbox.over(tier).execute(c("in\n"));
        assertThat(e.stdout().text()).isEqualTo("ran with in\n");
        assertThat(e.compile().stderr().text()).isEqualTo("a warning\n");
        assertThat(tier.requests()).extracting(r -> r.program().language()).containsExactly(Language.BASH, Language.BASH);
    }

    @Test
    void itIsNeverPutOnTwice() {
        Sandbox once = CompilingSandbox.over(tier);
        assertThat(CompilingSandbox.over(once)).isSameAs(once);
        assertThat(((CompilingSandbox) once).wrapped()).isSameAs(tier);
        once.execute(c(""));
        assertThat(tier.requests()).as("a compile stage and a run stage, not four").hasSize(2);
    }

    /** The workers' queue hands programs whole to workers whose own composition compiles them. */
    @Test
    void aSandboxThatCompilesElsewhereIsLeftAsItIs() {
        CompilingSandbox.CompiledElsewhere queue = new CompiledElsewhereTier(tier);
        assertThat(CompilingSandbox.over(queue)).isSameAs(queue);
    }

    /** As the workers' queue: programs go whole to a sandbox that compiles them there. */
    private static final class CompiledElsewhereTier extends LiveTier implements CompilingSandbox.CompiledElsewhere {
        CompiledElsewhereTier(ScriptedSandbox worker) {
            super(worker);
        }
    }

    @Test
    void eachInputCompilesOnceAndRunsWhatWasBuiltWithEveryInput() {
        CompilingSandbox compiling = (CompilingSandbox) CompilingSandbox.over(tier);
        Iterator<Execution> runs = compiling.eachInput(c(""), List.of("1\n", "2\n", "3\n"), compiling::execute);
        List<String> outputs = new ArrayList<>();
        runs.forEachRemaining(e -> outputs.add(e.stdout().text()));
        assertThat(outputs).containsExactly("ran with 1\n", "ran with 2\n", "ran with 3\n");
        assertThat(tier.requests()).as("one compile stage, three run stages").hasSize(4);
        assertThat(tier.requests().get(0).program().mainFileName()).isEqualTo("codeagent-compile.sh");
    }

    @Test
    void eachInputOfAProgramThatDoesNotCompileIsTheFailureWithNoRun() {
        ScriptedSandbox broken = new ScriptedSandbox(r -> ScriptedSandbox.exited(1, "", "main.c:1:1: error: nope\n"));
        CompilingSandbox compiling = (CompilingSandbox) CompilingSandbox.over(broken);
        Iterator<Execution> runs = compiling.eachInput(c(""), List.of("1\n", "2\n"), compiling::execute);
        assertThat(runs.next().outcome()).isEqualTo(Outcome.COMPILATION_ERROR);
        assertThat(runs.next().outcome()).isEqualTo(Outcome.COMPILATION_ERROR);
        assertThat(broken.requests()).hasSize(1);
    }

    @Test
    void aLiveCompiledProgramIsCompiledFirstThenWhatWasBuiltStartsLive() {
        LiveTier live = new LiveTier(tier);
        List<String> heard = new ArrayList<>();
        LiveExecution started = CompilingSandbox.over(live).start(c(""), new LiveExecution.Listener() {
            @Override
            public void output(int stream, String text) {
                heard.add("output " + text);
            }

            @Override
            public void compiled(Execution compileStage, boolean built) {
                heard.add("compiled " + built + " " + compileStage.stderr().text().strip());
            }
        });
        assertThat(heard).containsExactly("compiled true a warning");
        assertThat(live.started).hasSize(1);
        assertThat(live.started.get(0).program().language()).isEqualTo(Language.BASH);
        assertThat(live.started.get(0).program().binaryFiles()).containsEntry("codeagent-build/main", ELF);
        Execution e = started.await();
        assertThat(e.compile()).as("the compile stage rides on the run's result, as for execute").isNotNull();
    }

    @Test
    void aLiveProgramThatDoesNotCompileNeverStarts() {
        LiveTier live = new LiveTier(new ScriptedSandbox(r -> ScriptedSandbox.exited(1, "", "main.c:1:1: error: nope\n")));
        boolean[] built = {true};
        LiveExecution started = CompilingSandbox.over(live).start(c(""), new LiveExecution.Listener() {
            @Override
            public void output(int stream, String text) {
            }

            @Override
            public void compiled(Execution compileStage, boolean ok) {
                built[0] = ok;
            }
        });
        assertThat(built[0]).isFalse();
        assertThat(live.started).isEmpty();
        assertThat(started.await().outcome()).isEqualTo(Outcome.COMPILATION_ERROR);
    }

    /** A tier that starts live runs: records what it started, which ends at once with its scripted answer. */
    private static class LiveTier implements Sandbox {
        private final ScriptedSandbox stages;
        final List<ExecutionRequest> started = new ArrayList<>();

        LiveTier(ScriptedSandbox stages) {
            this.stages = stages;
        }

        @Override
        public String tier() {
            return stages.tier();
        }

        @Override
        public Set<Language> languages() {
            return stages.languages();
        }

        @Override
        public Isolation isolation() {
            return stages.isolation();
        }

        @Override
        public Execution execute(ExecutionRequest request) {
            return stages.execute(request);
        }

        @Override
        public LiveExecution start(ExecutionRequest request, LiveExecution.Listener listener) {
            started.add(request);
            return CompilingSandbox.ended(stages.execute(request));
        }

        @Override
        public void close() {
        }
    }
}
