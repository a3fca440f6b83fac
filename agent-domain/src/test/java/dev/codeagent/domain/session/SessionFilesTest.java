package dev.codeagent.domain.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SessionFilesTest {

    @Test
    void plainRelativePathsPass() {
        assertThat(SessionFiles.requireRelative("data/in.csv")).isEqualTo("data/in.csv");
        assertThat(SessionFiles.requireRelative(".hidden")).isEqualTo(".hidden");
        assertThat(SessionFiles.requireRelative("ünï côdé.txt")).isEqualTo("ünï côdé.txt");
    }

    @Test
    void pathsThatLeaveOrConfuseTheWorkingDirectoryAreRefusedNamingTheRule() {
        for (String bad : new String[] {"", "/etc/passwd", "../x", "a/../../x", "a//b", "a/./b", "a/", "a\\b", "a\u0000b",
            "x".repeat(256), "a/".repeat(600) + "b"}) {
            assertThatThrownBy(() -> SessionFiles.requireRelative(bad)).as(bad)
                    .isInstanceOfSatisfying(SessionFileException.class,
                            e -> assertThat(e.reason()).isEqualTo(SessionFileException.Reason.INVALID));
        }
        assertThatThrownBy(() -> SessionFiles.requireRelative("../x")).hasMessageContaining("'..'");
    }
}
