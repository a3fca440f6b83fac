"""The candidate side of codeagent's judge: runs the code under test and answers the judge's calls.

Usage: candidate.py IN OUT CODE_FILE [ARG...]    (IN, OUT: inherited descriptor numbers, or FIFO paths)

Runs CODE_FILE as the program's __main__ module, then reports what it defined and serves calls
from the judge, read from IN_FD, answering on OUT_FD, until the judge says bye or closes. The
program's own stdin, stdout and stderr stay its own.

Nothing here is trusted: the code under test runs in this process and may change any of it. It
gains nothing by that: every decision is the judge's, in another process, and all it gets from
here is data it parses itself. This side only answers honestly for honest code and gives good
feedback: exceptions with their frames in the code, and the type of a value that is not data.
"""

import builtins
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codeagent_wire as wire  # noqa: E402

_MAX_FRAMES = 20
#: what the judge's remote objects ask for by these names: the built-in operation, not a method
_BUILTIN_OPS = {"!bool": bool, "!len": len, "!iter": iter, "!next": next,
                "!getitem": lambda o, k: o[k], "!contains": lambda o, x: x in o}
_MAX_TEXT = 2000


def main(argv):
    if len(argv) < 4:
        sys.stderr.write("usage: candidate.py IN OUT CODE_FILE [ARG...]\n")
        return 2
    rfd, wfd = wire.open_channel(argv[1], argv[2], read_first=True)
    path = argv[3]
    # the judge's channel is not the program's: children it starts do not inherit it
    os.set_inheritable(rfd, False)
    os.set_inheritable(wfd, False)
    # as `python3 CODE_FILE ARG...` would have it: the code's directory first on the path, its own argv
    sys.path[0] = os.path.dirname(os.path.abspath(path))
    return Candidate(rfd, wfd, path, argv[4:]).run()


