"""Many judge jobs from one warm interpreter: codeagent's judge for a batch whose tests share one source.

Usage: judge_server.py    (jobs on stdin, verdicts on stdout; both one line each)

An evaluation checks thousands of samples against one dataset's tests. Starting a judge (an interpreter,
its imports, a sandbox) per sample costs as much as running the sample; this server starts once, with
judge.py imported, and forks a child per job: each job is judged in an interpreter state no other job has
touched, at the cost of a fork. The children share this server's uid and sandbox, so only tests from one
source may share a server (the sandbox never hands it a task's tests that came from anyone else); the
code under test never runs here: it stays in its own sandbox under its own uid, reached through the job's
channel only, exactly as with judge.py.

A job line:   J <nonce> <wall seconds> <memory bytes> <sample's CPU seconds> <channel dir> <entries, comma-separated or -> <lengths: code tests prelude> <cpu or ->
              followed on stdin by exactly that many bytes of code, tests and prelude (UTF-8)
              (cpu: an index into the CPUs this server may use, the one the job's judge is pinned to: its candidate, forked
              by the zygote, is pinned to the same, as the two take turns and a turn that wakes a side on another CPU
              costs ~6x)
A kill line:  K <nonce>
A verdict:    <nonce><verdict JSON>     (or <nonce> alone: the job's child died without a verdict)
"""

import os
import resource  # imported once here, for the children
import select
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import json  # noqa: E402,F401  (imported once here, inherited by every child)
import codeagent_wire as wire  # noqa: E402,F401
import judge  # noqa: E402
import traceback  # noqa: E402,F401
# what tests and preludes import most (HumanEval's prompts start `from typing import List`: importing typing in
# each job's child was a quarter of its CPU), once here as the zygote does for the programs; the standard library only
import collections  # noqa: E402,F401
import functools  # noqa: E402,F401
import itertools  # noqa: E402,F401
import math  # noqa: E402,F401
import re  # noqa: E402,F401
import string  # noqa: E402,F401
import typing  # noqa: E402,F401

try:
    import ctypes as _ctypes  # once here: a child importing it would pay milliseconds
    # (looked up and typed here: a first call's lookup cost each child ~50 copy-on-write faults)
    _PRCTL = _ctypes.CDLL(None).prctl
    _PRCTL.argtypes = [_ctypes.c_int, _ctypes.c_char_p, _ctypes.c_ulong, _ctypes.c_ulong, _ctypes.c_ulong]
except (ImportError, OSError, AttributeError):
    _PRCTL = None

def _write(fd, data):
    data = memoryview(data)
    while data:
        data = data[os.write(fd, data):]


def _name(name):
    """What ps and top call a job's process (prctl PR_SET_NAME), so a batch's judges are told from its server."""
    if _PRCTL is not None:
        _PRCTL(15, name, 0, 0, 0)


def _child(channel, entries, wall, memory, cpu, code, tests, prelude, verdict_w, pin):
    _name(b"codeagent-judge")
    if pin is not None:
        try:
            os.sched_setaffinity(0, (pin,))
        except OSError:
            pass
    signal.alarm(max(1, int(wall)))
    # each job's judge gets the memory a judge of its own would have: one job cannot starve the others
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    # the texts as they came: no file is written or read back (a forked child's first file costs it ~100 faulted
    # pages); the code's frames name it as judge.py's do
    verdict = judge.judge_texts(os.path.join(channel, "c2j"), os.path.join(channel, "j2c"), code, "main.py", tests,
                                prelude, entries, cpu)
    _write(verdict_w, judge.verdict_json(verdict).encode("ascii"))


def main():
    import gc
    # the jobs' children inherit it (set in each, signal.signal's Python layers cost it ~40 copy-on-write faults);
    # this server reaps its children itself
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    import candidate
    verdict = candidate.rehearse("judge")
    if verdict.get("outcome") != "passed":
        sys.stderr.write("judge_server: the built-in sample was judged %s: %s\n"
                         % (verdict.get("outcome"), verdict.get("message")))
    # the imports stay out of the collector's sight: a child's collections then do not copy the server's heap
    gc.collect()
    gc.freeze()
    out = os.dup(1)
    os.dup2(2, 1)  # the tests' prints go to stderr, never among the verdicts
    cpus = sorted(os.sched_getaffinity(0))
    running = {}  # pid -> nonce
    pipes = {}  # read fd -> [nonce, chunks]
    buf = b""
    stdin_open = True
    while stdin_open or pipes:
        watch = list(pipes) + ([0] if stdin_open else [])
        ready, _, _ = select.select(watch, [], [], 1.0)
        for fd in ready:
            if fd != 0:
                chunk = os.read(fd, 65536)
                if chunk:
                    pipes[fd][1].append(chunk)
                    continue
                nonce, chunks = pipes.pop(fd)
                os.close(fd)
                _write(out, nonce.encode("ascii") + b"".join(chunks) + b"\n")
                continue
            data = os.read(0, 1 << 20)
            if not data:
                stdin_open = False
                continue
            buf += data
            while b"\n" in buf:
                line, rest = buf.split(b"\n", 1)
                parts = line.decode("ascii").split(" ")
                if parts[0] == "K":
                    for pid, nonce in list(running.items()):
                        if nonce == parts[1]:
                            os.kill(pid, signal.SIGKILL)
                    buf = rest
                    continue
                _, nonce, wall, memory, cpu, channel, entries, n_code, n_tests, n_prelude, pin = parts
                sizes = (int(n_code), int(n_tests), int(n_prelude))
                need = sum(max(0, n) for n in sizes)
                while len(rest) < need:
                    more = os.read(0, 1 << 20)
                    if not more:
                        return 0
                    rest += more
                texts, at = [], 0
                for n in sizes:
                    texts.append(None if n < 0 else rest[at:at + n].decode("utf-8"))
                    at += max(0, n)
                buf = rest[at:]
                # compiled here, once per problem, and inherited by every job's child
                judge.precompile(texts[1], judge.TESTS_FILE)
                judge.precompile(texts[2], "<prelude>")
                r, w = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(r)
                    try:
                        _child(channel, [] if entries == "-" else entries.split(","), float(wall), int(memory),
                               float(cpu), texts[0], texts[1], texts[2], w,
                               None if pin == "-" else cpus[int(pin) % len(cpus)])
                    except BaseException as e:  # the verdict is then none: the sandbox reports INTERNAL_ERROR
                        try:
                            sys.stderr.write("judge_server: job %s: %s: %s\n" % (nonce, type(e).__name__, e))
                        except BaseException:
                            pass
                    os._exit(0)
                os.close(w)
                running[pid] = nonce
                pipes[r] = [nonce, []]
        while running:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            running.pop(pid, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
