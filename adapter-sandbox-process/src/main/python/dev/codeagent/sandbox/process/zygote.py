"""The process tier's Python zygote: one pre-started interpreter that forks a fresh sandbox per program.

Usage: zygote.py DOOR SECCOMP_FILE EMPTY_FILE MASKED_PROC_FILES(comma-separated or -) INIT PAD
(INIT: the compiled launcher, which each run's init is: `launch --init`)
(PAD: blanks, the room each program's command line is written into, so that ps shows the program)

Runs as root (capabilities kept) in a bubblewrap sandbox of its own: the tier's read-only system view, no
network, its own pid namespace. Python programs then cost a fork instead of a sandbox and an interpreter
start. Each program gets what a cold run gets, made by the forked child before a line of the program runs:

  its own control groups (memory, CPU, pids: the host made them; the child joins them first, so every
  process of the run is charged), its own pid, mount, network, IPC and UTS namespaces (the pid namespace's
  init is the compiled launcher, `launch --init`, spawned first, which the zygote ends when the program has
  ended: the kernel then ends every process the program left; the program is the zygote's own child, so the
  zygote reads its real wait status, and its parent is outside its namespace: getppid() is 0), fresh tmpfs
  /work, /tmp and /dev/shm and a /proc of its own namespace (the host's masked files masked again), its own uid with no groups and no
  capabilities, no_new_privs, the tier's rlimits and seccomp filter, and an interpreter state that only this
  zygote touched (what it imported; never another program's data: see below).

The wire, all from the host's JVM, which alone holds the other end:
  stdin   R <token> <uid> <channel or -> <procs files, comma-separated or -> <cpu or ->    run a program
          (cpu: an index into the CPUs this zygote may use, the one the run is pinned to: a judged sample's judge
          is pinned to the same, as the two take turns and a turn that wakes a side on another CPU costs ~6x)
          K <token>                                                         kill a run (its pid namespace)
  stdout  READY                          once, when the zygote can fork
          S <token> <exit or -> <signal or ->   the program's real wait status (sent when the run's init, and so
                                         everything of the run, has ended too)
          F <token> <message>            the run failed before the program started
          X <token>                      the run was killed (K), its init ended before its program (killed from
                                         outside the run), or its program's status could not be read
The run's child connects to DOOR three times ("I <token>", "O <token>", "E <token>": the program's stdin,
stdout and stderr) and reads its job (files, argv, env, rlimits: the supervisor's job format) from O until
the host shuts that direction; nothing of the program's — code, input, output — ever passes through this
process, so no later fork can find it in memory. The door, the channels and the control groups are hidden
from the program (empty mounts over them) before it runs.

What this shares with Android's zygote: the pre-imported interpreter and the fork per program, hence one
address-space layout and hash seed for all of a zygote's programs. What it does differently: the child
drops everything itself before running the program (Android's app processes keep the zygote's sandbox);
the zygote never runs untrusted code and never reads a program's bytes.
"""

import atexit  # noqa: F401  (imported once here, inherited by every program)
import base64
import ctypes
import gc
import io
import json
import json.decoder
import json.scanner
import marshal
import os
import resource
import select
import signal
import socket  # noqa: F401  (imported once here, inherited by every program)
import _socket
import struct
import sys
import traceback  # noqa: F401
# (not threading: its at-fork hook runs in every fork, ~130 pages copied each time, and few programs use it)
import types

# what generated programs import most, loaded once (each program still gets its own copy of their state)
import collections  # noqa: F401,E402
import functools  # noqa: F401,E402
import itertools  # noqa: F401,E402
import math  # noqa: F401,E402
import re  # noqa: F401,E402
import string  # noqa: F401,E402
import typing  # noqa: F401,E402

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 4096, 0x4000, 1 << 18
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 4, 38, 22, 2
MIB = 1 << 20

