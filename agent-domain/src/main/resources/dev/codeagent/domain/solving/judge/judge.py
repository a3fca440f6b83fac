"""The judge side of codeagent's judge: runs a task's tests against code running in another process.

Usage: judge.py IN OUT CODE_FILE TESTS_FILE [PRELUDE_FILE|- ENTRY[,ENTRY...]]
       (IN, OUT: inherited descriptor numbers, or FIFO paths)

The code under test runs in the candidate process (candidate.py), which this process cannot be
reached from: another uid, its own pipes. The tests run here, in a namespace where every name the
code defined is a proxy: calling one sends the arguments as data over OUT_FD and reads the result
from IN_FD as data, parsed here (codeagent_wire). A value that is not data (a generator, an instance
of the code's own class) comes back as a remote object that can be called, iterated, read and
written, but never compared: comparing it fails the tests, since its __eq__ would be the code's.

The verdict is one JSON line on this process's stdout, which only the sandbox reads; the candidate
cannot write there. Every way the candidate can end or misbehave gives a failing verdict; only
tests that ran to their end give "passed".
"""

import ast  # noqa: F401  (codeagent_wire imports it lazily; a judge zygote should have it before it forks)
import builtins
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codeagent_wire as wire  # noqa: E402

TESTS_FILE = "<tests>"
_MAX_SHOWN = 200
_MAX_CALLS = 3
#: the test line a failure stands on is looked for this many frames up from a proxy
_MAX_WALK = 50


class Failure(BaseException):
    """A failure the tests cannot catch and the candidate cannot cause to be forgotten: a BaseException
    (so that `except Exception` in the tests passes it by) which also marks the judge as failed."""

    def __init__(self, outcome, message):
        super().__init__(message)
        self.outcome = outcome
        self.message = message


class CandidateRaised(BaseException):
    """Mixed into the exceptions the code raised during a call, re-raised here as the same built-in
    type (so that tests expecting a ValueError see one)."""

    remote_type = ""
    remote_message = ""
    remote_frames = ()


