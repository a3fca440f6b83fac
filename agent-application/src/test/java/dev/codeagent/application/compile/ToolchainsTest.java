package dev.codeagent.application.compile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.ResourceLimits;
import org.junit.jupiter.api.Test;

/** The interpreters moved here from the domain's {@code LanguageProfile}, with the assertions they had there. */
class ToolchainsTest {

    @Test
    void everyLanguageHasACommandToStartIt() {
        for (Language l : Language.values()) {
            assertThat(Toolchains.command(l)).isNotBlank();
            assertThat(Toolchains.interpreter(l).isPresent()).isNotEqualTo(LanguageProfile.of(l).compiled());
        }
        assertThat(Toolchains.command(Language.PYTHON)).isEqualTo("python3");
        assertThat(Toolchains.command(Language.C)).isEqualTo("gcc");
    }

    @Test
    void theInterpreterArgumentsAreTheSameForEveryTier() {
        ResourceLimits limits = ResourceLimits.defaults().withMemoryBytes(256L * 1024 * 1024);
        assertThat(Toolchains.interpreterArgs(Language.PYTHON, limits)).containsExactly("-B", "-E", "-s", "-u");
        assertThat(Toolchains.interpreterArgs(Language.JAVASCRIPT, limits)).containsExactly("--max-old-space-size=192");
        assertThat(Toolchains.interpreterArgs(Language.BASH, limits)).isEmpty();
        assertThat(Toolchains.interpreterArgs(Language.JAVA, limits)).isEmpty();
    }
}
