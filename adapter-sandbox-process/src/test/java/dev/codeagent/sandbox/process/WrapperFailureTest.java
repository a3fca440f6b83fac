package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WrapperFailureTest {

    @Test
    void aWrapperThatCouldNotStartLooksLikeASandboxFailure() {
        assertThat(WrapperFailure.detail(1, "", "bwrap: Can't mount proc on /newroot/proc: Operation not permitted"))
                .hasValueSatisfying(d -> assertThat(d).startsWith(WrapperFailure.DETAIL).contains("Can't mount proc"));
        assertThat(WrapperFailure.detail(127, "", "/usr/bin/time: cannot run /usr/bin/python3.11: No such file or directory"))
                .isPresent();
        assertThat(WrapperFailure.detail(125, "", "codeagent-boot: OSError(28, 'No space left on device')")).isPresent();
    }

    @Test
    void otherwiseTheFailureIsTheProgramsOwn() {
        assertThat(WrapperFailure.detail(2, "", "bwrap: the program printed this itself")).isEmpty();
        assertThat(WrapperFailure.detail(1, "some output", "bwrap: after printing")).isEmpty();
        assertThat(WrapperFailure.detail(0, "", "bwrap: but exited 0")).isEmpty();
        assertThat(WrapperFailure.detail(null, "", "bwrap: killed by a signal")).isEmpty();
        assertThat(WrapperFailure.detail(1, "", "Traceback (most recent call last):")).isEmpty();
    }

    @Test
    void statusesAbove128AreSignals() {
        assertThat(Child.signalOf(137)).isEqualTo(9);
        assertThat(Child.signalOf(152)).isEqualTo(24);
        assertThat(Child.signalOf(1)).isNull();
        assertThat(Child.signalOf(128)).isNull();
        assertThat(Child.signalOf(200)).isNull();
    }
}
