package dev.codeagent.domain.execution;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IsolationTest {

    @Test
    void everyFeatureReadsBackFromItsWireName() {
        for (IsolationFeature f : IsolationFeature.values()) {
            assertThat(IsolationFeature.fromWireName(f.wireName())).contains(f);
        }
        assertThat(Arrays.stream(IsolationFeature.values()).map(IsolationFeature::wireName).distinct().count())
                .isEqualTo(IsolationFeature.values().length);
    }

    @Test
    void theTiersOldNamesForOneGuaranteeAreOneFeature() {
        assertThat(IsolationFeature.fromWireName("net-ns")).contains(IsolationFeature.NETWORK_NONE);
        assertThat(IsolationFeature.fromWireName("net-none")).contains(IsolationFeature.NETWORK_NONE);
        assertThat(IsolationFeature.fromWireName("non-root")).contains(IsolationFeature.UNPRIVILEGED_UID);
        assertThat(IsolationFeature.fromWireName("pids-limit")).contains(IsolationFeature.CGROUP_PIDS);
        assertThat(IsolationFeature.fromWireName("warp-drive")).isEmpty();
    }

    @Test
    void reportsSortedWireNamesAndDropsAFeature() {
        Isolation i = Isolation.of("process", List.of(IsolationFeature.RLIMITS, IsolationFeature.NETWORK_NONE,
                IsolationFeature.PID_NAMESPACE), List.of(IsolationFeature.CGROUP_MEMORY));
        assertThat(i.sortedFeatures()).containsExactly("network-none", "pid-ns", "rlimits");
        assertThat(i.sortedMissing()).containsExactly("cgroup-memory");
        Isolation open = i.without(IsolationFeature.NETWORK_NONE);
        assertThat(open.has(IsolationFeature.NETWORK_NONE)).isFalse();
        assertThat(open.features()).isEqualTo(Set.of(IsolationFeature.RLIMITS, IsolationFeature.PID_NAMESPACE));
        assertThat(open.missing()).isEqualTo(i.missing());
    }
}
