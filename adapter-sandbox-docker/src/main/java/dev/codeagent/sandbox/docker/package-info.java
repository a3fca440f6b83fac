/**
 * The docker tier: {@link dev.codeagent.sandbox.docker.DockerSandbox}, registered under the config
 * key {@code docker} by {@link dev.codeagent.sandbox.docker.DockerSandboxModule}.
 *
 * <p>Decisions, and why:
 * <ul>
 *   <li><b>Getting the program in.</b> The root filesystem is read-only and the work dir a tmpfs, and
 *       Docker 20.10 refuses archive uploads into such a container altogether ("container rootfs is
 *       marked read-only", tmpfs target or not). So each container's command is a small
 *       Python bootstrap that reads one length-prefixed JSON payload (files, stdin, argv, per-run
 *       limits, a nonce) from its stdin, which the sandbox writes through the attach stream: one
 *       HTTP upgrade per run (an exec with stdin would cost an exec-create and an exec-start more),
 *       and a pooled container waits, already started, for its program.</li>
 *   <li><b>stdin.</b> The program's stdin travels inside the payload and is handed to it as a memfd
 *       (a tmpfile in /tmp where memfd is missing): the attach stream needs no half-close, which the
 *       httpclient5 transport cannot do, and an empty stdin is /dev/null, at end-of-file at once.</li>
 *   <li><b>Knowing the end.</b> Waiting for the engine to see the container stop costs about 100 ms
 *       here. Instead the bootstrap forks the program, waits for it, SIGKILLs whatever it left in the
 *       container and waits until that is gone, then writes a one-line report behind a nonce marker
 *       on stdout (and the bare marker on stderr, since the two pipes are not ordered against each
 *       other). The bootstrap is non-dumpable, so the program cannot read the nonce out of it. No
 *       report means the sandbox failed (engine stopped the container, or the program killed its
 *       supervisor): SANDBOX_ERROR.</li>
 *   <li><b>Removal.</b> A container whose program reported is removed in the background (nothing of
 *       it runs, its tmpfs goes with it when it stops); one stopped by a limit, an overflow or a
 *       cancellation is force-removed before {@code execute} returns.</li>
 *   <li><b>Pool.</b> Pooled containers are made for the default limits; memory and process limits
 *       are fixed per container, so a request with other values gets a fresh container. CPU time,
 *       file size and core limits are per run (the bootstrap lowers the rlimits before exec).</li>
 *   <li><b>Overheads.</b> The init process and the bootstrap share the container's cgroup: the
 *       container gets 16 MiB and 2 processes on top of the program's limits.</li>
 *   <li><b>Network.</b> Always {@code none}; a request asking for network is not granted it here.</li>
 * </ul>
 */
package dev.codeagent.sandbox.docker;
