# The process tier's in-sandbox supervisor, the Python build of supervisor.c for hosts without a C compiler
# (see Supervisor.java, WarmPool.java and Launcher.java), run as `python3 -S -c <this
# file>` by bubblewrap with --as-pid-1: the sandbox's pid namespace's init, as the run's uid, in its empty
# tmpfs /work, under the seccomp filter, in the run's control group. Cold runs get it with the job at once,
# pre-started (warm) ones block on stdin for it. The job is in the supervisor wire format
# (dev.codeagent.kit.sandbox.SupervisorJob: "<bytes>\n" and a JSON object with files, argv, env,
# rlimits and this tier's nonce); it reads no byte past it: the program's stdin follows on the same pipe.
# It writes the files into the tmpfs (nothing of the program's is on the host's disk), forks; the child
# lowers its rlimits and execve()s the interpreter; the supervisor waits for it, reaping the orphans that
# come to pid 1 meanwhile, kills and reaps whatever is left, and writes the program's real wait status to
# stderr behind a marker made from the nonce, after every other writer of that pipe is dead.
# Why pid 1 and non-dumpable: the program has the supervisor's uid. The kernel drops signals from inside the
# namespace to its init, so the program cannot kill or stop it; non-dumpable, the program cannot read its
# memory (the nonce) or fds through /proc, and the seccomp filter refuses ptrace and process_vm_*. A
# supervisor that cannot be both refuses to run the program, once a job arrives, so the host hears why.
# Anything going wrong before the program starts is reported as "codeagent-boot: ..", exit status 125.
import _json
import os
import resource
import signal


class _Job:
    # what the C scanner behind json.loads reads; importing json itself (re and its patterns) would cost more
    # than the rest of this supervisor's start
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = None
    memo = {}


def loads(text):
    value, end = _json.make_scanner(_Job())(text, 0)
    if text[end:].strip():
        raise ValueError('extra data after the job')
    return value


# Python's own SIGINT handler is the one signal the program could deliver to its init: ignore it
signal.signal(signal.SIGINT, signal.SIG_IGN)
E = None
try:
    import ctypes
    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:
        E = 'prctl(PR_SET_DUMPABLE) failed with errno %d' % ctypes.get_errno()
except Exception as x:
    E = 'cannot make the supervisor non-dumpable (%r)' % (x,)
if os.getpid() != 1:
    E = 'the supervisor is pid %d, not the sandbox init' % os.getpid()


def fail(m):
    os.write(2, ('codeagent-boot: ' + m + '\n').encode('utf-8', 'replace'))
    os._exit(125)


def read(n):
    b = b''
    while len(b) < n:
        c = os.read(0, n - len(b))
        if not c:
            # nobody will send a job (the sandbox is being discarded)
            os._exit(0)
        b += c
    return b


def sweep():
    # every other process of the sandbox, killed and reaped until none is left (orphans come to pid 1)
    while True:
        try:
            os.kill(-1, 9)
        except OSError:
            pass
        try:
            os.wait()
        except ChildProcessError:
            return


def main():
    header = b''
    while not header.endswith(b'\n'):
        header += read(1)
        if len(header) > 24:
            fail('bad job header')
    if E:
        fail(E)
    job = loads(read(int(header)).decode('utf-8'))
    # text files as UTF-8, binary ones decoded from base64, byte for byte
    from binascii import a2b_base64
    files = [(n, c.encode('utf-8', 'replace')) for n, c in job['files'].items()]
    files += [(n, a2b_base64(c)) for n, c in job.get('binary', {}).items()]
    for name, content in files:
        parts = name.split('/')
        for j in range(1, len(parts)):
            try:
                os.mkdir('/'.join(parts[:j]), 0o755)
            except FileExistsError:
                pass
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        data = memoryview(content)
        while data:
            data = data[os.write(fd, data):]
        os.close(fd)
    argv = job['argv']
    marker = b'\x00codeagent:' + job['nonce'].encode('ascii') + b':'
    pid = os.fork()
    if pid == 0:
        try:
            # ignored signals stay ignored across execve: the program gets the defaults
            for g in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):
                signal.signal(g, signal.SIG_DFL)
            # the program, not its supervisor, is the OOM killer's first choice; non-dumpable, this child's /proc
            # files are root's: dumpable again first (nothing else of the run exists yet; execve resets it anyway)
            try:
                ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)
                with open('/proc/self/oom_score_adj', 'w') as f:
                    f.write('1000')
            except OSError:
                pass
            for name, (soft, hard) in job['rlimits'].items():
                resource.setrlimit(getattr(resource, name), (soft, hard))
            os.execve(argv[0], argv, job['env'])
        except BaseException as b:
            os.write(2, ('codeagent-boot: cannot start the program: %r\n' % (b,)).encode())
        os._exit(127)
    del job
    status = None
    while status is None:
        q, t = os.waitpid(-1, 0)
        if q == pid:
            status = t
    sweep()
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    report = '{"exit": %s, "signal": %s}' % ('null' if sig else os.WEXITSTATUS(status), 'null' if sig is None else sig)
    # the pipe's file description is shared: the program may have left it non-blocking
    os.set_blocking(2, True)
    os.write(2, marker + report.encode() + b'\n')
    os._exit(0)


try:
    main()
except BaseException as e:
    fail(repr(e))
