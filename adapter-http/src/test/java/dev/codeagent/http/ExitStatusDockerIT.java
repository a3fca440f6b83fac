package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Exit status against death by signal, end to end through both front doors, on the docker tier, whose
 * supervisor reports the real wait status (the process tier read bwrap's exit status, where 137 and
 * SIGKILL look alike, when this was written).
 */
@Tag("docker")
class ExitStatusDockerIT {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().set("sandbox.kind", "docker").start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void exit137IsAnExitStatusOnBothFrontDoors() {
        JsonNode piston = TestServer.json(server.post("/api/v2/execute", TestServer.ADMIN_KEY,
                "{\"language\":\"bash\",\"version\":\"*\",\"files\":[{\"content\":\"exit 137\"}]}")).get("run");
        assertThat(piston.get("code").asInt()).as(piston.toString()).isEqualTo(137);
        assertThat(piston.get("signal").isNull()).as(piston.toString()).isTrue();
        assertThat(piston.get("status").asText()).isEqualTo("RE");

        JsonNode v1 = TestServer.json(server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"bash\",\"code\":\"exit 137\"}"));
        assertThat(v1.get("exitCode").asInt()).as(v1.toString()).isEqualTo(137);
        assertThat(v1.get("signal").isNull()).as(v1.toString()).isTrue();
    }

    @Test
    void aKillBySignalIsASignalOnBothFrontDoors() {
        JsonNode piston = TestServer.json(server.post("/api/v2/execute", TestServer.ADMIN_KEY,
                "{\"language\":\"bash\",\"version\":\"*\",\"files\":[{\"content\":\"kill -SEGV $$\"}]}")).get("run");
        assertThat(piston.get("code").isNull()).as(piston.toString()).isTrue();
        assertThat(piston.get("signal").asText()).as(piston.toString()).isEqualTo("SIGSEGV");
        assertThat(piston.get("status").asText()).isEqualTo("SG");

        JsonNode v1 = TestServer.json(server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"bash\",\"code\":\"kill -SEGV $$\"}"));
        assertThat(v1.get("exitCode").isNull()).as(v1.toString()).isTrue();
        assertThat(v1.get("signal").asInt()).as(v1.toString()).isEqualTo(11);
    }
}
