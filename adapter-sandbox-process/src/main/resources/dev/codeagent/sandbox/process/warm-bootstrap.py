# The process tier's pre-started sandbox (see WarmPool.java), run as `python3 -S -c <this file>` inside
# its namespaces, as its uid, in its empty tmpfs /work. It blocks on stdin for one job in the supervisor
# wire format (dev.codeagent.application.sandbox.SupervisorJob: "<bytes>\n" and a JSON object with files,
# argv, env and rlimits), reading no byte past it: the program's stdin follows on the same pipe. It writes
# the files, lowers its rlimits to the job's and execve()s the interpreter, becoming the program.
# Anything going wrong before that is reported as "codeagent-boot: ..." with exit status 125.
import json
import posix
import resource


def read(n):
    b = b''
    while len(b) < n:
        c = posix.read(0, n - len(b))
        if not c:
            # nobody will send a job (the sandbox is being discarded)
            posix._exit(0)
        b += c
    return b


def main():
    header = b''
    while not header.endswith(b'\n'):
        header += read(1)
        if len(header) > 24:
            raise ValueError('bad job header')
    job = json.loads(read(int(header)))
    for name, content in job['files'].items():
        parts = name.split('/')
        for j in range(1, len(parts)):
            try:
                posix.mkdir('/'.join(parts[:j]), 0o755)
            except FileExistsError:
                pass
        fd = posix.open(name, posix.O_WRONLY | posix.O_CREAT | posix.O_EXCL, 0o644)
        data = memoryview(content.encode('utf-8', 'replace'))
        while data:
            data = data[posix.write(fd, data):]
        posix.close(fd)
    for name, (soft, hard) in job['rlimits'].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    argv = job['argv']
    posix.execve(argv[0], argv, job['env'])


try:
    main()
except BaseException as e:
    posix.write(2, ('codeagent-boot: ' + repr(e) + '\n').encode())
    posix._exit(125)