# the places the program must not see, covered before it runs: the zygote's own directory (this script, the door,
# the filter, the judge's channels of every run) and the run groups' directories
OWN = "/.codeagent-zygote"
CHANNELS = OWN + "/channels"
CHANNEL = "/.judge"
CGROUPS = "/sys"
JUDGE_LIB = "/.judge-lib"


class SetupFailed(Exception):
    pass


#: script path -> the module a program running that script is (the judge's candidate side, imported ahead)
_PRELOADED = {}
#: (arg_start, its length) of this process, the same in every fork (_arg_range)
_ARGS = (0, 0)
#: the job's JSON parser, made once: json.loads's Python layers cost each fork ~40 copy-on-write faults more
_SCAN = json.scanner.make_scanner(json.decoder.JSONDecoder())


#: task flag: the process has begun to exit (include/linux/sched.h)
_PF_EXITING = 0x4


def _exiting(pid):
    """Whether a child has begun to exit. A run's init that was killed waits in its exit until its namespace's last
    process, the program (this process's child), is reaped, so it is exiting, not yet gone, when its program's end is
    read; a child already gone counts as exiting."""
    try:
        fd = os.open("/proc/%d/stat" % pid, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        stat = os.read(fd, 1024)
    finally:
        os.close(fd)
    try:
        # after "pid (comm) ": state, ppid, pgrp, session, tty, tpgid, flags
        return bool(int(stat[stat.rindex(b")") + 2:].split()[6]) & _PF_EXITING)
    except (ValueError, IndexError):
        return False


def _check(result, what):
    if result != 0:
        errno = ctypes.get_errno()
        raise SetupFailed("%s: %s" % (what, os.strerror(errno)))


def _mount(source, target, fstype, flags, data=None):
    _check(_libc.mount(source and source.encode(), target.encode(), fstype and fstype.encode(), flags,
                       data and data.encode()), "mount %s" % target)


def _write_all(fd, data):
    data = memoryview(data)
    while data:
        data = data[os.write(fd, data):]


# a setup failure's report is at most this long; it and a program's wait status live only in their run's buffers, the
# line relayed from them only in the zygote's one reused line, all zeroed at the relay, so no later fork finds an
# earlier program's exit status in the memory it inherits
_REPORT_BYTES = 4096
WNOHANG = 1
# a wait status's bytes written as text without making a Python object of the number (ints up to 256 are shared)
_DIGITS = [str(i).encode("ascii") for i in range(256)]


class _Started:
    """The zygote's record of one run: its init, its program, and what each has said so far."""

    __slots__ = ("token", "init", "program", "ctl", "report", "got", "status", "killed", "init_failed", "left")

    def __init__(self, token, init, program, ctl):
        self.token = token
        self.init = init
        self.program = program
        # the init's stdin: the init lives until it is closed
        self.ctl = ctl
        self.report = bytearray(_REPORT_BYTES)
        self.got = 0
        self.status = (ctypes.c_ubyte * 4)()
        self.killed = False
        self.init_failed = False
        # the report pipe, the program and the init: the run is over when all three have ended
        self.left = 3


class Zygote:
    def __init__(self, door, seccomp, empty, masked, init):
        self.door = door
        with open(seccomp, "rb") as f:
            self.filter = _SeccompProgram(f.read())
        self.empty = empty
        self.masked = masked
        self.init = init
        self.own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        self.cpus = sorted(os.sched_getaffinity(0))
        self.fds = {}  # a run's report pipe ("r"), program's pidfd ("p") or init's pidfd ("i") -> (kind, _Started)
        self.tokens = {}  # token -> _Started
        self.line = bytearray(2 * _REPORT_BYTES)
        self.sink = bytearray(_REPORT_BYTES)
        self.ignored = (ctypes.c_ubyte * 4)()
        self.out = -1
        self.buf = b""
        self.stdin_open = True

    def open_wire(self):
        self.out = os.dup(1)
        devnull = os.open("/dev/null", os.O_RDWR)
        os.dup2(devnull, 1)
        os.close(devnull)
        _write_all(self.out, b"READY\n")

    def next_run(self):
        """Serves the wire until a run is asked for, and returns its request; None once stdin is closed and every
        run has ended. It returns before the run's fork: a fork made from this loop's frames cost each child ~90
        copy-on-write faults to unwind them (and the program must not find them on its stack)."""
        out = self.out
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                request = self.command(line.decode("ascii").split(" "), out)
                if request is not None:
                    return request
            if not (self.stdin_open or self.fds):
                return None
            ready, _, _ = select.select(list(self.fds) + ([0] if self.stdin_open else []), [], [], 1.0)
            for fd in ready:
                if fd == 0:
                    data = os.read(0, 65536)
                    if data:
                        self.buf += data
                    else:
                        self.stdin_open = False
                    continue
                entry = self.fds.get(fd)
                if entry is not None:
                    self.event(fd, entry[0], entry[1], out)

    def event(self, fd, kind, run, out):
        if kind == "r":
            n = run.got
            got = os.readv(fd, [memoryview(run.report)[n:] if n < len(run.report) else self.sink])
            self.sink[:] = bytes(len(self.sink))
            if got:
                run.got = min(n + got, len(run.report))
                return
        elif kind == "p":
            # the status straight into the run's buffer (os.waitpid would leave it in a freed int of this heap)
            pid = _libc.waitpid(run.program, ctypes.byref(run.status), WNOHANG)
            if pid == 0:
                return
            if pid < 0 or (run.status[0] & 0x7F == signal.SIGKILL and not run.killed and _exiting(run.init)):
                # no status to read; or a program killed because its init was, which nothing of the run can bring
                # about (the init is root's and its namespace's init; this process ends it only after its program):
                # the host hears that the run was killed (X), never that its program died by signal 9
                run.killed = True
            # the init ends, and with it the kernel ends whatever of the run is left
            os.close(run.ctl)
            run.ctl = -1
        else:
            if _libc.waitpid(run.init, ctypes.byref(self.ignored), WNOHANG) == 0:
                return
            self.ignored[:] = bytes(4)
            if run.ctl >= 0 and not run.killed:
                # it ended before its program did: it could not join the run's groups (it said why on stderr)
                run.init_failed = True
        del self.fds[fd]
        os.close(fd)
        run.left -= 1
        if run.left == 0:
            del self.tokens[run.token]
            self.relay(out, run)

    def relay(self, out, run):
        """Writes "KIND TOKEN REST" from a run's report or wait status without making a Python object of their bytes,
        then zeroes every buffer that held them: a program's exit status must not outlive its relay in this
        process's memory."""
        line, report, n, status = self.line, run.report, run.got, run.status
        head = b"X " + run.token.encode("ascii")
        size = len(head)
        line[0:size] = head
        while n and report[n - 1] in b" \r\n":
            n -= 1
        if n > 2 and report[0] == 0x46 and report[1] == 0x20:
            line[0] = 0x46
            line[size] = 0x20
            line[size + 1:size + n - 1] = memoryview(report)[2:n]
            for i in range(size + 1, size + n - 1):
                if line[i] in b"\r\n":
                    line[i] = 0x20
            size += n - 1
        elif run.init_failed:
            failed = b"F " + run.token.encode("ascii") + b" the run's init could not start"
            line[0:len(failed)] = failed
            size = len(failed)
        elif not run.killed and status[0] & 0x7F != 0x7F:
            line[0] = 0x53
            signal_ = status[0] & 0x7F
            for part in (_DIGITS[status[1]] if signal_ == 0 else b"-", _DIGITS[signal_] if signal_ else b"-"):
                line[size] = 0x20
                line[size + 1:size + 1 + len(part)] = part
                size += 1 + len(part)
        line[size] = 0x0A
        try:
            _write_all(out, memoryview(line)[:size + 1])
        finally:
            line[:] = bytes(len(line))
            report[:] = bytes(len(report))
            status[:] = bytes(4)

    def command(self, parts, out):
        if parts[0] == "K" and len(parts) == 2:
            run = self.tokens.get(parts[1])
            if run is not None:
                run.killed = True
                try:
                    # the run's whole pid namespace: the kernel kills everything in it when its init dies
                    os.kill(run.init, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            return None
        if parts[0] != "R" or len(parts) != 6:
            sys.stderr.write("zygote: unknown command %r\n" % " ".join(parts)[:100])
            return None
        return parts[1:]

    def start(self, token, uid, channel, procs, cpu):
        """Starts a run: its init, then its program forked; the Run in the fresh child, None in the zygote."""
        out = self.out
        procs = [] if procs == "-" else procs.split(",")
        r, w = os.pipe()
        ctl_r, ctl_w = os.pipe()
        # the next child is the init of a pid namespace of its own (a compiled one, spawned without copying this
        # heap), the one after it the program, in that namespace; this process's children after them are not
        _check(_libc.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
        init = pid = -1
        failure = None
        try:
            init = os.posix_spawn(self.init, [self.init, "--init"] + procs, {},
                                  file_actions=[(os.POSIX_SPAWN_DUP2, ctl_r, 0)])
            pid = os.fork()
        except OSError as e:
            failure = e
        if pid != 0:
            # (not in the child: it is in that namespace, and cannot leave it)
            _check(_libc.setns(self.own_pid_ns, CLONE_NEWPID), "setns back")
        if pid == 0:
            return Run(self, token, int(uid), None if channel == "-" else channel, procs, w,
                       None if cpu == "-" else self.cpus[int(cpu) % len(self.cpus)])
        os.close(w)
        os.close(ctl_r)
        if pid < 0:
            os.close(r)
            os.close(ctl_w)
            if init > 0:
                # (its stdin's end, now closed, ends it at once)
                os.waitpid(init, 0)
            _write_all(out, ("F %s cannot start the run: %s\n" % (token, failure)).encode("ascii", "replace"))
            return None
        run = _Started(token, init, pid, ctl_w)
        self.tokens[token] = run
        self.fds[r] = ("r", run)
        self.fds[os.pidfd_open(pid)] = ("p", run)
        self.fds[os.pidfd_open(init)] = ("i", run)
        return None

    def forget(self):
        """In a fresh child: drops what the zygote knew of other runs (their pids, tokens and status pipes, and the
        host's commands it had not read yet)."""
        self.fds.clear()
        self.tokens.clear()
        self.buf = b""


class Run:
    """One program, in the zygote's child: the second process of the run's pid namespace, after its init."""

    def __init__(self, zygote, token, uid, channel, procs, report, cpu):
        self.z = zygote
        self.cpu = cpu
        self.token = token
        self.uid = uid
        self.channel = channel
        self.procs = procs
        self.report = report

    def start(self):
        # nothing of the zygote's stays open: not its stdin and stdout (the host's wire), not other runs' pipes
        os.closerange(3, self.report)
        os.closerange(self.report + 1, 1 << 16)
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)
        # a session and process group of its own: every run forked from the zygote shared the zygote's, and
        # kill(0, SIGCONT) (also kill(getppid()): its parent is outside its namespace, so that is 0) reached the
        # zygote's other runs, the one signal a session lets through whatever the uid (found by an attack review)
        os.setsid()
        for f in self.procs:
            fd = os.open(f, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            except OSError as e:
                raise SetupFailed("cannot join %s: %s" % (f, e.strerror))
            finally:
                os.close(fd)
        if self.cpu is not None:
            # (a pin is speed, not a limit: the program may move itself, as any program may run on any of the CPUs)
            try:
                os.sched_setaffinity(0, (self.cpu,))
            except OSError:
                pass
        # (its mounts stay its own: the zygote made its tree private once, and a new mount namespace inherits that)
        _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS), "unshare")
        streams = [self.connect(kind) for kind in ("I", "O", "E")]
        job = self.read_job(streams[1])
        memory = job.get("rlimits", {}).get("RLIMIT_AS", (256 * MIB, 0))[0]
        self.views(memory)
        os.close(self.report)
        try:
            Program(job, self.uid, streams, self.z.filter).run()
        except BaseException as e:
            # the report pipe is closed by now: a failure before the program's first line (its files, its uid, its
            # filter) is the sandbox's, said on its stderr as a cold run's supervisor says it (WrapperFailure)
            try:
                os.write(2, ("codeagent-boot: %s\n" % e).encode("utf-8", "replace"))
            except OSError:
                pass
            os._exit(125)

    def connect(self, kind):
        # the C socket type, not socket.py's subclass: its Python layers cost each fork ~18 more copy-on-write faults
        s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        s.connect(self.z.door)
        s.sendall(("%s %s\n" % (kind, self.token)).encode("ascii"))
        return s

    @staticmethod
    def read_job(s):
        chunks = []
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        data = b"".join(chunks)
        head, _, body = data.partition(b"\n")
        if not head.isdigit() or int(head) != len(body):
            raise SetupFailed("a cut job (%d bytes)" % len(data))
        text = body.decode("utf-8")
        try:
            job, end = _SCAN(text, 0)
        except (StopIteration, ValueError):
            job, end = None, -1
        if end != len(text) or not isinstance(job, dict):
            raise SetupFailed("a job that is not one JSON object (%d bytes)" % len(data))
        return job

    def views(self, memory):
        """The run's own file system: fresh tmpfs, its own /proc, and nothing of the zygote's wiring."""
        uid = self.uid
        _mount("tmpfs", "/work", "tmpfs", MS_NOSUID | MS_NODEV,
               "size=%d,mode=0700,uid=%d,gid=%d" % (max(4 * MIB, memory // 2), uid, uid))
        _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=1777" % max(4 * MIB, memory // 4))
        _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=1777" % max(MIB, memory // 8))
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        # pseudo-terminals of its own, as a cold run's bubblewrap gives it (/dev/ptmx points into /dev/pts): the
        # zygote's instance would show every neighbour's terminals and let one run use them all up
        _mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620")
        for f in self.z.masked:
            # (a bind keeps its source's read-only flag: the empty file is on a read-only mount)
            _mount(self.z.empty, f, None, MS_BIND)
        # Not remounted read-only, as bubblewrap does with /proc/sys and its kin for a root inside a user namespace:
        # the program is never root in any namespace here, and their files are root's to write.
        if self.channel is not None:
            source = os.path.join(CHANNELS, self.channel)
            for name in ("j2c", "c2j"):
                _mount(os.path.join(source, name), os.path.join(CHANNEL, name), None, MS_BIND)
        for hidden in (OWN, CGROUPS):
            if os.path.isdir(hidden):
                _mount("tmpfs", hidden, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=000")


class _SeccompProgram:
    """The filter as the kernel takes it (a sock_fprog and its instructions), made once in the zygote: every fork
    finds it in the memory it inherits (building it in each fork cost copy-on-write faults)."""

    def __init__(self, data):
        self.instructions = ctypes.create_string_buffer(data, len(data))
        prog = struct.pack("HxxxxxxQ", len(data) // 8, ctypes.addressof(self.instructions))
        self.fprog = ctypes.create_string_buffer(prog, len(prog))
        self.address = ctypes.addressof(self.fprog)


class Program:
    """The program itself, in the run's second process: drops everything, then runs as `python3 FLAGS FILE ARGS`."""

    def __init__(self, job, uid, streams, seccomp):
        self.job = job
        self.uid = uid
        self.streams = streams
        self.seccomp = seccomp

    def run(self):
        job = self.job
        for fd, s in zip((0, 1, 2), self.streams):
            os.dup2(s.fileno(), fd)
            s.close()
        _set_cmdline(job["argv"])
        # the program, not its run's init, is the OOM killer's first choice (as the cold supervisor makes it)
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, b"1000")
        finally:
            os.close(fd)
        os.setgroups([])
        os.setresgid(self.uid, self.uid, self.uid)
        os.setresuid(self.uid, self.uid, self.uid)
        # changing uid made the process undumpable (its /proc files root's); a program's own are its own again
        _check(_libc.prctl(PR_SET_DUMPABLE, 1, None, 0, 0), "prctl(PR_SET_DUMPABLE)")
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, None, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        os.chdir("/work")
        for name, text in job.get("files", {}).items():
            self.write(name, text.encode("utf-8"))
        for name, text in job.get("binary", {}).items():
            self.write(name, base64.b64decode(text))
        for name, (soft, hard) in job.get("rlimits", {}).items():
            resource.setrlimit(getattr(resource, name), (soft, hard))
        _replace_environ(job.get("env", {}))
        argv = job["argv"]
        flags, at = set(), 1
        while at < len(argv) and argv[at].startswith("-") and argv[at] != "-":
            flags.add(argv[at])
            at += 1
        script, args = argv[at], argv[at + 1:]
        self.std_streams("-u" in flags)
        self.load_filter()
        code = self.main(script, args)
        os._exit(code)

    @staticmethod
    def write(name, data):
        # system calls, not open(): its file and buffer objects cost a forked process ~60 more copy-on-write faults
        path = os.path.join("/work", name)
        parent = os.path.dirname(path)
        if parent != "/work":
            os.makedirs(parent, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)

    @staticmethod
    def std_streams(unbuffered):
        def text(fd, mode, errors):
            raw = io.FileIO(fd, mode, closefd=False)
            if mode == "r":
                return io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors=errors)
            if unbuffered:
                return io.TextIOWrapper(raw, encoding="utf-8", errors=errors, write_through=True)
            return io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", errors=errors, line_buffering=False)

        sys.stdin = sys.__stdin__ = text(0, "r", "strict")
        sys.stdout = sys.__stdout__ = text(1, "w", "strict")
        sys.stderr = sys.__stderr__ = text(2, "w", "backslashreplace")

    def load_filter(self):
        _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, self.seccomp.address, 0, 0), "seccomp filter")

    @staticmethod
    def main(script, args):
        """Runs the script as __main__ the way the interpreter does, and returns its exit status."""
        path = script if os.path.isabs(script) else os.path.join("/work", script)
        sys.argv = [script] + list(args)
        sys.path[0] = os.path.dirname(path)
        module = types.ModuleType("__main__")
        module.__file__ = path
        module.__builtins__ = __builtins__
        sys.modules["__main__"] = module
        status = 0
        preloaded = _PRELOADED.get(path)
        try:
            if preloaded is not None:
                # what its `if __name__ == "__main__"` runs
                sys.exit(preloaded.main(sys.argv))
            data = _read(path)
            code = marshal.loads(data[16:]) if path.endswith(".pyc") else compile(data, path, "exec")
            exec(code, module.__dict__)
        except SystemExit as e:
            status = _exit_status(e)
        except BaseException as e:
            status = 1
            try:
                # the frames from the script on, as the interpreter prints them
                # (the interpreter's printer reads the exception's own traceback, not the argument)
                e.__traceback__ = e.__traceback__.tb_next
                sys.excepthook(type(e), e, e.__traceback__)
            except BaseException:
                pass
            if isinstance(e, KeyboardInterrupt):
                status = 128 + signal.SIGINT
        try:
            # as the interpreter ends: threads are waited for only where the program imported threading
            t = sys.modules.get("threading")
            if t is not None:
                t._shutdown()
            atexit._run_exitfuncs()
        except SystemExit as e:
            status = _exit_status(e)
        except BaseException:
            pass
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except BaseException:
                status = status or 120
        return status


def _read(path):
    """A file's bytes, by system calls (see Program.write)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def _set_cmdline(argv):
    """
    Shows the program's command line in /proc (ps, the host's tools) instead of the zygote's, as setproctitle
    does: written over the zygote's own arguments, whose last one is a blank pad (PR_SET_MM would need
    CAP_SYS_RESOURCE, which containers often lack). A longer command line is cut.
    """
    start, room = _ARGS
    data = b"".join(a.encode("utf-8", "surrogateescape") + b"\0" for a in argv)[:room - 1]
    ctypes.memmove(start, data + b"\0" * (room - len(data)), room)


def _replace_environ(env):
    """os.environ made env, in its own dict and in the C library's environment, without the mapping's Python layers
    (its clear() and update() took a method call per variable: ~90 copy-on-write faults a fork more)."""
    data = os.environ._data
    for key in list(data):
        os.unsetenv(key)
    data.clear()
    encoding = sys.getfilesystemencoding()
    for key, value in env.items():
        k, v = key.encode(encoding, "surrogateescape"), value.encode(encoding, "surrogateescape")
        os.putenv(k, v)
        data[k] = v


def _arg_range():
    """Where the zygote's arguments are, and so its forks': fields 48 and 49 of /proc/self/stat (arg_start,
    arg_end), read once (each fork reading them cost it ~60 copy-on-write faults)."""
    fields = _read("/proc/self/stat").rsplit(b")", 1)[1].split()
    # fields[0] is the third, the state
    start, end = int(fields[48 - 3]), int(fields[49 - 3])
    return start, end - start


def _exit_status(e):
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except BaseException:
        pass
    return 1


def main(argv):
    if len(argv) != 7:
        sys.stderr.write("usage: zygote.py DOOR SECCOMP_FILE EMPTY_FILE MASKED_PROC_FILES INIT PAD\n")
        return 2
    _libc.unshare.argtypes = [ctypes.c_int]
    _libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]
    masked = [] if argv[4] == "-" else argv[4].split(",")
    global _ARGS
    _ARGS = _arg_range()
    if os.path.isdir(JUDGE_LIB):
        # the candidate side and its wire, imported once: a judged run calls the module's main instead of
        # unmarshalling and running candidate.pyc (~100 copy-on-write faults a fork); candidate.py finds the wire
        # in sys.modules
        sys.path.insert(0, JUDGE_LIB)
        try:
            import codeagent_wire  # noqa: F401
            import candidate
            for name in ("candidate.py", "candidate.pyc"):
                _PRELOADED[os.path.join(JUDGE_LIB, name)] = candidate
        except ImportError:
            candidate = None
        if candidate is not None:
            # a sample run here once, its judge forked (see candidate.rehearse), before any job
            status = candidate.rehearse("candidate")
            if status != 0:
                sys.stderr.write("zygote: the built-in sample's candidate side ended %s\n" % status)
        del sys.path[0]
    seccomp = argv[2] if argv[2] != "-" else None
    z = Zygote(argv[1], seccomp, argv[3], masked, argv[5]) if seccomp else None
    if z is None:
        sys.stderr.write("zygote: no seccomp filter: refusing to run programs without it\n")
        return 2
    # once for every fork: no mount a fork makes propagates back into this view, or from it into another fork
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    # what is imported now stays out of the collector's sight: a fork's collections then do not write (and so copy)
    # every page of the zygote's heap
    gc.collect()
    gc.freeze()
    z.open_wire()
    while True:
        request = z.next_run()
        if request is None:
            return 0
        run = z.start(*request)
        if run is not None:
            break
    # in a fresh child, forked here with none of the zygote's loop on its stack
    request = None
    z.forget()
    code = 0
    try:
        run.start()
    except SetupFailed as e:
        os.write(run.report, ("F %s" % e).encode("ascii", "replace")[:1000])
        code = 125
    except BaseException as e:
        os.write(run.report, ("F %s: %s" % (type(e).__name__, e)).encode("ascii", "replace")[:1000])
        code = 125
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
