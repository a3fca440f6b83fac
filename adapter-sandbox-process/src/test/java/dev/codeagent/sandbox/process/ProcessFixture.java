package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.IsolationFeature;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One variant of the process tier, as the fixture of one suite: the sandbox is built before the suite's first test
 * and closed after its last, and closing checks that its runs took the start path the variant is about (see
 * {@link ScratchSandbox}). A suite declares it as {@code @RegisterExtension static final ProcessFixture tier =
 * ProcessFixture.warm("codeagent-contract-")}; each suite gets a sandbox of its own, as each test class had before
 * the variants became outer classes ({@link ProcessWarmIT}, {@link ProcessColdIT}, {@link ProcessZygoteIT}).
 *
 * <p>Skip and fail rules are {@link HostSupport}'s: what the host lacks skips the suite, or fails it under
 * {@code CI=true}.
 */
final class ProcessFixture implements BeforeAllCallback, AfterAllCallback {

    /** How the variant's runs start. */
    enum Variant {
        /** Pre-started sandboxes (the default): from the second execution on, runs take the warm path. */
        WARM,
        /** Nothing pre-started: every run cold, its group made for it and its rlimits set by prlimit. */
        COLD,
        /** Every Python program forked from the zygote ({@code sandbox.process.zygote: all}), nothing pre-started. */
        ZYGOTE
    }

    private final Variant variant;
    private final String prefix;
    private final boolean wholeHost;
    private ScratchSandbox scratch;

    private ProcessFixture(Variant variant, String prefix, boolean wholeHost) {
        this.variant = variant;
        this.prefix = prefix;
        this.wholeHost = wholeHost;
    }

    static ProcessFixture warm(String prefix) {
        return new ProcessFixture(Variant.WARM, prefix, false);
    }

    static ProcessFixture cold(String prefix) {
        return new ProcessFixture(Variant.COLD, prefix, false);
    }

    /** The zygote needs root, bubblewrap and control groups whatever the suite ({@link ScratchSandbox#forking}). */
    static ProcessFixture zygote(String prefix) {
        return new ProcessFixture(Variant.ZYGOTE, prefix, true);
    }

    /**
     * The same variant for a suite that tests only what a host with root, bubblewrap and control groups gives
     * (judged runs, sessions): checked before the sandbox is built.
     */
    ProcessFixture onAWholeHost() {
        return new ProcessFixture(variant, prefix, true);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (wholeHost) {
            HostSupport.requireRootBwrapAndCgroups();
        }
        scratch = switch (variant) {
            case WARM -> ScratchSandbox.start(prefix, true);
            case COLD -> ScratchSandbox.start(prefix, false);
            case ZYGOTE -> ScratchSandbox.forking(prefix);
        };
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (scratch != null) {
            ScratchSandbox s = scratch;
            scratch = null;
            s.stop();
        }
    }

    ProcessSandbox sandbox() {
        return scratch.sandbox;
    }

    /** Where the attack suites look for what a run left on the host. */
    List<Path> hostScratchDirs() {
        return List.of(scratch.workRoot);
    }

    /**
     * On a host that can give a run a control group, a seccomp filter and the supervisor (root, bubblewrap,
     * cgroups, Python: this machine and CI) the tier must claim them; elsewhere {@link HostSupport} skips, or
     * fails under CI.
     */
    void assertClaimsTheWholeRunGuarantees() {
        HostSupport.requireRootBwrapAndCgroups();
        assertThat(sandbox().isolation().features()).contains(IsolationFeature.CGROUP_MEMORY, IsolationFeature.CGROUP_CPU,
                IsolationFeature.CGROUP_PIDS, IsolationFeature.SECCOMP, IsolationFeature.TMPFS_ONLY, IsolationFeature.INIT);
    }
}
