package dev.codeagent.application.compile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.codeagent.application.sandbox.HostProbe;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * What every tier owes a compiled language (C, C++, Java, Go, Rust), under the decorator the composition puts over it
 * ({@link CompilingSandbox}): a compile stage with its own limits and result, then the program with the run's limits,
 * its stdin and arguments, and its real exit status or signal; the tier alone refuses the program. On a CI
 * machine the languages must be there (.ci/run installs the toolchains and the image carries them); elsewhere a
 * tier without a toolchain skips its language.
 */
public abstract class CompiledLanguagesContractTest {

    /** The sandbox under test (the tier itself); may return the same instance on every call. */
    protected abstract Sandbox sandbox();

    /** The tier as the composition gives it to every door: compiling compiled languages. */
    private Sandbox compiling() {
        return CompilingSandbox.over(sandbox());
    }

    /** Time a tier may take beyond a wall limit to kill and clean up a run. */
    protected Duration slack() {
        return Duration.ofSeconds(3);
    }

    /**
     * Processes of the run still alive after it, by a marker in their argv; the tiers whose processes the host
     * cannot see (gVisor) ask their own kernel.
     */
    protected List<?> survivors(String marker) {
        return HostProbe.survivors(marker, Duration.ZERO);
    }

    private void require(Language language) {
        if (System.getenv("CI") != null) {
            assertThat(sandbox().languages()).as("CI installs every toolchain").contains(language);
        }
        assumeThat(sandbox().languages()).contains(language);
    }

    private static String why(Execution e) {
        return e.outcome() + " (" + e.detail() + "), exit " + e.exitCode() + ", signal " + e.signal() + ", stderr: "
                + e.stderr().text() + (e.compile() == null ? "" : ", compiler: " + e.compile().stderr().text());
    }

    private static final Map<Language, String> ECHO = Map.of(
            Language.C, """
                    #include <stdio.h>
                    int main(int argc, char **argv) {
                        char line[64];
                        if (!fgets(line, sizeof line, stdin)) return 3;
                        printf("c %s %d %s", argv[1], argc - 1, line);
                        return 0;
                    }
                    """,
            Language.CPP, """
                    #include <iostream>
                    #include <string>
                    int main(int argc, char **argv) {
                        std::string line;
                        std::getline(std::cin, line);
                        std::cout << "cpp " << argv[1] << " " << argc - 1 << " " << line << std::endl;
                    }
                    """,
            Language.JAVA, """
                    import java.util.Scanner;
                    public class Echo {
                        public static void main(String[] args) {
                            String line = new Scanner(System.in).nextLine();
                            System.out.println("java " + args[0] + " " + args.length + " " + line);
                        }
                    }
                    """,
            Language.GO, """
                    package main
                    import ("bufio"; "fmt"; "os")
                    func main() {
                        line, _ := bufio.NewReader(os.Stdin).ReadString('\\n')
                        fmt.Printf("go %s %d %s", os.Args[1], len(os.Args)-1, line)
                    }
                    """,
            Language.RUST, """
                    use std::io::BufRead;
                    fn main() {
                        let args: Vec<String> = std::env::args().collect();
                        let line = std::io::stdin().lock().lines().next().unwrap().unwrap();
                        println!("rust {} {} {}", args[1], args.len() - 1, line);
                    }
                    """);

