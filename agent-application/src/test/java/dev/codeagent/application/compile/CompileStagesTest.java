package dev.codeagent.application.compile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.CapturedOutput;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The two stages' requests and how their results combine; the stages themselves run in each tier's ITs. */
class CompileStagesTest {

    private static final String ELF = Base64.getEncoder().encodeToString(new byte[] {0x7f, 'E', 'L', 'F', 0, 1});
    private final List<ExecutionRequest> stages = new ArrayList<>();

    private Execution run(ExecutionRequest request, Execution compiled, Execution ran) {
        return CompileStages.execute(request, r -> {
            stages.add(r);
            return stages.size() == 1 ? compiled : ran;
        }, ScriptedSandbox.ISOLATION);
    }

    private static ExecutionRequest c(String source) {
        return new ExecutionRequest(new Program(Language.C, source), "input\n", List.of("a b", "it's"), ResourceLimits.defaults());
    }

    @Test
    void compilesUnderTheCompileLimitsThenRunsWhatWasBuiltUnderTheRunLimits() {
        ResourceLimits compile = ResourceLimits.compileDefaults().withWallTime(Duration.ofSeconds(7));
        ExecutionRequest request = c("int main(){return 0;}").withCompileLimits(compile);
        Execution e = run(request, ScriptedSandbox.exited(0, "main\n" + ELF + "\n", "a warning\n"),
                ScriptedSandbox.exited(3, "out", "err"));

        assertThat(e.exitCode()).isEqualTo(3);
        assertThat(e.stdout().text()).isEqualTo("out");
        assertThat(e.compile().stderr().text()).isEqualTo("a warning\n");
        assertThat(e.compile().stdout().text()).as("the built program's bytes are not the compiler's output").isEmpty();

        ExecutionRequest compileStage = stages.get(0);
        assertThat(compileStage.limits()).isEqualTo(compile);
        assertThat(compileStage.program().language()).isEqualTo(Language.BASH);
        assertThat(compileStage.program().files()).containsEntry("main.c", "int main(){return 0;}");
        assertThat(compileStage.program().source()).contains("'gcc'").contains("'main.c'").contains(" >&2");
        assertThat(compileStage.stdin()).isEmpty();

        ExecutionRequest runStage = stages.get(1);
        assertThat(runStage.limits()).isEqualTo(ResourceLimits.defaults());
        assertThat(runStage.stdin()).isEqualTo("input\n");
        assertThat(runStage.args()).containsExactly("a b", "it's");
        assertThat(runStage.program().binaryFiles()).containsEntry("codeagent-build/main", ELF);
        assertThat(runStage.program().source()).endsWith("exec 'codeagent-build/main' \"$@\"\n");
    }

    @Test
    void failedCompileNeverRunsAndSaysWhere() {
        Execution e = run(c("int main(){ return x; }"), ScriptedSandbox.exited(1, "",
                "main.c: In function 'main':\nmain.c:1:20: error: 'x' undeclared\n"), null);
        assertThat(stages).hasSize(1);
        assertThat(e.outcome()).isEqualTo(Outcome.COMPILATION_ERROR);
        assertThat(e.detail()).isEqualTo("compilation failed: main.c:1:20: 'x' undeclared");
        assertThat(e.compile().exitCode()).isEqualTo(1);
    }

    @Test
    void compileLimitIsACompilationErrorNamingTheLimit() {
        Execution e = run(c("x"), ScriptedSandbox.ended(Outcome.TIME_LIMIT, "wall time"), null);
        assertThat(e.outcome()).isEqualTo(Outcome.COMPILATION_ERROR);
        assertThat(e.detail()).startsWith("the compiler ran out of time");
        assertThat(e.compile().outcome()).isEqualTo(Outcome.TIME_LIMIT);
    }

