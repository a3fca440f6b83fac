package dev.codeagent.domain.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProgramTest {

    @Test
    void rejectsNulByteNamingItsOffset() {
        assertThatThrownBy(() -> new Program(Language.PYTHON, "print(1)\0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NUL byte at offset 8");
    }

    @Test
    void rejectsFileNamesThatEscapeTheWorkDir() {
        for (String bad : new String[] {"../x", "/etc/passwd", "a/../../b", ".hidden", "a//b", "a/.b", ""}) {
            assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of(bad, "x")))
                    .as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aDeepOrLongPathIsRejectedWithoutOverflowingTheStack() {
        assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of("a/".repeat(5000) + "b", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a plain relative path");
        assertThat(new Program(Language.PYTHON, "", Map.of("a/".repeat(100) + "b", "x")).files()).hasSize(1);
    }

    @Test
    void rejectsAFileThatWouldOverwriteTheMainSource() {
        assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of("main.py", "x")))
                .hasMessageContaining("clashes");
    }

    @Test
    void acceptsNestedPlainNames() {
        Program p = new Program(Language.PYTHON, "import pkg.util", Map.of("pkg/util.py", "X = 1", "data.txt", "d"));
        assertThat(p.files()).containsOnlyKeys("pkg/util.py", "data.txt");
        assertThat(p.mainFileName()).isEqualTo("main.py");
    }

    @Test
    void sizeCountsUtf8BytesOfEverything() {
        Program p = new Program(Language.PYTHON, "é€😀", Map.of("a.txt", "ab"));
        assertThat(p.sizeBytes()).isEqualTo(2 + 3 + 4 + 2);
    }

    @Test
    void languageIsFoundByIdAliasAndExtension() {
        assertThat(Language.fromId("Python3")).contains(Language.PYTHON);
        assertThat(Language.fromId("node")).contains(Language.JAVASCRIPT);
        assertThat(Language.fromId("cobol")).isEmpty();
        assertThat(Language.fromFileName("x/y.SH")).contains(Language.BASH);
        assertThat(Language.fromFileName("README")).isEmpty();
    }

    @Test
    void aNamedMainSourceKeepsItsNameByTheSameRulesAsTheOtherFiles() {
        assertThat(new Program(Language.PYTHON, "", Map.of()).mainFileName()).isEqualTo("main.py");
        assertThat(new Program(Language.PYTHON, "", Map.of("main.py", "x"), "solution.py").mainFileName()).isEqualTo("solution.py");
        assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of(), "../escape.py"))
                .hasMessageContaining("not a plain relative path");
        assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of(), "/etc/passwd"))
                .hasMessageContaining("not a plain relative path");
        assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of("solution.py", "x"), "solution.py"))
                .hasMessageContaining("clashes with the main source");
    }

    @Test
    void binaryFilesAreBase64ByTheSameNamingRulesAndCountTheirBytes() {
        Program p = new Program(Language.PYTHON, "é", Map.of("a.txt", "ab"), null, Map.of("b.bin", "AAEC", "c.bin", "AA"));
        assertThat(p.sizeBytes()).as("2 (é) + 2 + 3 + 1").isEqualTo(8);
        assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of(), null, Map.of("x.bin", "not base64!")))
                .hasMessageContaining("content of binary file 'x.bin' is not base64");
        assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of("x", "t"), null, Map.of("x", "AA==")))
                .hasMessageContaining("'x' is given twice");
        assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of(), null, Map.of("main.py", "AA==")))
                .hasMessageContaining("'main.py' is given twice");
        assertThatThrownBy(() -> new Program(Language.PYTHON, "", Map.of(), null, Map.of("../x", "AA==")))
                .hasMessageContaining("not a plain relative path");
    }
}