    @ParameterizedTest
    @EnumSource(value = Language.class, names = {"C", "CPP", "JAVA", "GO", "RUST"})
    void theTierAloneRefusesACompiledProgramRatherThanRunItsSource(Language language) {
        require(language);
        ExecutionRequest request = new ExecutionRequest(new Program(language, ECHO.get(language)), "a line\n",
                List.of("first arg", "2"), ResourceLimits.defaults());
        assertThatThrownBy(() -> sandbox().execute(request)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(language.id() + " is compiled").hasMessageContaining("CompilingSandbox");
    }

    @ParameterizedTest
    @EnumSource(value = Language.class, names = {"C", "CPP", "JAVA", "GO", "RUST"})
    void compilesAndRunsWithStdinAndArguments(Language language) {
        require(language);
        Execution e = compiling().execute(new ExecutionRequest(new Program(language, ECHO.get(language)), "a line\n",
                List.of("first arg", "2"), ResourceLimits.defaults()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo(language.id() + " first arg 2 a line\n");
        assertThat(e.compile()).as("the compile stage's own result").isNotNull();
        assertThat(e.compile().outcome()).isEqualTo(Outcome.OK);
        assertThat(e.compile().exitCode()).isZero();
        assertThat(e.compile().stdout().text()).as("what was built is not shown as output").isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = Language.class, names = {"C", "CPP", "JAVA", "GO", "RUST"})
    void codeThatDoesNotCompileNeverRunsAndTheCompilerSaysWhere(Language language) {
        require(language);
        String broken = switch (language) {
            case JAVA -> "public class Main {\n  public static void main(String[] a) {\n    int x = undefinedName;\n  }\n}\n";
            case GO -> "package main\n\nfunc main() {\n\tundefinedName()\n}\n";
            case RUST -> "fn main() {\n    let x: i32 = 1;\n    undefined_name(x);\n}\n";
            default -> "int main(void) {\n  int x = 1;\n  return undefined_name(x) + ;\n}\n";
        };
        Execution e = compiling().execute(new ExecutionRequest(new Program(language, broken), "", ResourceLimits.defaults()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.COMPILATION_ERROR);
        assertThat(e.exitCode()).as("the program never ran").isNull();
        assertThat(e.stdout().text()).isEmpty();
        assertThat(e.compile().exitCode()).isNotZero();
        assertThat(e.detail()).as(why(e)).startsWith("compilation failed: ").containsPattern(":[34]:");
    }

    @Test
    void exitStatusAndSignalAreTheProgramsOwn() {
        require(Language.C);
        Execution exited = compiling().execute(new ExecutionRequest(new Program(Language.C,
                "int main(void) { return 137; }"), "", ResourceLimits.defaults()));
        assertThat(exited.exitCode()).as(why(exited)).isEqualTo(137);
        assertThat(exited.signal()).isNull();
        Execution killed = compiling().execute(new ExecutionRequest(new Program(Language.C,
                "#include <signal.h>\nint main(void) { raise(SIGSEGV); return 0; }"), "", ResourceLimits.defaults()));
        assertThat(killed.outcome()).as(why(killed)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(killed.signal()).isEqualTo(11);
        assertThat(killed.exitCode()).isNull();
    }

    @Test
    void theRunStageHasTheRunsLimits() {
        require(Language.C);
        ResourceLimits limits = ResourceLimits.defaults().withWallTime(Duration.ofSeconds(2)).withMemoryBytes(64 * ResourceLimits.MIB);
        Execution spin = compiling().execute(new ExecutionRequest(new Program(Language.C,
                "int main(void) { volatile unsigned long i = 0; for (;;) i++; }"), "", limits));
        assertThat(spin.outcome()).as(why(spin)).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(spin.wallTime()).isLessThan(limits.wallTime().plus(slack()));
        Execution hog = compiling().execute(new ExecutionRequest(new Program(Language.C, """
                #include <stdlib.h>
                #include <string.h>
                int main(void) {
                    for (int i = 0; i < 64; i++) { char *p = malloc(16 << 20); if (!p) return 7; memset(p, 1, 16 << 20); }
                    return 0;
                }
                """), "", limits));
        assertThat(hog.outcome()).as(why(hog)).isIn(Outcome.MEMORY_LIMIT);
    }

    /**
     * A constant expression that would take minutes (each loop under g++'s iteration limit, the whole under its
     * operations limit): the compile stage's own time limit ends it, not the run's.
     */
    @Test
    void theCompileStageHasItsOwnLimits() {
        require(Language.CPP);
        ResourceLimits compile = ResourceLimits.compileDefaults().withWallTime(Duration.ofSeconds(3));
        Execution e = compiling().execute(new ExecutionRequest(new Program(Language.CPP, """
                constexpr long spin() {
                    long s = 0;
                    for (long i = 0; i < 200000; i++) for (long j = 0; j < 200000; j++) s += (i ^ j) % 7;
                    return s;
                }
                static_assert(spin() != 1, "");
                int main() {}
                """), "", List.of(), ResourceLimits.defaults(), null, compile));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.COMPILATION_ERROR);
        assertThat(e.compile().outcome()).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(e.compile().wallTime()).isLessThan(compile.wallTime().plus(slack()));
        assertThat(e.detail()).startsWith("the compiler ran out of time");
    }

    /**
     * Hostile input to a trusted tool: a source that makes the compiler read an endless file. The compile stage's
     * memory limit ends it (gcc asks for ever more), the program never runs, and nothing of the stage survives it.
     */
    @Test
    void aCompilerFedAnEndlessIncludeIsStoppedByTheCompileLimits() {
        require(Language.C);
        String marker = HostProbe.marker("endless-include");
        ResourceLimits compile = ResourceLimits.compileDefaults().withMemoryBytes(256 * ResourceLimits.MIB)
                .withWallTime(Duration.ofSeconds(10));
        // the marker is an extra source: on the compiler driver's command line while it runs
        Execution e = compiling().execute(new ExecutionRequest(new Program(Language.C,
                "#include \"/dev/zero\"\nint main(void) { return 0; }\n", Map.of(marker + ".c", "int unused;\n")), "",
                List.of(), ResourceLimits.defaults(), null, compile));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.COMPILATION_ERROR);
        assertThat(e.compile().outcome()).as(why(e)).isIn(Outcome.MEMORY_LIMIT, Outcome.RUNTIME_ERROR, Outcome.TIME_LIMIT);
        assertThat(e.compile().wallTime()).isLessThan(compile.wallTime().plus(slack()));
        assertThat(survivors(marker)).as("nothing of the stage is left").isEmpty();
    }

    @Test
    void extraSourcesAndHeadersAreCompiledTogether() {
        require(Language.C);
        Execution e = compiling().execute(new ExecutionRequest(new Program(Language.C,
                "#include <stdio.h>\n#include \"util.h\"\nint main(void) { printf(\"%d\\n\", twice(21)); return 0; }\n",
                Map.of("util.h", "int twice(int);\n", "util.c", "int twice(int x) { return 2 * x; }\n")), "",
                ResourceLimits.defaults()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("42\n");
    }
}
