package dev.codeagent.sandbox.process;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.application.session.SessionSandboxContractTest;
import dev.codeagent.domain.session.SessionSandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * Sessions on the process tier: a real ipykernel behind the kernel bridge, in a bubblewrap sandbox, pool uid and
 * control group of its own, held to the session contract. The kernel is the host's Debian Python: it plots where
 * the host has python3-matplotlib.
 */
@Tag("slow")
class ProcessSessionIT extends SessionSandboxContractTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        HostSupport.requireRootBwrapAndCgroups();
        assumeTrue(kernelAvailable("ipykernel, jupyter_client"),
                "needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client");
        scratch = ScratchSandbox.start("codeagent-session-", false);
    }

    @AfterAll
    static void stop() throws Exception {
        if (scratch != null) {
            scratch.stop();
        }
    }

    @Override
    protected SessionSandbox sessions() {
        return scratch.sandbox;
    }

    @Override
    protected boolean plots() {
        return kernelAvailable("matplotlib, matplotlib_inline");
    }
}
