package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApiKeysTest {

    private final ApiKeys keys = new ApiKeys(List.of(
            new HttpConfig.ApiKey("alice", ApiKeys.sha256Hex("alice-key"), List.of(), null),
            new HttpConfig.ApiKey("bob", ApiKeys.sha256Hex("bob-key"), List.of("executions"), null)));

    @Test
    void hashesLikeSha256sum() {
        // printf %s abc | sha256sum
        assertThat(ApiKeys.sha256Hex("abc")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void findsTheKeyWhoseHashMatches() {
        assertThat(keys.find("bob-key")).map(HttpConfig.ApiKey::name).contains("bob");
        assertThat(keys.find("alice-key")).map(HttpConfig.ApiKey::name).contains("alice");
        assertThat(keys.find("bob-key ")).isEmpty();
        assertThat(keys.find("")).isEmpty();
    }

    @Test
    void takesTheKeyFromBearerOrFromTheBasicPassword() {
        assertThat(ApiKeys.presented("Bearer abc")).contains("abc");
        assertThat(ApiKeys.presented("bearer   abc ")).contains("abc");
        String basic = Base64.getEncoder().encodeToString("piston:the-key".getBytes(StandardCharsets.UTF_8));
        assertThat(ApiKeys.presented("Basic " + basic)).contains("the-key");
    }

    @Test
    void ignoresMalformedHeaders() {
        assertThat(ApiKeys.presented(null)).isEmpty();
        assertThat(ApiKeys.presented("Bearer")).isEmpty();
        assertThat(ApiKeys.presented("Token abc")).isEmpty();
        assertThat(ApiKeys.presented("Basic !!!not-base64")).isEmpty();
        assertThat(ApiKeys.presented("Basic " + Base64.getEncoder().encodeToString("nocolon".getBytes(StandardCharsets.UTF_8))))
                .isEmpty();
        assertThat(ApiKeys.presented("Bearer " + "x".repeat(5000))).isEmpty();
    }
}
