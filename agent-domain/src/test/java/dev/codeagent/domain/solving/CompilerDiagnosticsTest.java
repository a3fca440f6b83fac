package dev.codeagent.domain.solving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.CompilerDiagnostics.Diagnostic;
import org.junit.jupiter.api.Test;

/** What Debian 12's compilers print, verbatim (gcc 12, g++ 12, go 1.19, rustc 1.63, javac 17). */
class CompilerDiagnosticsTest {

    @Test
    void gccErrorAfterItsFunctionLine() {
        String stderr = """
                e1.c: In function ‘main’:
                e1.c:3:3: error: expected ‘,’ or ‘;’ before ‘return’
                    3 |   return y;
                      |   ^~~~~~
                """;
        assertThat(CompilerDiagnostics.firstError(stderr))
                .contains(new Diagnostic("e1.c", 3, 3, "expected ‘,’ or ‘;’ before ‘return’"));
    }

    @Test
    void warningsBeforeTheErrorAreSkipped() {
        String stderr = """
                e3.cpp: In function ‘int main()’:
                e3.cpp:2:22: warning: unused variable ‘u’ [-Wunused-variable]
                    2 | int main(){ unsigned u = -1; int x = "a"; }
                      |                      ^
                e3.cpp:2:38: error: invalid conversion from ‘const char*’ to ‘int’ [-fpermissive]
                """;
        Diagnostic d = CompilerDiagnostics.firstError(stderr).orElseThrow();
        assertThat(d.line()).isEqualTo(2);
        assertThat(d.column()).isEqualTo(38);
        assertThat(d.summary()).isEqualTo("e3.cpp:2:38: invalid conversion from ‘const char*’ to ‘int’ [-fpermissive]");
    }

    @Test
    void linkerErrorNamesNoPlace() {
        String stderr = """
                /usr/bin/ld: /tmp/ccw1OpNZ.o: in function `main':
                e2.c:(.text+0x5): undefined reference to `f'
                collect2: error: ld returned 1 exit status
                """;
        Diagnostic d = CompilerDiagnostics.firstError(stderr).orElseThrow();
        assertThat(d.file()).isNull();
        assertThat(d.summary()).isEqualTo("e2.c:(.text+0x5): undefined reference to `f'");
    }

    @Test
    void goErrorHasNoErrorWord() {
        String stderr = "# command-line-arguments\n./e4.go:4:14: undefined: x\n";
        assertThat(CompilerDiagnostics.firstError(stderr)).contains(new Diagnostic("e4.go", 4, 14, "undefined: x"));
    }

    @Test
    void rustcPlaceIsOnTheArrowLine() {
        String stderr = """
                error[E0308]: mismatched types
                 --> e5.rs:2:18
                  |
                2 |     let x: i32 = "s";
                  |            ---   ^^^ expected `i32`, found `&str`

                error: aborting due to previous error
                """;
        assertThat(CompilerDiagnostics.firstError(stderr)).contains(new Diagnostic("e5.rs", 2, 18, "mismatched types"));
    }

    @Test
    void javacColumnComesFromItsCaret() {
        String stderr = """
                Main.java:3: error: cannot find symbol
                    int x = y;
                            ^
                  symbol:   variable y
                  location: class Main
                1 error
                """;
        assertThat(CompilerDiagnostics.firstError(stderr)).contains(new Diagnostic("Main.java", 3, 13, "cannot find symbol"));
    }

    @Test
    void nothingThatSaysErrorIsNoDiagnostic() {
        assertThat(CompilerDiagnostics.firstError("Killed\n")).isEmpty();
        assertThat(CompilerDiagnostics.firstError("")).isEmpty();
    }
}
