package dev.codeagent.application.host;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HostNamesTest {

    @Test
    void aHostHeaderLosesItsPortCaseAndTrailingDot() {
        assertThat(HostNames.of("LocalHost.:8080")).isEqualTo("localhost");
        assertThat(HostNames.of("[::1]:80")).isEqualTo("[::1]");
        assertThat(HostNames.of("::1")).isEqualTo("[::1]");
        assertThat(HostNames.of(" 127.0.0.1 ")).isEqualTo("127.0.0.1");
    }

    @Test
    void onlyNamesNoPageControlsAreAnswered() {
        assertThat(HostNames.noPageControls("localhost", "127.0.0.1")).isTrue();
        assertThat(HostNames.noPageControls("app.localhost", "127.0.0.1")).isTrue();
        assertThat(HostNames.noPageControls("10.1.2.3", "127.0.0.1")).isTrue();
        assertThat(HostNames.noPageControls("[::1]", "127.0.0.1")).isTrue();
        assertThat(HostNames.noPageControls("box.internal", "box.internal")).isTrue();
        assertThat(HostNames.noPageControls("evil.example", "127.0.0.1")).isFalse();
        assertThat(HostNames.noPageControls("localhost.evil.example", "127.0.0.1")).isFalse();
        assertThat(HostNames.noPageControls("127.0.0.1.nip.io", "127.0.0.1")).isFalse();
    }
}
