package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestGuardGroupsTest {

    @Test
    void everyApiPathNeedsAKeyAndOnlyHealthAndTheDescriptionAreOpen() {
        assertThat(RequestGuard.group("/v1/executions")).isEqualTo("executions");
        assertThat(RequestGuard.group("/v1/judgements/batch")).isEqualTo("executions");
        assertThat(RequestGuard.group("/v1/runs/abc/events")).isEqualTo("runs");
        assertThat(RequestGuard.group("/v1/evaluations/ev-1")).isEqualTo("evaluations");
        assertThat(RequestGuard.group("/v1/sessions/abc/cells")).isEqualTo("sessions");
        assertThat(RequestGuard.group("/api/v2/execute")).isEqualTo("piston");
        assertThat(RequestGuard.group("/health")).isNull();
        assertThat(RequestGuard.group("/openapi.json")).isNull();
        assertThat(RequestGuard.group("/v1/something-new")).as("closed by default").isEqualTo(RequestGuard.UNGROUPED);
        assertThat(RequestGuard.group("/api/v3/anything")).isEqualTo(RequestGuard.UNGROUPED);
        assertThat(RequestGuard.group("/nope")).as("not the API: a 404 for anyone").isNull();
    }
}