class Judge:
    def __init__(self, rfd, wfd):
        self.rfd, self.wfd = rfd, wfd
        self.failure = None
        self.calls = []
        self.exception_types = {}

    # ------------------------------------------------------------ the channel

    def request(self, message, what):
        if self.failure is not None:
            raise self.failure
        try:
            wire.write_frame(self.wfd, message)
            reply = wire.parse(wire.read_frame(self.rfd))
        except (wire.Closed, BrokenPipeError):
            self.fail("ended", "the program ended while the tests were calling " + what
                      + ": does the code call sys.exit(), exit() or os._exit(), or kill itself?")
        except (wire.WireError, OSError) as e:
            self.fail("protocol", "the program broke the judging protocol while the tests were calling "
                      + what + ": " + str(e))
        if not isinstance(reply, tuple) or not reply:
            self.fail("protocol", "the program sent a reply that is not a message")
        return reply

    def fail(self, outcome, message):
        if self.failure is None:
            self.failure = Failure(outcome, message)
        raise self.failure

    def result(self, reply, what):
        """The value of an ok reply, or the exception of a raise reply, raised here."""
        kind = reply[0]
        if kind == "ok" and len(reply) == 2 and isinstance(reply[1], tuple):
            item = reply[1]
            if item[:1] == ("v",) and len(item) == 2:
                return item[1]
            if item[:1] == ("r",) and len(item) == 3 and type(item[1]) is int and type(item[2]) is str:
                return Remote(self, item[1], item[2])
        elif kind == "raise" and len(reply) == 5:
            raise self.remote_exception(reply)
        elif kind == "protocol":
            self.fail("protocol", "the program could not answer " + what + ": " + _short(str(reply[1:])))
        self.fail("protocol", "the program sent a malformed reply to " + what)

    def remote_exception(self, reply):
        _, type_name, message, frames, base = reply
        base_type = getattr(builtins, base, None) if isinstance(base, str) else None
        if not (isinstance(base_type, type) and issubclass(base_type, BaseException)) or base_type is Failure:
            base_type = Exception
        if issubclass(base_type, (SystemExit, KeyboardInterrupt, GeneratorExit)):
            # the tests should not be ended by what the code raised: seen as an error of the code
            base_type = Exception
        key = (str(type_name), base_type)
        cls = self.exception_types.get(key)
        if cls is None:
            cls = type(str(type_name), (base_type, CandidateRaised), {})
            self.exception_types[key] = cls
        try:
            e = cls(message)
        except BaseException:
            e = cls()
        e.remote_type, e.remote_message = str(type_name), str(message)
        e.remote_frames = frames if isinstance(frames, tuple) else ()
        return e

    def encode_arg(self, value, what):
        """An argument as data ("v", value), or as a tagged tree ("t", tree) when it holds objects of the
        code (sent back by reference) or built-ins (int, len: sent by name)."""
        if wire.is_data(value):
            return ("v", value)
        return ("t", self.tagged(value, what, 0))

    def tagged(self, value, what, depth):
        if depth > wire.MAX_DEPTH:
            self.fail("tests", "the tests passed " + what + " a value nested too deeply")
        t = type(value)
        if t is Remote and value._judge is self:
            return ("r", value._ref)
        if t in wire.SCALARS:
            return ("d", value)
        if t in (list, tuple, set, frozenset):
            return ({list: "l", tuple: "u", set: "s", frozenset: "f"}[t],
                    tuple(self.tagged(x, what, depth + 1) for x in value))
        if t is dict:
            return ("m", tuple((self.tagged(k, what, depth + 1), self.tagged(v, what, depth + 1)) for k, v in value.items()))
        name = getattr(value, "__name__", None)
        if isinstance(name, str) and getattr(builtins, name, None) is value:
            return ("b", name)
        self.fail("tests", "the tests passed " + what + " a " + wire.describe(value)
                  + ", which cannot cross to the code under test as data")

    def call(self, target, attr, label, args, kwargs):
        what = label + "(" + _short(", ".join([_shown(a) for a in args]
                                           + ["%s=%s" % (k, _shown(v)) for k, v in kwargs.items()]), 120) + ")"
        message = ("call", target, attr, tuple(self.encode_arg(a, what) for a in args),
                   {k: self.encode_arg(v, what) for k, v in kwargs.items()})
        line = _test_line()
        try:
            value = self.result(self.request(message, what), what)
        except CandidateRaised as e:
            self.calls.append((line, what, "raised " + e.remote_type))
            raise
        self.calls.append((line, what, "returned " + _shown(value)))
        del self.calls[:-50]
        return value

    # ------------------------------------------------------------ the run

    def namespace(self, inventory, prelude, entries):
        """The tests' globals: the code's names as proxies, except that none shadows a built-in (a global
        abs() returning 0 would pass abs(candidate(x) - y) < 1e-6), and that a trusted prelude (HumanEval's
        prompt) is run here and keeps its own helpers (a redefined poly() must not check find_zero's
        answer), all but the entry points, which are the code's (and may be named like a built-in: MBPP's
        task 126 asks for a function called sum)."""
        ns = {"__name__": "__main__", "__builtins__": builtins}
        if prelude is not None:
            exec(prelude, ns)
        trusted = set(ns) - set(entries)
        for entry in inventory if isinstance(inventory, tuple) else ():
            if not (isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[0], str)):
                self.fail("protocol", "the program sent a malformed list of its names")
            name, kind, detail = entry
            if name in trusted or (hasattr(builtins, name) and name not in entries):
                continue
            if kind == "data":
                ns[name] = detail
            elif kind == "callable":
                ns[name] = Function(self, name)
            elif kind == "module" and detail == name and name in sys.stdlib_module_names:
                # the tests may use a module the code imported; the judge imports its own copy (only under
                # its own name: "import operator as math" must not hand the tests another module)
                try:
                    ns[name] = __import__(detail, fromlist=["_"])
                except ImportError:
                    pass
            else:
                ns[name] = Unusable(self, name, str(detail))
        return ns

    def run(self, code_path, tests_path, prelude_path=None, entries=()):
        with open(code_path, encoding="utf-8") as f:
            code = f.read()
        try:
            compile(code, code_path, "exec", dont_inherit=True)
        except SyntaxError as e:
            # decided here, from the code itself: the candidate's word is not needed
            line = (e.text or "").strip()
            return report("syntax", "%s: %s" % (type(e).__name__, e.msg), error=(type(e).__name__, e.msg,
                          [(code_path, e.lineno or 0, "<module>", line)]))
        with open(tests_path, encoding="utf-8") as f:
            tests = compile(f.read(), TESTS_FILE, "exec", dont_inherit=True)
        prelude = None
        if prelude_path is not None:
            with open(prelude_path, encoding="utf-8") as f:
                prelude = compile(f.read(), "<prelude>", "exec", dont_inherit=True)
        try:
            ready = self.read_ready()
            ns = self.namespace(ready[1], prelude, entries)
            exec(tests, ns)
        except Failure as f:
            return self.failed(f)
        except CandidateRaised as e:
            return report("raised", "%s: %s" % (e.remote_type, e.remote_message), test_line=_failure_line(e),
                          error=(e.remote_type, e.remote_message, list(e.remote_frames)),
                          calls=self.calls_on(_failure_line(e)))
        except AssertionError as e:
            return self.assertion(e)
        except BaseException as e:
            return self.tests_error(e)
        if self.failure is not None:
            # the tests caught it, but nothing the code did when it failed can make them pass
            return self.failed(self.failure)
        try:
            wire.write_frame(self.wfd, ("bye",))
        except OSError:
            pass
        return report("passed", "")

    def read_ready(self):
        try:
            reply = wire.parse(wire.read_frame(self.rfd))
        except wire.Closed:
            self.fail("ended", "the program ended before the tests started: does the code call sys.exit(), exit() "
                      "or os._exit() at the top level?")
        except wire.WireError as e:
            self.fail("protocol", "the program broke the judging protocol before the tests started: " + str(e))
        if isinstance(reply, tuple) and reply[:1] == ("ready",) and len(reply) == 2:
            return reply
        if isinstance(reply, tuple) and reply[:1] == ("loaderr",) and len(reply) == 5:
            raise self.remote_exception(reply)
        if isinstance(reply, tuple) and reply[:1] == ("exit",):
            self.fail("ended", "the program called sys.exit(%s) before the tests started" % _short(str(reply[1:2])[1:-2]))
        self.fail("protocol", "the program did not say it was ready")

    def failed(self, f):
        return report(f.outcome, f.message, calls=self.calls_on(_failure_line(f)))

    def assertion(self, e):
        line = _failure_line(e)
        text = _test_statement(line)
        message = "failed assertion" + (": " + text if text else "")
        if str(e):
            message += " - " + str(e)
        return report("assertion", message, test_line=line, calls=self.calls_on(line))

    def tests_error(self, e):
        line = _failure_line(e)
        return report("tests-error", "%s: %s" % (type(e).__name__, _short(str(e))), test_line=line,
                      error=(type(e).__name__, _short(str(e)), []), calls=self.calls_on(line))

    def calls_on(self, line):
        found = [c for c in self.calls if c[0] == line] if line else []
        return [w + " " + r for _, w, r in (found or self.calls[-1:])[-_MAX_CALLS:]]


