package dev.codeagent.kit.store.jdbc;


import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.solving.Attempt;
import org.junit.jupiter.api.Test;

class RunJsonIsolationTest {

    private final RunJson json = new RunJson();

    @Test
    void isolationFeaturesAreStoredByTheirWireNames() {
        String stored = json.write(Samples.runtimeError(1));
        assertThat(stored).contains("\"network-none\"", "\"pid-ns\"", "\"cgroup-memory\"").doesNotContain("NETWORK_NONE");
    }

    @Test
    void rowsWrittenWithTheOldNamesReadAsTheSameGuarantee() throws Exception {
        String stored = json.write(Samples.runtimeError(1)).replace("\"network-none\"", "\"net-ns\"");
        Attempt read = json.attempt(stored);
        assertThat(read.execution().isolation().features()).contains(IsolationFeature.NETWORK_NONE);
        assertThat(read).isEqualTo(Samples.runtimeError(1));
    }
}
