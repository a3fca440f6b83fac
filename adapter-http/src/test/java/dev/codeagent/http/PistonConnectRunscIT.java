package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code /api/v2/connect} over the docker tier on gVisor (runsc): every case of {@link PistonConnectIT}. */
@Tag("docker")
class PistonConnectRunscIT extends PistonConnectIT {

    /** Hides {@link PistonConnectIT#start()}: this class's server runs its programs in gVisor's containers. */
    @BeforeAll
    static void start() {
        server = TestServer.builder().set("sandbox.kind", "docker").set("sandbox.docker.runtime", "runsc").start();
    }

    @Test
    void theServerRunsOnGvisor() {
        var view = TestServer.json(server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"code\":\"print(1)\"}"));
        assertThat(view.get("isolation").toString()).as(view.toString()).contains("\"gvisor\"");
    }
}
