package dev.codeagent.domain.execution;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LanguageProfileTest {

    @Test
    void everyLanguageHasAProfileNamedByItsOwnIds() {
        for (Language l : Language.values()) {
            LanguageProfile p = LanguageProfile.of(l);
            assertThat(p.language()).isEqualTo(l);
            assertThat(p.namedBy(l.id())).isTrue();
            assertThat(p.fenceTag()).isEqualTo(l.id());
        }
        assertThat(LanguageProfile.of(Language.PYTHON).namedBy("python3.12")).isTrue();
        assertThat(LanguageProfile.of(Language.PYTHON).namedBy("javascript")).isFalse();
        assertThat(LanguageProfile.of(Language.JAVASCRIPT).namedBy("node18")).isTrue();
        assertThat(LanguageProfile.of(Language.BASH).namedBy("shell")).isTrue();
    }

    @Test
    void thePromptPromisesTestsThatCallTheCodeFromAnotherProcess() {
        assertThat(LanguageProfile.TESTS_PROMISE).contains("separate process").doesNotContain("appended");
        assertThat(LanguageProfile.TESTS_HEADING).doesNotContain("appended");
    }

    @Test
    void eachRuntimeSaysOutOfMemoryInItsOwnWords() {
        assertThat(LanguageProfile.of(Language.PYTHON).saysOutOfMemory("Traceback...\nMemoryError\n")).isTrue();
        assertThat(LanguageProfile.of(Language.PYTHON).saysOutOfMemory("ValueError: MemoryError mentioned\n")).isFalse();
        assertThat(LanguageProfile.of(Language.JAVASCRIPT).saysOutOfMemory(
                "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory")).isTrue();
        assertThat(LanguageProfile.of(Language.BASH).saysOutOfMemory("bash: xmalloc: cannot allocate 10 bytes")).isTrue();
    }
}
