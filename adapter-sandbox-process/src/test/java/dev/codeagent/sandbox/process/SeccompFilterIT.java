package dev.codeagent.sandbox.process;

import dev.codeagent.kit.sandbox.SeccompFilter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.sandbox.process.HostSupport.Result;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compiled filter under the real kernel: programs run in the bubblewrap view the launch plan builds,
 * with the filter handed over as the launch will hand it (the {@link LaunchWrapper} opens it as fd 3 for
 * {@code bwrap --seccomp 3}), and once without it so every refusal is shown to be the filter's doing.
 */
@Tag("slow")
class SeccompFilterIT {

    private static final int SIGSYS = 31;

    @TempDir
    Path dir;

    private Path bwrap;
    private Path filter;

    @BeforeEach
    void setUp() throws IOException {
        bwrap = HostSupport.bwrap();
        filter = SeccompFilter.forHost().orElseThrow().writeTo(dir.resolve("seccomp.bpf"));
    }

    private Path script(String name) throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/seccomp/" + name)) {
            Path p = dir.resolve(name);
            Files.write(p, in.readAllBytes());
            return p;
        }
    }

    private Result run(boolean filtered, Path script, String... command) throws Exception {
        List<String> cmd = new ArrayList<>(HostSupport.bwrapView(bwrap, script));
        if (filtered) {
            cmd.addAll(LaunchWrapper.bwrapSeccompArgs());
        }
        cmd.add("--");
        cmd.addAll(List.of(command));
        return HostSupport.run(LaunchWrapper.argv(filtered ? filter : null, List.of(), cmd), 120);
    }

    private static Map<String, String> outcomes(Result r) {
        Map<String, String> m = new TreeMap<>();
        r.out().lines().map(l -> l.split(" ", 2)).forEach(kv -> m.put(kv[0], kv[1]));
        return m;
    }

    @Test
    void ordinaryPythonWorksAndStartsWithOnlyStdio() throws Exception {
        Result r = run(true, script("ordinary.py"), HostSupport.PYTHON.toString(), "/ordinary.py");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("open beyond stdio: []").contains("ordinary ok");
    }

    @Test
    void everyRefusedCallFailsWithEpermWhereTheKernelAloneWouldNot() throws Exception {
        Path probe = script("refused.py");
        Result filtered = run(true, probe, HostSupport.PYTHON.toString(), "/refused.py");
        Result bare = run(false, probe, HostSupport.PYTHON.toString(), "/refused.py");
        assertThat(filtered.exit()).as(filtered.err()).isZero();
        assertThat(bare.exit()).as(bare.err()).isZero();
        Map<String, String> with = outcomes(filtered);
        Map<String, String> without = outcomes(bare);

        assertThat(with).hasSize(21);
        with.forEach((call, outcome) -> assertThat(outcome).as(call).isEqualTo(call.equals("clone3") ? "ENOSYS" : "EPERM"));
        // what the kernel says without the filter: the refusal above is the filter's, not bubblewrap's
        for (String call : List.of("vsock", "netlink", "socketpair_vsock", "io_uring_setup", "keyctl",
                "personality_no_aslr", "clone3", "tiocsti")) {
            assertThat(without.get(call)).as(call + " without the filter").isNotEqualTo(with.get(call));
        }
        assertThat(without.get("vsock")).as("the hole issue 10 found").isEqualTo("allowed");
    }

    @Test
    void anotherSyscallAbiKillsTheProgram() throws Exception {
        assumeTrue(SeccompFilter.Arch.host().orElseThrow() == SeccompFilter.Arch.X86_64, "x32 exists on x86_64 only");
        Path probe = script("x32.py");
        Result bare = run(false, probe, HostSupport.PYTHON.toString(), "/x32.py");
        assertThat(bare.out()).contains("survived");
        Result filtered = run(true, probe, HostSupport.PYTHON.toString(), "/x32.py");
        assertThat(filtered.out()).doesNotContain("survived");
        assertThat(filtered.exit()).as("bubblewrap reports the child's signal as 128 + n").isEqualTo(128 + SIGSYS);
    }

    @Test
    void nodeStartsAndSpawnsUnderTheFilter() throws Exception {
        Path node = Path.of("/usr/bin/node");
        assumeTrue(Files.isExecutable(node), "node is not installed at /usr/bin/node");
        Path js = Files.writeString(dir.resolve("main.js"), String.join("\n",
                "const cp = require('child_process');",
                "const net = require('net');",
                "const out = cp.execFileSync('/usr/bin/node', ['-e', 'console.log(6 * 7)']).toString().trim();",
                "const srv = net.createServer(c => c.end('pong')).listen(0, '127.0.0.1', () => {",
                "  net.connect(srv.address().port, '127.0.0.1').on('data', d => {",
                "    console.log('node ok', out, d.toString()); srv.close(); });",
                "});"));
        Result r = run(true, js, node.toString(), "/main.js");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("node ok 42 pong");
    }
}
