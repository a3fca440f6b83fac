package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HttpConfigBindingTest {

    private static final String SHA = ApiKeys.sha256Hex("secret");

    @TempDir
    Path dir;

    @Test
    void readsKeysAsObjectsFromAFile() throws IOException {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, "http:\n  auth:\n    keys:\n      - name: ci\n        sha256: " + SHA.toUpperCase()
                + "\n        endpoints: [executions, piston]\n        rateLimitPerMinute: 5\n");
        HttpConfig http = HttpConfig.from(new ConfigLoader().load(Optional.of(file), Map.of(), Map.of()));
        assertThat(http.auth().enabled()).isTrue();
        HttpConfig.ApiKey key = http.auth().keys().get(0);
        assertThat(key.name()).isEqualTo("ci");
        assertThat(key.sha256()).isEqualTo(SHA);
        assertThat(key.allows("piston")).isTrue();
        assertThat(key.allows("runs")).isFalse();
        assertThat(key.rateLimitPerMinute()).isEqualTo(5);
    }

    @Test
    void readsKeysAsTextFromTheEnvironment() {
        CodeAgentConfig config = new ConfigLoader().load(Optional.empty(),
                Map.of("CODEAGENT_HTTP_AUTH_KEYS", "a:" + SHA + ",b:" + SHA + ":runs+metrics", "CODEAGENT_CONFIG", emptyFile()),
                Map.of("http.port", "0"));
        assertThat(HttpConfig.from(config).auth().keys()).extracting(HttpConfig.ApiKey::name).containsExactly("a", "b");
        assertThat(HttpConfig.from(config).auth().keys().get(0).allows("executions")).isTrue();
        assertThat(HttpConfig.from(config).auth().keys().get(1).endpoints()).containsExactly("runs", "metrics");
        assertThat(HttpConfig.from(config).port()).isZero();
    }

    @Test
    void rejectsAKeyThatIsNotAHashWithAHint() {
        assertThatThrownBy(() -> new ConfigLoader().parse("http: {auth: {keys: [{name: x, sha256: hunter2}]}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sha256sum");
    }

    @Test
    void rejectsAnUnknownEndpointGroupListingTheKnownOnes() {
        // "admin" names the operator group now (see below), so an unknown name stands in for it
        assertThatThrownBy(() -> new ConfigLoader().parse("http: {auth: {keys: [{name: x, sha256: " + SHA + ", endpoints: [superuser]}]}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("superuser")
                .hasMessageContaining("admin")
                .hasMessageContaining("executions, mcp, metrics, piston, runs");
    }

    @Test
    void theAdminGroupMakesAnOperatorWithoutNarrowingOrWideningTheEndpoints() {
        CodeAgentConfig config = new ConfigLoader().load(Optional.empty(),
                Map.of("CODEAGENT_HTTP_AUTH_KEYS", "ops:" + SHA + ":runs+admin,root:" + SHA + ":admin,all:" + SHA
                        + ",runner:" + SHA + ":runs", "CODEAGENT_CONFIG", emptyFile()), Map.of());
        var keys = HttpConfig.from(config).auth().keys();
        HttpConfig.ApiKey ops = keys.get(0);
        assertThat(ops.operator()).isTrue();
        assertThat(ops.allows("runs")).isTrue();
        assertThat(ops.allows("executions")).as("admin is no endpoint group: runs+admin may use runs only").isFalse();
        HttpConfig.ApiKey root = keys.get(1);
        assertThat(root.operator()).isTrue();
        assertThat(root.allows("runs")).isTrue();
        assertThat(root.allows("executions")).as("only admin named: every group, as for a key naming none").isTrue();
        assertThat(keys.get(2).operator()).as("a key naming no group may use every endpoint, but is no operator").isFalse();
        assertThat(keys.get(3).operator()).isFalse();
    }

    @Test
    void refusesAKeyNameThatCouldNotBeRecordedAsARunsOwner() {
        assertThatThrownBy(() -> new ConfigLoader().parse("http: {auth: {keys: [{name: '" + "k".repeat(201) + "', sha256: " + SHA + "}]}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("at most 200 characters");
    }

    @Test
    void defaultsBindToLoopbackWithAuthOn() {
        HttpConfig http = HttpConfig.defaults();
        assertThat(http.host()).isEqualTo("127.0.0.1");
        assertThat(http.auth().enabled()).isTrue();
        assertThat(new ConfigLoader().keys()).contains("http.auth.keys", "http.maxBodyBytes", "http.shutdownGrace");
    }

    @Test
    void oneKeyGetsHalfTheSessionAndRunPlacesWhenThereAreOtherKeys() {
        HttpConfig two = HttpConfig.from(new ConfigLoader().parse("http: {maxSessions: 5, maxConcurrentRuns: 4, auth: {keys: ["
                + "{name: a, sha256: " + SHA + "}, {name: b, sha256: " + SHA + "}]}}"));
        assertThat(two.sessionsPerKey()).isEqualTo(2);
        assertThat(two.runsPerKey()).isEqualTo(2);
        HttpConfig one = HttpConfig.from(new ConfigLoader().parse("http: {maxSessions: 5, auth: {keys: [{name: a, sha256: " + SHA
                + "}, {name: a, sha256: " + ApiKeys.sha256Hex("rotated") + "}]}}"));
        assertThat(one.sessionsPerKey()).as("two entries of one name are one key, being rotated").isEqualTo(5);
        HttpConfig oneSeat = HttpConfig.from(new ConfigLoader().parse("http: {maxSessions: 1, auth: {keys: ["
                + "{name: a, sha256: " + SHA + "}, {name: b, sha256: " + SHA + "}]}}"));
        assertThat(oneSeat.sessionsPerKey()).isEqualTo(1);
        HttpConfig set = HttpConfig.from(new ConfigLoader().parse("http: {maxSessions: 6, maxSessionsPerKey: 5,"
                + " maxConcurrentRunsPerKey: 9, auth: {keys: [{name: a, sha256: " + SHA + "}, {name: b, sha256: " + SHA + "}]}}"));
        assertThat(set.sessionsPerKey()).isEqualTo(5);
        assertThat(set.runsPerKey()).as("never more than the places").isEqualTo(4);
    }

    @Test
    void refusesANegativePerKeyCap() {
        assertThatThrownBy(() -> new ConfigLoader().parse("http: {maxSessionsPerKey: -1}"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("http.maxSessionsPerKey");
    }

    @Test
    void refusesTheHashOfAnEmptyKeyNamingTheEntry() {
        // what `printf %s "$KEY" | sha256sum` gives when KEY was never set
        assertThatThrownBy(() -> new ConfigLoader().parse("http: {auth: {keys: [{name: ci, sha256: " + ApiKeys.sha256Hex("")
                + "}]}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'ci'").hasMessageContaining("empty key");
    }

    private String emptyFile() {
        try {
            Path f = dir.resolve("empty.yaml");
            Files.writeString(f, "{}\n");
            return f.toString();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