class Function:
    """A function or class the code defined, called remotely."""

    __slots__ = ("_judge", "_name")

    def __init__(self, judge, name):
        self._judge, self._name = judge, name

    def __call__(self, *args, **kwargs):
        return self._judge.call(("g", self._name), None, self._name, args, kwargs)

    def __repr__(self):
        return "<%s of the code under test>" % self._name


class Unusable:
    """A name the code defined whose value is neither data nor callable."""

    __slots__ = ("_judge", "_what")

    def __init__(self, judge, name, kind):
        object.__setattr__(self, "_judge", judge)
        object.__setattr__(self, "_what", "%s (a %s)" % (name, kind))

    def __getattr__(self, attr):
        self._judge.fail("not-data", "the tests used " + self._what + ", which cannot cross to the judge as data")

    def __call__(self, *args, **kwargs):
        self.__getattr__("__call__")


class Remote:
    """A value of the code under test that is not data: it may be called, iterated and its attributes
    read or written, all remotely, but not compared, hashed or used in arithmetic."""

    __slots__ = ("_judge", "_ref", "_type")

    def __init__(self, judge, ref, type_name):
        object.__setattr__(self, "_judge", judge)
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_type", type_name)

    def _call(self, attr, *args, **kwargs):
        return self._judge.call(("r", self._ref), attr, "<%s>.%s" % (self._type, attr or "__call__"), args, kwargs)

    def __getattr__(self, attr):
        what = "<%s>.%s" % (self._type, attr)
        return self._judge.result(self._judge.request(("get", ("r", self._ref), attr), what), what)

    def __setattr__(self, attr, value):
        what = "<%s>.%s = ..." % (self._type, attr)
        self._judge.result(self._judge.request(("set", ("r", self._ref), attr, self._judge.encode_arg(value, what)),
                                               what), what)

    def __call__(self, *args, **kwargs):
        return self._call(None, *args, **kwargs)

    def __iter__(self):
        it = self._call("!iter")
        return it if isinstance(it, Remote) else iter(it)

    def __next__(self):
        return self._call("!next")

    def __len__(self):
        return self._call("!len")

    def __getitem__(self, key):
        return self._call("!getitem", key)

    def __contains__(self, item):
        return self._call("!contains", item)

    def __bool__(self):
        # truthiness is the code's to say, as it would be if it returned True or False
        return self._call("!bool")

    def _not_comparable(self, *_):
        self._judge.fail("not-data", "the code returned an object that cannot be compared: " + self._type)

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = _not_comparable
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _not_comparable
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __abs__ = _not_comparable
    __float__ = __int__ = __index__ = __round__ = _not_comparable

    def __repr__(self):
        return "<%s from the code under test>" % self._type

    __str__ = __repr__


# ---------------------------------------------------------------- reporting

_tests_source = []


def _test_line():
    f = sys._getframe(2)
    for _ in range(_MAX_WALK):
        if f is None:
            return None
        if f.f_code.co_filename == TESTS_FILE:
            return f.f_lineno
        f = f.f_back
    return None


