package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FileNamesTest {

    @Test
    void acceptsPlainRelativePaths() {
        assertThat(FileNames.problem(List.of("data.txt", "pkg/util.py", "a-b_c.1/d", "x/y/z.json"))).isNull();
    }

    @Test
    void refusesEscapesHiddenNamesAndOddCharacters() {
        for (String bad : List.of("../x", "a/../b", "/etc/passwd", ".env", "a/.git", "a//b", "a/", "", "a\u0000b", "a b", "a\\b",
                "\u00e9", "a:b")) {
            assertThat(FileNames.problem(bad)).as(bad).isNotNull();
        }
    }

    @Test
    void boundsLengthDepthAndCountWithoutRecursing() {
        assertThat(FileNames.problem("a".repeat(255))).isNull();
        assertThat(FileNames.problem("a".repeat(256))).contains("255");
        assertThat(FileNames.problem(String.join("/", Collections.nCopies(16, "d")))).isNull();
        assertThat(FileNames.problem(String.join("/", Collections.nCopies(17, "d")))).contains("deep");
        // a name this deep overflowed the stack in a regular expression
        assertThat(FileNames.problem(String.join("/", Collections.nCopies(200_000, "a")))).contains("1024");
        List<String> many = IntStream.range(0, 1001).mapToObj(i -> "f" + i).collect(Collectors.toList());
        assertThat(FileNames.problem(many)).contains("1000");
    }

    @Test
    void refusesANameThatIsBothAFileAndADirectory() {
        assertThat(FileNames.problem(List.of("a/b/c", "a/b"))).contains("'a/b' is both a file and the directory of 'a/b/c'");
        assertThat(FileNames.problem(List.of("ab", "a/b"))).isNull();
    }
}