class Candidate:
    def __init__(self, rfd, wfd, path, args=()):
        self.rfd, self.wfd, self.path = rfd, wfd, path
        self.args = list(args)
        self.refs = {}
        self.next_ref = 1
        self.globals = {}  # name -> the value of a data global the judge holds a copy of
        self.global_snaps = {}  # name -> how that value looked when the judge was last told

    def run(self, source=None):
        """Runs the code (the file's text, or source) and serves the judge's calls; the exit status."""
        module = types.ModuleType("__main__")
        module.__file__ = self.path
        module.__builtins__ = __builtins__
        sys.modules["__main__"] = module
        sys.argv = [self.path] + self.args
        try:
            code = compile(_read(self.path).decode("utf-8") if source is None else source, self.path, "exec")
            exec(code, module.__dict__)
        except SystemExit as e:
            self.send(["exit", _text(e.code)])
            return 0
        except BaseException as e:
            # code that does not load ends as python3 would end it, with status 1, whoever is first: the judge
            # compiles the code too and may have reported a syntax error and hung up before this is written
            try:
                self.send(["loaderr", _exception(e, self.path)])
            except OSError:
                pass
            return 1
        self.send(["ready", self.inventory(module.__dict__)])
        # calls the judge sent ahead of the tests ("ahead": see judge.Plan) are run until one raises or sends back a
        # remote object; the rest are skipped, as the judge expects, since in one process the tests might make
        # other calls first
        skipping = False
        while True:
            try:
                message = wire.loads(wire.read_frame(self.rfd), wire.CALL_DEPTH, raw_count=False)
            except wire.Closed:
                return 0
            if not isinstance(message, list) or not message or message[0] == "bye":
                return 0
            if message[0] == "ahead":
                if skipping:
                    self.send(["skipped"])
                    continue
                message = ["call"] + message[1:]
            refs = self.next_ref
            reply = self.answer(message, module.__dict__)
            self.send(reply)
            skipping = reply[0] != "ok" or self.next_ref != refs

    def inventory(self, namespace):
        out = []
        for name, value in list(namespace.items()):
            if name.startswith("__"):
                continue
            if isinstance(value, types.ModuleType):
                out.append([name, "module", _text(getattr(value, "__name__", name))])
            elif callable(value):
                out.append([name, "callable", wire.describe(value)])
            else:
                try:
                    j = wire.Encoder(self.global_ids()).encode(value)
                except wire.NotData:
                    out.append([name, "other", wire.describe(value)])
                    continue
                out.append([name, "data", j])
                self.track_global(name, value)
        return out

    def track_global(self, name, value):
        self.globals[name] = value
        if isinstance(value, wire.MUTABLE):
            self.global_snaps[name] = wire.snapshot(value)
        else:
            self.global_snaps.pop(name, None)

    def global_ids(self):
        return {id(v): n for n, v in self.globals.items() if isinstance(v, _SHARED)}

    def global_changes(self, namespace, known):
        """The code's data globals the tests hold a copy of that a call rebound or changed in place, or that it
        defined: what a test reading the global after the call would see in one process."""
        out = []
        for name, value in list(namespace.items()):
            if name.startswith("__"):
                continue
            old = self.globals.get(name, _MISSING)
            if value is old:
                snap = self.global_snaps.get(name)
                if snap is not None and wire.changed(value, snap):
                    ids = dict(known)
                    ids.update(self.global_ids())
                    try:
                        j = wire.Encoder(ids).encode(value, contents=True)
                    except wire.NotData:
                        continue
                    out.append([name, "~", j])
                    self.global_snaps[name] = wire.snapshot(value)
                continue
            if isinstance(value, types.ModuleType) or callable(value):
                continue
            ids = dict(known)
            ids.update(self.global_ids())
            try:
                j = wire.Encoder(ids).encode(value)
            except wire.NotData:
                continue
            out.append([name, "=", j])
            self.track_global(name, value)
        return out

    def answer(self, message, namespace):
        """The reply to a request: the value (or the exception), then the state of each argument the call
        changed in place, then the globals it changed."""
        decoder = wire.Decoder(dict((n, v) for n, v in self.globals.items() if isinstance(v, _SHARED)),
                               remote=lambda ref, _: self.refs[ref], builtins=_BUILTIN_NAMES, standin=wire.standin,
                               max_depth=wire.CALL_DEPTH)
        try:
            kind, target = message[0], message[1]
            obj = namespace[target[1]] if target[0] == "g" else self.refs[target[1]]
            with wire.Room():
                if kind == "call":
                    attr = message[2]
                    args = [decoder.decode(a) for a in message[3]]
                    kwargs = {k: decoder.decode(v) for k, v in message[4].items()}
                elif kind == "set":
                    attr, args, kwargs = message[2], [decoder.decode(message[3])], {}
                else:
                    attr, args, kwargs = message[2], [], {}
        except (wire.WireError, LookupError, TypeError, ValueError) as e:
            return ["protocol", "a request the program could not read: " + _text(e)]
        known = decoder.aliases
        snaps = {k: wire.snapshot(o) for k, o in known.items() if isinstance(o, wire.MUTABLE)}
        try:
            if kind == "call":
                if attr in _BUILTIN_OPS:
                    result = _BUILTIN_OPS[attr](obj, *args)
                else:
                    fn = obj if attr is None else getattr(obj, attr)
                    result = fn(*args, **kwargs)
            elif kind == "get":
                result = getattr(obj, attr)
            elif kind == "set":
                setattr(obj, attr, args[0])
                result = None
            else:
                return ["protocol", "unknown request " + _text(kind)]
            reply = ["ok", None]
        except BaseException as e:
            result = None
            reply = ["raise", _exception(e, self.path)]
        ids = {id(o): k for k, o in known.items()}
        ids.update(self.global_ids())
        encoder = wire.Encoder(ids, remote=self.remote)
        try:
            if reply[0] == "ok":
                reply[1] = encoder.encode(result)
            reply.append([[k, encoder.encode(o, contents=True)] for k, o in known.items()
                          if k in snaps and wire.changed(o, snaps[k])])
        except wire.NotData as e:
            return ["cap", str(e)]
        reply.append(self.global_changes(namespace, ids))
        return reply

    def remote(self, value):
        ref = self.next_ref
        self.next_ref += 1
        self.refs[ref] = value
        return {"R": [ref, wire.describe(value)]}

    def send(self, message):
        try:
            wire.write_frame(self.wfd, message)
        except wire.WireError as e:
            wire.write_frame(self.wfd, ["cap", str(e)])