    @Test
    void sandboxFailureInTheCompileStageIsTheSandboxs() {
        Execution e = run(c("x"), ScriptedSandbox.ended(Outcome.SANDBOX_ERROR, "engine gone"), null);
        assertThat(e.outcome()).isEqualTo(Outcome.SANDBOX_ERROR);
        assertThat(e.compile()).isNotNull();
    }

    /** The compile stage's stdout is checked, never trusted: names stay in the output dir, content is base64. */
    @Test
    void builtFilesAreCheckedBeforeTheyCross() {
        assertThat(CompileStages.builtFiles(new CapturedOutput("main\n" + ELF + "\n", false))).contains(Map.of("main", ELF));
        for (String bad : List.of("../main\n" + ELF + "\n", "/etc/x\n" + ELF + "\n", "main\nnot base64!\n", "main\n",
                "", ".hidden\n" + ELF + "\n", "a/b\n" + ELF + "\n", "main\n" + ELF + "\nmain\n" + ELF + "\n")) {
            assertThat(CompileStages.builtFiles(new CapturedOutput(bad, false))).as(bad).isEmpty();
        }
        assertThat(CompileStages.builtFiles(new CapturedOutput("main\n" + ELF + "\n", true))).as("cut short").isEmpty();
        Execution e = run(c("x"), ScriptedSandbox.exited(0, "../../x\n" + ELF + "\n", ""), null);
        assertThat(e.outcome()).isEqualTo(Outcome.COMPILATION_ERROR);
        assertThat(stages).hasSize(1);
    }

    @Test
    void aFileNamedAsAStageScriptIsRefused() {
        ExecutionRequest request = new ExecutionRequest(new Program(Language.C, "x", Map.of("codeagent-run.sh", "")), "",
                ResourceLimits.defaults());
        Execution e = run(request, null, null);
        assertThat(e.outcome()).isEqualTo(Outcome.POLICY_VIOLATION);
        assertThat(stages).isEmpty();
    }

    @Test
    void javaCompilesUnderItsClassNameAndRunsThatClass() {
        String source = "import java.util.*;\nclass Helper {}\npublic class Solution {\n  public static void main(String[] a) {}\n}\n";
        ExecutionRequest request = new ExecutionRequest(new Program(Language.JAVA, source), "", ResourceLimits.defaults());
        run(request, ScriptedSandbox.exited(0, "classes.tar\n" + ELF + "\n", ""), ScriptedSandbox.exited(0, "", ""));
        assertThat(stages.get(0).program().files()).containsKey("Solution.java");
        assertThat(stages.get(1).program().source()).contains("'Solution'").contains("tar -xf");
        assertThat(LanguageProfile.of(Language.JAVA).mainClass("class A { }\nclass B { static void main(String[] x) {} }"))
                .isEqualTo("B");
        assertThat(LanguageProfile.of(Language.JAVA).mainClass("int x;")).isEqualTo("Main");
        String packaged = "package demo.tools;\npublic class App { public static void main(String[] a) {} }\n";
        assertThat(LanguageProfile.of(Language.JAVA).mainClass(packaged)).isEqualTo("demo.tools.App");
        assertThat(CompileStages.mainFile(new Program(Language.JAVA, packaged), LanguageProfile.of(Language.JAVA)))
                .isEqualTo("App.java");
    }

    @Test
    void extraSourcesAreCompiledWithTheMainFileAndOthersAreNot() {
        ExecutionRequest request = new ExecutionRequest(new Program(Language.C, "int main(){}",
                Map.of("util.c", "int u;", "util.h", "int u;", "data.txt", "1")), "", ResourceLimits.defaults());
        run(request, ScriptedSandbox.exited(0, "main\n" + ELF + "\n", ""), ScriptedSandbox.exited(0, "", ""));
        assertThat(stages.get(0).program().source()).contains("'main.c' 'util.c' '-lm'").doesNotContain("'util.h'")
                .doesNotContain("data.txt");
        assertThat(stages.get(1).program().files()).containsKeys("data.txt", "util.h");
    }
}
