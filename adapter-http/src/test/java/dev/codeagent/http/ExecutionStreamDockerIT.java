package dev.codeagent.http;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** {@code POST /v1/executions} streamed over the docker tier: every case of {@link ExecutionStreamIT}. */
@Tag("docker")
class ExecutionStreamDockerIT extends ExecutionStreamIT {

    /** Hides {@link ExecutionStreamIT#start()}: this class's server runs its programs in containers. */
    @BeforeAll
    static void start() {
        server = TestServer.builder().set("sandbox.kind", "docker").start();
    }
}
