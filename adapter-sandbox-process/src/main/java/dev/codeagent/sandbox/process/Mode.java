package dev.codeagent.sandbox.process;

/** How a run is wrapped, best first; the probe picks the best one the host can do. */
enum Mode {
    /** bubblewrap: every namespace, a minimal read-only filesystem view, private size-capped /work and /tmp. */
    BWRAP,
    /** util-linux unshare (root only): pid, net, mount, ipc and uts namespaces, private /tmp; host filesystem visible. */
    UNSHARE,
    /** rlimits only (plus an unprivileged uid when root). */
    PLAIN
}
