/**
 * The docker tier: {@link dev.codeagent.sandbox.docker.DockerSandbox}, registered under the config
 * key {@code docker} by {@link dev.codeagent.sandbox.docker.DockerSandboxProvider} (settings: {@code sandbox.docker.*}).
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
 *       here. Instead the bootstrap forks the program, waits for it, SIGKILLs and reaps whatever it
 *       left in the container until nothing is left, then writes a one-line report behind a nonce
 *       marker on stdout (and the bare marker on stderr, since the two pipes are not ordered against
 *       each other). No report means the sandbox failed (the engine stopped the container): SANDBOX_ERROR
 *       — unless the engine saw the OOM killer strike, which ended the supervisor with the rest: MEMORY_LIMIT
 *       (the tmpfs mounts together hold more than the memory limit, and their pages are charged to it).</li>
 *   <li><b>The supervisor is pid 1, not docker-init.</b> The program runs with the supervisor's uid.
 *       With Docker's init (tini, same uid, dumpable) as pid 1 a program could ptrace the init,
 *       {@code execve} a process of its own into it — spared by {@code kill(-1)}, so it outlived the
 *       report — read its pipes, set its OOM score; and it could SIGKILL or SIGSTOP the supervisor,
 *       turning its own failure into a SANDBOX_ERROR that callers retry. As pid 1 the bootstrap cannot
 *       be signalled to death from inside, {@code kill(-1)} reaches everything else, its end ends the
 *       namespace; it is non-dumpable before the nonce reaches it (no ptrace, no /proc/1/mem, fd or
 *       oom_score_adj for the program), and refuses to run a program when it cannot be both. The
 *       program starts with OOM score 1000, so the OOM killer takes it before its supervisor unless it
 *       lowers that itself. {@code DockerSandboxHardeningIT} holds each of these attacks.</li>
 *   <li><b>A host that dies.</b> Containers are labelled and the next start removes those of a dead
 *       process. Until then they end themselves: a pooled bootstrap that gets no payload within its
 *       idle time (15 min; the pool retires containers at two thirds of it) exits, and a running one
 *       ends the run 30 s past its wall-clock limit (a living host kills it at the limit).</li>
 *   <li><b>Removal.</b> A container whose program reported is removed in the background (nothing of
 *       it runs, its tmpfs goes with it when it stops); one stopped by a limit, an overflow or a
 *       cancellation is force-removed before {@code execute} returns.</li>
 *   <li><b>Pool.</b> Pooled containers are made for the default limits; memory and process limits
 *       are fixed per container, so a request with other values gets a fresh container. CPU time,
 *       file size and core limits are per run (the bootstrap lowers the rlimits before exec).</li>
 *   <li><b>Overheads.</b> The bootstrap shares the container's cgroup: the container gets 16 MiB and
 *       1 process on top of the program's limits.</li>
 *   <li><b>Network.</b> Always {@code none}; a request asking for network is not granted it here.</li>
 * </ul>
 */
package dev.codeagent.sandbox.docker;
