package dev.codeagent.jupyter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CompletenessTest {

    @Test
    void aConsoleKnowsWhenToSendTheCellAndHowToIndentTheNextLine() {
        assertThat(Completeness.of("x = 1")).isEqualTo("complete");
        assertThat(Completeness.of("print('a:')  # done:")).isEqualTo("complete");
        assertThat(Completeness.of("def f(x):")).isEqualTo("    ");
        assertThat(Completeness.of("def f(x):\n    if x:")).isEqualTo("        ");
        assertThat(Completeness.of("def f(x):\n    return x")).isEqualTo("    ");
        assertThat(Completeness.of("def f(x):\n    return x\n")).isEqualTo("complete");
        assertThat(Completeness.of("xs = [1,\n  2")).isEqualTo("");
        assertThat(Completeness.of("s = '''open")).isEqualTo("");
        assertThat(Completeness.of("s = '''open\nclosed'''")).isEqualTo("complete");
        assertThat(Completeness.of("y = 1 + \\")).isEqualTo("");
        assertThat(Completeness.of("%%solve\nwrite f")).isEqualTo("");
        assertThat(Completeness.of("%%solve\nwrite f\n")).isEqualTo("complete");
        assertThat(Completeness.of("")).isEqualTo("complete");
    }
}