#: a built-in sample (rehearse): a function of the kinds of values tests send and get back, one argument changed in
#: place, and tests that check it the way HumanEval's and MBPP's do
REHEARSAL_CODE = """from typing import List, Tuple


def solve(numbers: List[int], threshold: float, name: str = "x") -> Tuple[int, list]:
    total = 0
    for n in numbers:
        if n > threshold:
            total += n
    numbers.sort()
    return total, [name * 2, {"k": numbers[:2]}, (1.5, None, True)]
"""
REHEARSAL_TESTS = """def check(candidate):
    data = [3, 1, 2]
    assert candidate(data, 1.5) == (5, ["xx", {"k": [1, 2]}, (1.5, None, True)])
    assert data == [1, 2, 3]
    assert candidate([], 0.0, name="ab")[1][0] == "abab"
    assert candidate([10, -4], 2) != (0, [])


check(solve)
"""


def rehearse(side):
    """Judges the built-in sample once, with `side` ("judge" or "candidate") in this process and the other side in
    a forked child, joined by pipes, as a job runs them; returns the verdict ("judge") or the exit status.

    For a parent that forks a side for every job (a judge server, the zygote): the side's code has then run here
    once (the compiler warm, caches filled, code specialized), and no child redoes that first run's work in the
    memory it shares with its parent, where every page it writes is a copy-on-write fault (a first compile alone
    cost each program ~70). Call it before the first job: nothing of a job is in this process yet."""
    j2c_r, j2c_w = os.pipe()
    c2j_r, c2j_w = os.pipe()

    def judge_side():
        import judge
        verdict = judge.Judge(c2j_r, j2c_w, 10.0).judge(REHEARSAL_CODE, "main.py", REHEARSAL_TESTS)
        judge.verdict_json(verdict)
        return verdict

    def candidate_side():
        return Candidate(j2c_r, c2j_w, "main.py").run(REHEARSAL_CODE)

    # each process keeps only its own side's ends: a side that fails closes them, and the other reads an end of file
    # instead of waiting on a write end it holds itself
    mine, theirs = (judge_side, candidate_side) if side == "judge" else (candidate_side, judge_side)
    mine_fds, theirs_fds = ((c2j_r, j2c_w), (j2c_r, c2j_w)) if side == "judge" else ((j2c_r, c2j_w), (c2j_r, j2c_w))
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            for fd in mine_fds:
                os.close(fd)
            theirs()
            status = 0
        finally:
            os._exit(status)
    for fd in theirs_fds:
        os.close(fd)
    main, argv = sys.modules.get("__main__"), sys.argv
    try:
        return mine()
    finally:
        sys.modules["__main__"], sys.argv = main, argv
        for fd in mine_fds:
            os.close(fd)
        for fd in mine_fds + theirs_fds:
            wire.forget(fd)
        os.waitpid(pid, 0)


_MISSING = object()
_SHARED = (list, dict, set, bytearray, tuple, frozenset)
_BUILTIN_NAMES = {n: v for n, v in vars(builtins).items() if not n.startswith("_")}


def _read(path):
    """A file's bytes, without open(): its file, buffer and text objects cost a forked process ~60 more page faults
    (copy-on-write) than the system calls do. compile() reads a text's newlines as open() would have left them."""
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


def _text(value):
    try:
        s = value if isinstance(value, str) else repr(value)
    except BaseException:
        s = "?"
    return s if len(s) <= _MAX_TEXT else s[:_MAX_TEXT] + "..."


def _exception(e, path):
    """[type name, message, frames in the code (the last 20), the built-in exception type it derives from, how
    many frames in the code there were]."""
    import traceback  # only when something failed: most runs never pay for it

    frames = []
    stack = [fs for fs in traceback.extract_tb(e.__traceback__) if fs.filename == path]
    for fs in stack[-_MAX_FRAMES:]:
        frames.append([fs.filename, fs.lineno or 0, _text(fs.name), _text(fs.line or "")])
    if isinstance(e, SyntaxError) and e.filename == path:
        frames.append([path, e.lineno or 0, "<module>", _text((e.text or "").strip())])
    base = next((c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"), "BaseException")
    try:
        message = str(e)
    except BaseException:
        message = ""
    return [_text(wire.describe(e)), _text(message), frames, base, len(stack)]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
