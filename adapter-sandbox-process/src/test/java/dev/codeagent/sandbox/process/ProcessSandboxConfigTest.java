package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcessSandboxConfigTest {

    @Test
    void theZygoteForksAnEvaluationsSamplesUnlessToldOtherwise() {
        assertThat(ProcessSandboxConfig.defaults().zygoteMode()).isEqualTo("batch");
        assertThat(ProcessSandboxConfig.defaults().withZygote("all").zygoteMode()).isEqualTo("all");
        assertThat(new ProcessSandboxConfig(null, null, null, "/tmp", "off").zygoteMode()).isEqualTo("off");
    }

    @Test
    void theDefaultModeIsWrittenOutSoTheShownConfigSaysBatchNotNull() {
        assertThat(ProcessSandboxConfig.defaults().zygote()).isEqualTo("batch");
        assertThat(new ProcessSandboxConfig(null, null, null, null, null).zygote()).isEqualTo("batch");
    }

    @Test
    void anUnknownZygoteModeIsRefusedNamingTheKeyAndTheChoices() {
        assertThatThrownBy(() -> new ProcessSandboxConfig(null, null, null, null, "sometimes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sandbox.process.zygote").hasMessageContaining("[batch, all, off]")
                .hasMessageContaining("'sometimes'");
    }
}