def _failure_line(e):
    line = None
    import traceback  # only on a failure: a passing run never pays for it

    for fs in traceback.extract_tb(e.__traceback__):
        if fs.filename == TESTS_FILE:
            line = fs.lineno
    return line


def _test_source(line):
    if not line or line > len(_tests_source):
        return None
    return _tests_source[line - 1].strip()


_MAX_STATEMENT = 400


def _test_statement(line):
    """The whole statement of the tests around line, on one line: an assert written over several lines is
    shown entire, not cut after its first line mid-expression. The line itself when the tests do not parse."""
    if not line or line > len(_tests_source):
        return None
    try:
        tree = ast.parse("\n".join(_tests_source))
    except (SyntaxError, ValueError):
        return _test_source(line)
    best = None
    for node in ast.walk(tree):
        end = getattr(node, "end_lineno", None)
        if isinstance(node, ast.stmt) and end is not None and node.lineno <= line <= end:
            # the innermost statement: an assert inside a function, not the whole def
            if best is None or end - node.lineno < best[1] - best[0]:
                best = (node.lineno, end)
    if best is None:
        return _test_source(line)
    parts = (part.strip().rstrip("\\").rstrip() for part in _tests_source[best[0] - 1:best[1]])
    text = " ".join(part for part in parts if part)
    return text if len(text) <= _MAX_STATEMENT else text[:_MAX_STATEMENT - 1] + "\u2026"


def _shown(value):
    try:
        s = repr(value)
    except BaseException:
        s = "<%s>" % wire.describe(value)
    return _short(s)


def _short(s, n=_MAX_SHOWN):
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 3] + "..."


def report(outcome, message, test_line=None, error=None, calls=()):
    """The verdict line: outcome is passed, assertion, raised, not-data, ended, protocol, syntax,
    loaderr (via raised), tests-error or tests (the tests cannot run as written)."""
    out = {"outcome": outcome, "message": _short(message, 300), "testLine": test_line,
           "testSource": _test_source(test_line), "calls": list(calls)}
    if error is not None:
        out["error"] = {"type": error[0], "message": _short(error[1], 1000),
                        "frames": [{"file": f[0], "line": f[1], "function": f[2], "source": f[3]}
                                   for f in error[2] if isinstance(f, tuple) and len(f) == 4]}
    return out


def _json(v):
    """JSON text of the verdict (dicts, lists, str, int, bool, None), all ASCII: json itself costs a
    few milliseconds of every judge's start, and this is all the verdict needs."""
    if v is None:
        return "null"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, str):
        out = ['"']
        for c in v:
            o = ord(c)
            if c == '"' or c == "\\":
                out.append("\\" + c)
            elif 0x20 <= o < 0x7F:
                out.append(c)
            elif o > 0xFFFF:
                o -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
            else:
                out.append("\\u%04x" % o)
        out.append('"')
        return "".join(out)
    if isinstance(v, dict):
        return "{" + ",".join(_json(str(k)) + ":" + _json(x) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_json(x) for x in v) + "]"
    return _json(str(v))


def judge_files(channel_in, channel_out, code_path, tests_path, prelude_path=None, entries=()):
    """The verdict (a dict) of the tests in tests_path on the code in code_path, running in the candidate
    across the channel; for judge.py run once, and for judge_server.py, once per forked job."""
    rfd, wfd = wire.open_channel(channel_in, channel_out, read_first=False)
    with open(tests_path, encoding="utf-8") as f:
        _tests_source[:] = f.read().splitlines()
    return Judge(rfd, wfd).run(code_path, tests_path, prelude_path, entries)


def main(argv):
    if len(argv) not in (5, 7):
        sys.stderr.write("usage: judge.py IN OUT CODE_FILE TESTS_FILE [PRELUDE_FILE|- ENTRY[,ENTRY...]]\n")
        return 2
    # The verdict goes to the descriptor that was stdout, prefixed by a nonce from the sandbox when it gave
    # one: the tests' own prints (which may hold strings the candidate returned) go to stderr, so nothing
    # printed while judging can end up looking like the verdict line.
    nonce = os.environ.pop("CODEAGENT_JUDGE_NONCE", "")
    verdict_fd = os.dup(1)
    os.set_inheritable(verdict_fd, False)
    os.dup2(2, 1)
    prelude, entries = (argv[5], [e for e in argv[6].split(",") if e]) if len(argv) == 7 else (None, ())
    prelude = None if prelude == "-" else prelude
    verdict = judge_files(argv[1], argv[2], argv[3], argv[4], prelude, entries)
    data = memoryview((nonce + _json(verdict) + "\n").encode("ascii"))
    while data:
        data = data[os.write(verdict_fd, data):]
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
