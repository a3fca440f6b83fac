package dev.codeagent.jupyter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CellCommandTest {

    @Test
    void plainPythonAndOtherKernelsMagicsGoToTheSession() {
        assertThat(CellCommand.parse("x = 1\nprint(x)")).isEqualTo(new CellCommand.Code("x = 1\nprint(x)"));
        // IPython's own magics and shell escapes are the sandboxed kernel's business
        assertThat(CellCommand.parse("%timeit sum(range(10))")).isInstanceOf(CellCommand.Code.class);
        assertThat(CellCommand.parse("%%time\nx = 1")).isInstanceOf(CellCommand.Code.class);
        assertThat(CellCommand.parse("!ls")).isInstanceOf(CellCommand.Code.class);
        assertThat(CellCommand.parse("%solver")).isInstanceOf(CellCommand.Code.class);
        assertThat(CellCommand.parse("")).isEqualTo(new CellCommand.Code(""));
    }

    @Test
    void solveTakesItsBodyAsTheTaskAndItsOptions() {
        CellCommand c = CellCommand.parse("\n%%solve --attempts 2 --expected-output='6\\n' --language=python\n"
                + "Print the sum of 1, 2 and 3.\n");
        assertThat(c).isEqualTo(new CellCommand.Solve(
                Map.of("attempts", "2", "expected-output", "6\\n", "language", "python"), "Print the sum of 1, 2 and 3."));
        assertThat(((CellCommand.Solve) c).options().keySet()).containsExactly("attempts", "expected-output", "language");
    }

    @Test
    void wrongSolveOptionsAreOneReadableLine() {
        assertThatThrownBy(() -> CellCommand.parse("%%solve --tries 3\ntask"))
                .isInstanceOf(CellCommand.MagicException.class)
                .hasMessageStartingWith("%%solve: unknown option --tries; options are --attempts N");
        assertThatThrownBy(() -> CellCommand.parse("%%solve --attempts\ntask"))
                .hasMessage("%%solve: --attempts needs a value: --attempts N (at most N generations)");
        assertThatThrownBy(() -> CellCommand.parse("%%solve --attempts 2 --attempts 3\ntask"))
                .hasMessage("%%solve: --attempts is given twice");
        assertThatThrownBy(() -> CellCommand.parse("%%solve 3\ntask")).hasMessageStartingWith("%%solve: unexpected '3'");
        assertThatThrownBy(() -> CellCommand.parse("%%solve\n   \n")).hasMessageStartingWith("%%solve: the cell holds no task");
        assertThatThrownBy(() -> CellCommand.parse("%%solve --stdin 'open\ntask")).hasMessageStartingWith("unclosed '");
    }

    @Test
    void testsKeepTheirBody() {
        assertThat(CellCommand.parse("%%tests\nassert f(1) == 2\n\n")).isEqualTo(new CellCommand.Tests("assert f(1) == 2\n"));
        assertThatThrownBy(() -> CellCommand.parse("%%tests\n")).hasMessageStartingWith("%%tests: the cell holds no tests");
        assertThatThrownBy(() -> CellCommand.parse("%%tests --x\nassert 1")).hasMessageStartingWith("%%tests takes no options");
    }

    @Test
    void lineMagicsStandInACellOfTheirOwn() {
        assertThat(CellCommand.parse("%limits timeout=5s memory=256m\n# a comment\n%runs 3")).isEqualTo(
                new CellCommand.LineMagics(List.of(new CellCommand.Line("limits", List.of("timeout=5s", "memory=256m")),
                        new CellCommand.Line("runs", List.of("3")))));
        assertThatThrownBy(() -> CellCommand.parse("%sandbox docker\nx = 1"))
                .isInstanceOf(CellCommand.MagicException.class)
                .hasMessageContaining("move 'x = 1' to another cell");
    }

    @Test
    void wordsSplitLikeAShell() {
        assertThat(CellCommand.words("a 'b c' \"d \\\" e\" f\\ g")).containsExactly("a", "b c", "d \" e", "f g");
    }
}
