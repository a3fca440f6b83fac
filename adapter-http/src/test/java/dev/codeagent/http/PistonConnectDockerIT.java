package dev.codeagent.http;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * {@code /api/v2/connect} over the docker tier (runc, the default runtime): every case of {@link PistonConnectIT}, its
 * programs run live in containers — stdin sent while the program runs, a signal by name, the compile stage of C.
 */
@Tag("docker")
class PistonConnectDockerIT extends PistonConnectIT {

    /** Hides {@link PistonConnectIT#start()}: this class's server runs its programs in containers. */
    @BeforeAll
    static void start() {
        server = TestServer.builder().set("sandbox.kind", "docker").start();
    }
}
