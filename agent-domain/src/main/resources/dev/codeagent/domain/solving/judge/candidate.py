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

    def run(self):
        module = types.ModuleType("__main__")
        module.__file__ = self.path
        module.__builtins__ = __builtins__
        sys.modules["__main__"] = module
        sys.argv = [self.path] + self.args
        try:
            with open(self.path, encoding="utf-8") as f:
                source = f.read()
            code = compile(source, self.path, "exec")
            exec(code, module.__dict__)
        except SystemExit as e:
            self.send(("exit", _text(e.code)))
            return 0
        except BaseException as e:
            # code that does not load ends as python3 would end it, with status 1, whoever is first: the judge
            # compiles the code too and may have reported a syntax error and hung up before this is written
            try:
                self.send(("loaderr",) + _exception(e, self.path))
            except OSError:
                pass
            return 1
        self.send(("ready", self.inventory(module.__dict__)))
        while True:
            try:
                message = wire.parse_trusted(wire.read_frame(self.rfd))
            except wire.Closed:
                return 0
            if not isinstance(message, tuple) or not message or message[0] == "bye":
                return 0
            self.send(self.answer(message, module.__dict__))

    def inventory(self, namespace):
        out = []
        for name, value in list(namespace.items()):
            if name.startswith("__"):
                continue
            if isinstance(value, types.ModuleType):
                out.append((name, "module", getattr(value, "__name__", name)))
            elif wire.is_data(value):
                out.append((name, "data", value))
            elif callable(value):
                out.append((name, "callable", wire.describe(value)))
            else:
                out.append((name, "other", wire.describe(value)))
        return tuple(out)

    def answer(self, message, namespace):
        try:
            kind, target = message[0], message[1]
            obj = namespace[target[1]] if target[0] == "g" else self.refs[target[1]]
            if kind == "call":
                attr, args, kwargs = message[2], message[3], message[4]
                args = [self.arg(a) for a in args]
                if attr in _BUILTIN_OPS:
                    result = _BUILTIN_OPS[attr](obj, *args)
                else:
                    fn = obj if attr is None else getattr(obj, attr)
                    result = fn(*args, **{k: self.arg(v) for k, v in kwargs.items()})
            elif kind == "get":
                result = getattr(obj, message[2])
            elif kind == "set":
                setattr(obj, message[2], self.arg(message[3]))
                result = None
            else:
                return ("protocol", "unknown request " + _text(kind))
        except BaseException as e:
            return ("raise",) + _exception(e, self.path)
        return ("ok", self.encode(result))

    def arg(self, item):
        return item[1] if item[0] == "v" else self.untag(item[1]) if item[0] == "t" else self.refs[item[1]]

    def untag(self, node):
        tag, body = node
        if tag == "d":
            return body
        if tag == "r":
            return self.refs[body]
        if tag == "b":
            return getattr(builtins, body)
        if tag == "m":
            return {self.untag(k): self.untag(v) for k, v in body}
        return {"l": list, "u": tuple, "s": set, "f": frozenset}[tag](self.untag(x) for x in body)

    def encode(self, value):
        if wire.is_data(value):
            return ("v", value)
        plain = _plain(value)
        if plain is not None:
            return plain
        ref = self.next_ref
        self.next_ref += 1
        self.refs[ref] = value
        return ("r", ref, wire.describe(value))

    def send(self, message):
        try:
            wire.write_frame(self.wfd, message)
        except wire.WireError as e:
            wire.write_frame(self.wfd, ("protocol", str(e)))


_BASES = (bool, int, float, complex, str, bytes, dict, list, tuple, frozenset, set)


class _NotData(Exception):
    pass


def _plain(value):
    """The value with every instance of a subclass of a data type (Counter, OrderedDict, defaultdict, a
    namedtuple, an IntEnum) replaced by its base type's value, as it compares against plain data; None
    when something in it is not data at all. Whatever a subclass's own __eq__ says is dropped: the judge
    compares the plain values."""
    try:
        out = _plain_item(value, 0)
    except (_NotData, RecursionError):
        return None
    except BaseException:
        return None
    return ("v", out) if wire.is_data(out) else None


def _plain_item(value, depth):
    if depth > wire.MAX_DEPTH:
        raise _NotData()
    if type(value) in wire.SCALARS:
        return value
    base = next((b for b in _BASES if isinstance(value, b)), None)
    if base is None:
        raise _NotData()
    if base is dict:
        return {_plain_item(k, depth + 1): _plain_item(v, depth + 1) for k, v in dict.items(value)}
    if base in (list, tuple, set, frozenset):
        return base(_plain_item(x, depth + 1) for x in base.__iter__(value))
    if base is str:
        return str.__str__(value)
    return base(value)


def _text(value):
    try:
        s = value if isinstance(value, str) else repr(value)
    except BaseException:
        s = "?"
    return s if len(s) <= _MAX_TEXT else s[:_MAX_TEXT] + "..."


def _exception(e, path):
    """(type name, message, frames in the code, the built-in exception type it derives from)."""
    import traceback  # only when something failed: most runs never pay for it

    frames = []
    for fs in traceback.extract_tb(e.__traceback__)[-_MAX_FRAMES:]:
        if fs.filename == path:
            frames.append((fs.filename, fs.lineno or 0, _text(fs.name), _text(fs.line or "")))
    if isinstance(e, SyntaxError) and e.filename == path:
        frames.append((path, e.lineno or 0, "<module>", _text((e.text or "").strip())))
    base = next((c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"), "BaseException")
    try:
        message = str(e)
    except BaseException:
        message = ""
    return (_text(wire.describe(e)), _text(message), tuple(frames), base)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
