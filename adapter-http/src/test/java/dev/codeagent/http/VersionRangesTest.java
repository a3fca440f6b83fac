package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Piston's {@code version} is an npm semver range; these are the answers node-semver gives for 3.11.2. */
class VersionRangesTest {

    @ParameterizedTest(name = "3.11.2 satisfies \"{0}\": {1}")
    @CsvSource(delimiter = ';', value = {
        "*; true", "x; true", "X.x; true", "''; true", "latest; true",
        "3; true", "3.x; true", "3.11; true", "3.11.2; true", "3.11.x; true", "=3.11.2; true", "v3.11.2; true",
        "3.10; false", "2.7.18; false", "4; false",
        ">=3.8; true", ">= 3.8; true", ">=3.12; false",
        "^3.10; true", "^3.12; false", "^4; false",
        "~3.11; true", "~3.10; false", "~>3.11; true",
        "3.x || 4.x; true", "2.x || 4.x; false", "2 ||; true",
        "<4; true", "<3.11.2; false", "<=3.11.2; true",
        ">3.11.1 <3.11.3; true", ">=3.8 <3.11; false",
        "3.8 - 3.11; true", "3.8 - 3.10; false",
    })
    void matchesAsNodeSemverDoes(String range, boolean expected) {
        assertThat(VersionRanges.satisfies("3.11.2", range)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "\"{0}\" is not a range")
    @CsvSource(delimiter = ';', value = {
        ">=3 || rm -rf", "python3", "3.11.2.1", "03.11", ">=x", "3 - ", "1 - 2 - 3", ">>3", "3..1", "^", "3.11.2 && ls",
    })
    void refusesWholeWhatIsNotARangeThoughSemver4jWouldReadPartOfIt(String range) {
        assertThat(VersionRanges.normalize(range)).isEmpty();
        assertThat(VersionRanges.satisfies("3.11.2", range)).isFalse();
    }

    @Test
    void refusesAnOverlongSelectorWithoutWorkingOnIt() {
        assertThat(VersionRanges.satisfies("3.11.2", "3" + " || 3".repeat(100_000))).isFalse();
        assertThat(VersionRanges.satisfies("3.11.2", "3" + ".x".repeat(100_000))).isFalse();
    }

    @Test
    void readsTheTwoPartVersionsSomeRuntimesReport() {
        assertThat(VersionRanges.satisfies("5.2", "^5")).isTrue();
        assertThat(VersionRanges.satisfies("20.11.1", "20.x || 22.x")).isTrue();
        assertThat(VersionRanges.satisfies("0.0.0", ">=1")).isFalse();
    }
}
