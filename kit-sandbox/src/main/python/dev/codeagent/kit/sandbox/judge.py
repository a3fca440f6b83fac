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

import builtins
import collections
import fcntl
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codeagent_wire as wire  # noqa: E402

TESTS_FILE = "<tests>"
_MAX_SHOWN = 200
_MAX_CALLS = 3
#: frames of an exception of the code kept in a verdict (the candidate sends no more; a lying one is cut)
MAX_FRAMES = 20
#: the longest verdict line written: far under what the sandbox reads (256 KiB)
MAX_VERDICT = 64 * 1024
#: CPU seconds the judge spends reading one sample's replies, unless the sandbox says the sample's time limit
_DEFAULT_CPU_LIMIT = 10.0
_SHARED = (list, dict, set, bytearray, tuple, frozenset)
_MISSING = object()
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
    def __init__(self, rfd, wfd, cpu_limit=None):
        self.rfd, self.wfd = rfd, wfd
        self.failure = None
        self.calls = []
        self.exception_types = {}
        self.ns = None
        self.shadowing = set()  # names the code's globals may not take in the tests' namespace
        self.globals = {}  # name -> the tests' copy of a data global of the code, kept as the code changes it
        self.cpu = 0.0  # CPU seconds this judge spent reading the candidate's replies
        # how many values the code has sent that could weigh in a value sent back to it (containers, longer scalars;
        # in replies, argument states, globals): a call of the tests past a cap is the sample's once there is one
        self.code_values = [0]
        self.cpu_limit = _cpu_limit() if cpu_limit is None else cpu_limit
        self.remotes = 0  # remote objects the candidate's replies have made here
        # calls sent ahead (see Plan): the plan of these tests, the steps sent whose replies the tests have not taken
        # yet, the steps of the current run not sent yet, the code's function they call, and the channel's size
        self.plan = None
        self.ahead = collections.deque()
        self.unsent = collections.deque()
        self.ahead_name = None
        self.ahead_frame = None  # the tests' frame making the run's calls
        self.pipe_size = None

    # ------------------------------------------------------------ the channel

    def request(self, message, what, ahead=False):
        """Sends message (None: a call sent ahead, whose reply is next) and reads the reply; ahead: the message is a
        run's first call (see Plan), and its run's next calls go too."""
        if self.failure is not None:
            raise self.failure
        if self.ahead and message is not None:
            self.out_of_step(what)
        try:
            if message is not None:
                wire.write_frame(self.wfd, message)
            if ahead or (message is None and self.unsent):
                self.send_ahead()
            reply = self.read()
        except wire.TooLarge as e:
            # only writing raises it: the tests' call, over the frame cap
            self.unsendable(what, "bytes", "a value of %d bytes, over the %d-byte cap" % (e.size, wire.MAX_FRAME))
        except (wire.Closed, BrokenPipeError):
            self.fail("ended", "the program ended while the tests were calling " + what
                      + ": does the code call sys.exit(), exit() or os._exit(), or kill itself?")
        except (wire.WireError, OSError) as e:
            self.fail("protocol", "the program broke the judging protocol while the tests were calling "
                      + what + ": " + str(e))
        if not isinstance(reply, list) or not reply:
            self.fail("protocol", "the program sent a reply that is not a message")
        return reply

    def read(self):
        """The next message from the candidate, parsed; the CPU it costs this judge is the sample's, counted
        against its time limit (a reply is parsed in time linear in its size, but replies are many)."""
        start = None
        try:
            # reading a frame builds up to MAX_FRAME bytes: out of memory there is the reply's as much as parsing it
            body = wire.read_frame(self.rfd)
            start = time.process_time()
            return wire.loads(body)
        except MemoryError:
            pass
        finally:
            if start is not None:
                self.charge(start)
        # outside the handler: the MemoryError's frames (what was built) are not kept as the failure's context
        body = None
        self.over_memory()

    def charge(self, start):
        self.cpu += time.process_time() - start
        if self.cpu > self.cpu_limit:
            self.over_cpu()

    def over_memory(self):
        # what the reply built is gone once the error unwinds and the reply is let go (the callers keep neither as
        # the failure's context or locals): there is memory again to say so (a MemoryError left to the tests would
        # be theirs, and `except Exception` in them would catch it and pass)
        self.fail("protocol", "the program's reply took more than the judge's memory to read: are its values very "
                  "large?")

    def over_cpu(self):
        self.fail("protocol", "the program's replies took the judge more than %g s of CPU to read (the "
                  "sample's time limit): are its values very large?" % self.cpu_limit)

    def fail(self, outcome, message):
        if self.failure is None:
            self.failure = Failure(outcome, message)
        raise self.failure

    def result(self, reply, what, sent=None):
        """The value of an ok reply, or the exception of a raise reply, raised here; either way the arguments
        the code changed are changed here first, in place, and the globals it changed are updated."""
        kind = reply[0]
        if kind in ("ok", "raise") and len(reply) == 4 and isinstance(reply[2], list) and isinstance(reply[3], list):
            start = time.process_time()
            value = _MISSING
            try:
                value = self.absorb(reply, sent)
            except wire.WireError as e:
                self.fail("protocol", "the program broke the judging protocol while the tests were calling "
                          + what + ": " + str(e))
            except MemoryError:
                pass
            finally:
                self.charge(start)
            if value is _MISSING:
                reply = None
                self.over_memory()
            if kind == "ok":
                return value
            raise self.remote_exception(reply[1])
        elif kind == "cap" and len(reply) == 2:
            self.fail("not-data", what + " gave a value that cannot cross to the tests: " + _short(str(reply[1])))
        elif kind == "protocol":
            self.fail("protocol", "the program could not answer " + what + ": " + _short(str(reply[1:])))
        self.fail("protocol", "the program sent a malformed reply to " + what)

    def absorb(self, reply, sent):
        objects = dict(sent.objects) if sent is not None else {}
        objects.update(self.shared_globals())
        decoder = self.decoder(objects)
        value = decoder.decode(reply[1]) if reply[0] == "ok" else None
        states = []
        for item in reply[2]:
            if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int and sent is not None
                    and isinstance(sent.objects.get(item[0]), wire.MUTABLE)):
                raise wire.WireError("a state sent for an object that was not an argument")
            states.append((sent.objects[item[0]], decoder.decode(item[1])))
        for obj, state in states:
            if type(state) is not type(obj) and not isinstance(state, _base(obj)):
                raise wire.WireError("a state of another type than its object")
            wire.apply(obj, state)
        self.update_globals(reply[3], objects)
        return value

    def decoder(self, known):
        # what is left of the sample's CPU, looked at while decoding: one set of integers that hash alike can cost
        # minutes, which charging once the decoding is done would wait out
        deadline = time.process_time() + self.cpu_limit - self.cpu

        def check():
            if time.process_time() > deadline:
                self.over_cpu()

        return wire.Decoder(known, remote=self.remote_in, standin=wire.standin, check=check, tally=self.code_values)

    def remote_in(self, ref, type_name):
        self.remotes += 1
        return Remote(self, ref, type_name)

    def shared_globals(self):
        return {n: v for n, v in self.globals.items() if isinstance(v, _SHARED)}

    def update_globals(self, changes, known):
        if len(changes) > 10_000:
            raise wire.WireError("more than 10000 globals changed")
        for item in changes:
            if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str) and item[1] in ("=", "~")):
                raise wire.WireError("a malformed global")
            name, how, j = item
            if name.startswith("__") or name in self.shadowing or not name.isidentifier():
                continue
            current = self.ns.get(name, _MISSING)
            if current is not _MISSING and current is not self.globals.get(name, _MISSING):
                # a name the tests bound themselves (or a proxy for the code's function): never the code's to set
                continue
            value = self.decoder(known).decode(j)
            if how == "=":
                self.globals[name] = value
                self.ns[name] = value
                continue
            obj = self.globals.get(name)
            if not isinstance(obj, wire.MUTABLE) or not isinstance(value, _base(obj)):
                raise wire.WireError("a state sent for a global that cannot change")
            wire.apply(obj, value)

    def remote_exception(self, exc):
        if not (isinstance(exc, list) and len(exc) == 5 and isinstance(exc[2], list)):
            self.fail("protocol", "the program sent a malformed exception")
        type_name, message, frames, base, total = exc
        type_name = _short(str(type_name), 100)
        message = _short(str(message), 1000)
        base_type = getattr(builtins, base, None) if isinstance(base, str) else None
        if not (isinstance(base_type, type) and issubclass(base_type, BaseException)) or base_type is Failure:
            base_type = Exception
        if issubclass(base_type, (SystemExit, KeyboardInterrupt, GeneratorExit)):
            # the tests should not be ended by what the code raised: seen as an error of the code
            base_type = Exception
        # a type whose constructor wants more than a message (UnicodeDecodeError, ExceptionGroup) is re-raised as
        # the nearest base that takes one: an error the construction raised here would be the tests' (and a test
        # expecting a TypeError would catch it and pass)
        e = None
        for b in base_type.__mro__:
            if not issubclass(b, BaseException):
                break
            key = (type_name, b)
            try:
                cls = self.exception_types.get(key)
                if cls is None:
                    cls = type(type_name if type_name.isidentifier() else "Exception", (b, CandidateRaised), {})
                e = cls(message)
            except Exception:
                continue
            self.exception_types[key] = cls
            break
        if e is None:
            e = type("Exception", (Exception, CandidateRaised), {})(message)
        e.remote_type, e.remote_message = type_name, message
        kept = [(_short(str(f[0]), 200), _line(f[1]), _short(str(f[2]), 200), _short(str(f[3]), 300))
                for f in frames[-MAX_FRAMES:] if isinstance(f, list) and len(f) == 4]
        total = total if type(total) is int and total >= len(frames) else len(frames)
        if total > len(kept):
            e.remote_message = message + " (%d frames in the code: the last %d kept, the cap)" % (total, len(kept))
        e.remote_frames = tuple(kept)
        return e

    def encoder(self):
        return wire.Encoder({id(v): n for n, v in self.shared_globals().items()}, share=True, remote=self.remote_out,
                            max_depth=wire.CALL_DEPTH)

    def remote_out(self, value):
        """An argument that is not data: a remote object of this judge's candidate goes back by reference, a
        built-in (int, len) by name; anything else the tests made cannot cross."""
        if type(value) is Remote and value._judge is self:
            return {"R": [value._ref]}
        name = getattr(value, "__name__", None)
        if isinstance(name, str) and getattr(builtins, name, None) is value:
            return {"B": name}
        raise wire.NotData("a " + wire.describe(value) + ", which cannot cross to the code under test as data")

    def encode_args(self, what, args, kwargs=None):
        enc = self.encoder()
        try:
            a = [enc.encode(x) for x in args]
            k = {n: enc.encode(x) for n, x in (kwargs or {}).items()}
        except wire.NotData as e:
            self.unsendable(what, e.cap, str(e))
        return enc, a, k

    def unsendable(self, what, cap, why):
        """The tests' call cannot cross. Whose part of the value is over a cap cannot be told: a value of the code's
        is at most MAX_DEPTH deep and MAX_NODES items as it crosses, but the judge holds it whole (an argument the
        code filled in place, a global it rebound and the tests kept, chains of such values through references
        the code named), and the tests may nest it or repeat it. So once the code has sent any value that could
        weigh in it, the failure is the sample's (a sample never makes its own failure an INTERNAL_ERROR); before,
        the tests' value is theirs alone: the tests cannot judge this sample (which call they reach, and with
        what, depends on the code: it never marks the problem's tests broken). A value that is not data (a
        lambda) is the tests' own: the code's values that are not data come back to it by reference."""
        if cap is not None and self.code_values[0]:
            self.fail("protocol", "the tests passed %s %s, a value that holds or is made from the code's own values: "
                      "a program whose values grow this large cannot be judged" % (what, why))
        self.fail("unjudgeable", "the tests passed " + what + " " + why
                  + ("" if cap is None else ", before the code had sent them any value"))

    def call(self, target, attr, label, args, kwargs, caller=None):
        what = label + "(" + _short(", ".join([_shown(a) for a in args]
                                           + ["%s=%s" % (k, _shown(v)) for k, v in kwargs.items()]), 120) + ")"
        line = _test_line()
        try:
            # the crossing's own recursion gets room above the limit: the tests' stack is where it is in one process
            with wire.Room():
                sent, a, k = self.encode_args(what, args, kwargs)
                remotes = self.remotes
                if self.ahead:
                    # this call's reply is on its way: it was sent ahead, as the tests' next call
                    self.take_ahead(caller, target, attr, a, k, what)
                    reply = self.request(None, what)
                else:
                    message = ["call", ["g" if target[0] == "g" else "r", target[1]], attr, a, k]
                    if self.unsent and self.is_step(self.unsent[0], caller, target, attr, a, k):
                        # the run's next step, which had no room in the channel yet: sent now as the tests' call,
                        # and the rest of the run after it
                        self.unsent.popleft()
                        going_on = True
                    else:
                        self.unsent.clear()
                        going_on = self.start_run(caller, target, attr, a, k)
                    reply = self.request(message, what, going_on)
                value = self.result(reply, what, sent)
                if self.remotes != remotes:
                    # the candidate runs no call sent ahead once it has sent a remote object: the tests may use
                    # the object first, as they would in one process
                    self.skip_ahead(what)
        except CandidateRaised as e:
            # nor once a call raised: in one process the tests' next call may come after an except
            self.skip_ahead(what)
            self.calls.append((line, what, "raised " + e.remote_type))
            raise
        self.calls.append((line, what, "returned " + _shown(value)))
        del self.calls[:-50]
        return value

    # ------------------------------------------------------------ calls sent ahead

    def start_run(self, caller, target, attr, a, k):
        """Whether this call starts (or is in) a run of the plan: the run's later calls are then sent ahead. Only
        where the tests' own frame calls the code's function itself, by the step's name, on the step's line, with
        nothing but the tests' frames between it and this judge: a call through a helper (which may call the code
        again, or not at all: a cache), or under code that may catch a failed step's exception (unittest, a context
        decorator, a thread) is not the step's, and the tests would go on after it where one process would not have
        made the calls sent ahead (a reviewer's attacks)."""
        plan = self.plan
        if plan is None or attr is not None or target[0] != "g" or caller is None:
            return False
        at = plan.at.get(caller.f_lineno)
        if at is None:
            return False
        run, index = at
        step = run[index]
        if index + 1 >= len(run) or caller.f_code is not step.code or step.code is None:
            return False
        # the step's frame called by the tests' module (or the module itself), called by the judge: no frame between,
        # not even one C code may hide (an old-style iteration, a length hint, a finalizer can each swallow a failed
        # step's exception), and not a text the tests compiled themselves under their file's name (a reviewer's)
        up = caller.f_back
        if step.code is not step.module:
            if up is None or up.f_code is not step.module:
                return False
            up = up.f_back
        if up is None or up.f_code is not _JUDGE_CODE:
            return False
        if sys.gettrace() is not None or sys.getprofile() is not None:
            # a tracer of the tests' may call the code between two steps
            return False
        threading = sys.modules.get("threading")
        if threading is not None and threading.active_count() > 1:
            # as may a thread of theirs
            return False
        if step.args != wire.dumps(a) or step.kwargs != wire.dumps(k):
            return False
        named = caller.f_locals.get(step.callee, _MISSING)
        if named is _MISSING:
            named = caller.f_globals.get(step.callee, _MISSING)
        if not (type(named) is Function and named._judge is self and named._name == target[1]):
            return False
        self.unsent = collections.deque(run[index + 1:])
        self.ahead_name = target[1]
        self.ahead_frame = caller
        return True
    def send_ahead(self):
        """Sends the run's next calls while the channel has room for them: a write here never waits, so the judge
        never blocks on the candidate while the candidate waits for it to read its replies."""
        while self.unsent:
            step = self.unsent[0]
            body = step.frame(self.ahead_name)
            data = b"%d\n%s" % (len(body), body)
            if not self.room(len(data)):
                return
            self.unsent.popleft()
            self.ahead.append(step)
            view = memoryview(data)
            while view:
                view = view[os.write(self.wfd, view):]

    def room(self, n):
        """Whether n more bytes fit in the channel with half of it left free."""
        if self.pipe_size is None:
            try:
                self.pipe_size = fcntl.fcntl(self.wfd, _F_GETPIPE_SZ)
            except OSError:
                self.pipe_size = 0
        if not self.pipe_size:
            return False
        try:
            unread = int.from_bytes(fcntl.ioctl(self.wfd, _FIONREAD, bytes(4)), sys.byteorder)
        except OSError:
            self.pipe_size = 0
            return False
        return unread + n <= self.pipe_size // 2

    def take_ahead(self, caller, target, attr, a, k, what):
        if not self.is_step(self.ahead[0], caller, target, attr, a, k):
            self.out_of_step(what)
        self.ahead.popleft()

    def is_step(self, step, caller, target, attr, a, k):
        """Whether this call of the tests is the step of the current run."""
        return (caller is self.ahead_frame and attr is None and target[0] == "g" and target[1] == self.ahead_name
                and step.first <= caller.f_lineno <= step.last and step.args == wire.dumps(a)
                and step.kwargs == wire.dumps(k))

    def skip_ahead(self, what):
        """Reads the candidate's word that it skipped each call sent ahead: after a raise or a remote object, it
        runs none of them."""
        self.unsent.clear()
        while self.ahead:
            self.ahead.popleft()
            try:
                reply = self.read()
            except (wire.Closed, OSError):
                self.fail("ended", "the program ended while the tests were calling " + what
                          + ": does the code call sys.exit(), exit() or os._exit(), or kill itself?")
            except wire.WireError as e:
                self.fail("protocol", "the program broke the judging protocol while the tests were calling "
                          + what + ": " + str(e))
            if reply != ["skipped"]:
                self.fail("protocol", "the program ran a call the tests had not made yet after " + what)

    def out_of_step(self, what):
        # the plan says which calls the tests make next; should they make another, the candidate has run calls
        # one process would not have: no verdict from here on could be trusted
        self.fail("unjudgeable", "the judge's calls sent ahead went out of step with the tests at %s (the judge's "
                  "fault, not the code's)" % what)

    # ------------------------------------------------------------ the run

    def namespace(self, inventory, prelude, entries):
        """The tests' globals: the code's names as proxies, except that none shadows a built-in (a global
        abs() returning 0 would pass abs(candidate(x) - y) < 1e-6), and that a trusted prelude (HumanEval's
        prompt) is run here and keeps its own helpers (a redefined poly() must not check find_zero's
        answer), all but the entry points, which are the code's (and may be named like a built-in: MBPP's
        task 126 asks for a function called sum)."""
        ns = {"__name__": "__main__", "__builtins__": builtins}
        self.ns = ns
        if prelude is not None:
            exec(prelude, ns)
        trusted = set(ns) - set(entries)
        self.shadowing = trusted | {n for n in dir(builtins) if n not in entries}
        for entry in inventory if isinstance(inventory, list) else ():
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
                self.fail("protocol", "the program sent a malformed list of its names")
            name, kind, detail = entry
            if name in trusted or (hasattr(builtins, name) and name not in entries):
                continue
            if kind == "data":
                start = time.process_time()
                value = _MISSING
                try:
                    value = self.decoder(self.shared_globals()).decode(detail)
                except wire.WireError as e:
                    self.fail("protocol", "the program broke the judging protocol before the tests started: " + str(e))
                except MemoryError:
                    pass
                finally:
                    self.charge(start)
                if value is _MISSING:
                    inventory = entry = detail = None
                    self.over_memory()
                ns[name] = self.globals[name] = value
            elif kind == "callable":
                ns[name] = Function(self, name)
            elif kind == "module" and detail == name and name in sys.stdlib_module_names:
                # the tests may use a module the code imported; the judge imports its own copy (only under
                # its own name: "import operator as math" must not hand the tests another module)
                try:
                    ns[name] = __import__(detail, fromlist=["_"])
                except Exception:
                    # a module this judge cannot import as the code did (no display for tkinter): the tests that
                    # use it fail on the name, as the code's doing
                    pass
            else:
                ns[name] = Unusable(self, name, str(detail))
        return ns

    def run(self, code_path, tests_path, prelude_path=None, entries=()):
        """The verdict of the tests in tests_path on the code in code_path (judge.py's files)."""
        with open(code_path, encoding="utf-8") as f:
            code = f.read()
        try:
            with open(tests_path, encoding="utf-8") as f:
                tests = f.read()
            prelude = None
            if prelude_path is not None:
                with open(prelude_path, encoding="utf-8") as f:
                    prelude = f.read()
        except UnicodeDecodeError as e:
            return report("tests", "the tests do not compile (the problem's fault, not the code's): %s: %s"
                          % (type(e).__name__, e))
        return self.judge(code, code_path, tests, prelude, entries)

    def judge(self, code, code_name, tests, prelude=None, entries=()):
        """The verdict of the tests on the code (its text, and the file name its frames give), from their texts:
        a judge server's child has them in memory, and writing and reading them back cost it more page faults
        (copy-on-write, after the fork) than any other step."""
        self.plan = _plan(tests, prelude, entries)
        try:
            tests = _compile(tests, TESTS_FILE)
            prelude = None if prelude is None else _compile(prelude, "<prelude>")
        except (SyntaxError, ValueError) as e:
            return report("tests", "the tests do not compile (the problem's fault, not the code's): %s: %s"
                          % (type(e).__name__, getattr(e, "msg", None) or e))
        ready = pending = None
        try:
            ready = self.read_ready()
        except BaseException as e:
            # the code's syntax is decided here, from the code itself, whatever the candidate said (it may be the
            # code's own forgery); only then: a candidate that said it is ready compiled the code before any of
            # it ran, and a first compile is a fork's costliest step (~200 faulted pages)
            syntax = _syntax(code, code_name)
            if syntax is not None:
                return syntax
            pending = e
        try:
            if pending is not None:
                raise pending
            ns = self.namespace(ready[1], prelude, entries)
            exec(tests, ns)
        except Failure as f:
            return self.failed(f)
        except CandidateRaised as e:
            # before ImportError: the code's own failed import (at load or in a call) is the code's error
            return report("raised", "%s: %s" % (e.remote_type, e.remote_message), test_line=_failure_line(e),
                          error=(e.remote_type, e.remote_message, list(e.remote_frames)),
                          calls=self.calls_on(_failure_line(e)))
        except ImportError as e:
            if self.failure is not None:
                # the tests caught the code's failure (a bare except) and went on to an import: the failure decides
                return self.failed(self.failure)
            if _raised_by_tests(e):
                # an import in the tests themselves (or the prelude) that this judge cannot satisfy: the problem's,
                # and the same for every sample when the tests had not called the code yet (after a call, which
                # import the tests reach may be the code's doing: this sample's alone)
                return report("tests" if not self.calls else "unjudgeable",
                              "the tests cannot import what they need (the problem's fault, not the code's): "
                              "%s: %s" % (type(e).__name__, _short(_str(e))), test_line=_failure_line(e))
            return self.tests_error(e)
        except AssertionError as e:
            return self.assertion(e)
        except BaseException as e:
            return self.tests_error(e)
        if self.failure is not None:
            # the tests caught it, but nothing the code did when it failed can make them pass
            return self.failed(self.failure)
        try:
            wire.write_frame(self.wfd, ["bye"])
        except OSError:
            pass
        return report("passed", "")

    def read_ready(self):
        try:
            reply = self.read()
        except wire.Closed:
            self.fail("ended", "the program ended before the tests started: does the code call sys.exit(), exit() "
                      "or os._exit() at the top level?")
        except wire.WireError as e:
            self.fail("protocol", "the program broke the judging protocol before the tests started: " + str(e))
        if isinstance(reply, list) and reply[:1] == ["ready"] and len(reply) == 2:
            return reply
        if isinstance(reply, list) and reply[:1] == ["loaderr"] and len(reply) == 2:
            raise self.remote_exception(reply[1])
        if isinstance(reply, list) and reply[:1] == ["exit"]:
            self.fail("ended", "the program called sys.exit(%s) before the tests started" % _short(str(reply[1:2])[1:-2]))
        self.fail("protocol", "the program did not say it was ready")

    def failed(self, f):
        return report(f.outcome, f.message, calls=self.calls_on(_failure_line(f)))

    def assertion(self, e):
        line = _failure_line(e)
        text = _test_statement(line)
        message = "failed assertion" + (": " + text if text else "")
        own = _str(e)
        if own:
            message += " - " + own
        return report("assertion", message, test_line=line, calls=self.calls_on(line))

    def tests_error(self, e):
        line = _failure_line(e)
        own = _short(_str(e))
        return report("tests-error", "%s: %s" % (type(e).__name__, own), test_line=line,
                      error=(type(e).__name__, own, []), calls=self.calls_on(line))

    def calls_on(self, line):
        found = [c for c in self.calls if c[0] == line] if line else []
        return [w + " " + r for _, w, r in (found or self.calls[-1:])[-_MAX_CALLS:]]


class Function:
    """A function or class the code defined, called remotely."""

    __slots__ = ("_judge", "_name")

    def __init__(self, judge, name):
        self._judge, self._name = judge, name

    def __call__(self, *args, **kwargs):
        return self._judge.call(("g", self._name), None, self._name, args, kwargs, sys._getframe(1))

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
        return self._judge.result(self._judge.request(["get", ["r", self._ref], attr], what), what)

    def __setattr__(self, attr, value):
        what = "<%s>.%s = ..." % (self._type, attr)
        sent, a, _ = self._judge.encode_args(what, [value])
        self._judge.result(self._judge.request(["set", ["r", self._ref], attr, a[0]], what), what, sent)

    def __call__(self, *args, **kwargs):
        return self._call(None, *args, **kwargs)

    # what Python asks of __iter__, __len__ and __bool__, the candidate (which calls iter(), len() and bool() on
    # its object) always gives: anything else is a lie, which Python would raise here as a TypeError or ValueError
    # of the tests (that a test expecting one would catch and pass)

    def __iter__(self):
        it = self._call("!iter")
        if isinstance(it, Remote):
            return it
        try:
            return iter(it)
        except TypeError:
            self._lie("an iterator", it)

    def __next__(self):
        return self._call("!next")

    def __len__(self):
        n = self._call("!len")
        if type(n) is not int or not 0 <= n <= sys.maxsize:
            self._lie("a length", n)
        return n

    def __getitem__(self, key):
        return self._call("!getitem", key)

    def __contains__(self, item):
        return self._call("!contains", item)

    def __bool__(self):
        # truthiness is the code's to say, as it would be if it returned True or False
        b = self._call("!bool")
        if type(b) is not bool:
            self._lie("True or False", b)
        return b

    def _lie(self, what, value):
        self._judge.fail("protocol", "the program sent %s for %s of its %s" % (_shown(value), what, self._type))

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
    import ast  # only on a failure: the judge's start stays without it
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


#: items a value shown in a verdict may hold, counted along every path: a value that shares its parts (a list holding
#: the next one twice, 60 deep) crosses as 120 containers, and repr() would walk its 2**60 paths
_MAX_SHOWN_ITEMS = 10_000


def _shown(value):
    try:
        if not _small(value):
            return "<%s of %d items>" % (wire.describe(value), _len(value))
        s = repr(value)
    except BaseException:
        s = "<%s>" % wire.describe(value)
    return _short(s)


def _small(value):
    """Whether value, walked as repr() would walk it (a shared part once per path), has at most _MAX_SHOWN_ITEMS
    items: the walk stops there, so its cost is bounded whatever the value."""
    stack, seen = [value], 0
    while stack:
        seen += 1
        if seen > _MAX_SHOWN_ITEMS:
            return False
        x = stack.pop()
        t = type(x)
        if t in _SHOWN_LEAVES:
            continue
        # (the exact container types first: this runs for every item of every call's arguments and result)
        base = t if t in _SHOWN_CONTAINERS else next((b for b in _SHOWN_CONTAINERS if isinstance(x, b)), None)
        if base is None:
            continue
        # the base type's own length and items: a subclass's methods are not run to decide how to show it
        if len(stack) + (2 if base is dict else 1) * base.__len__(x) > _MAX_SHOWN_ITEMS:
            return False
        if base is dict:
            stack.extend(dict.keys(x))
            stack.extend(dict.values(x))
        else:
            stack.extend(base.__iter__(x))
    return True


_SHOWN_CONTAINERS = (dict, list, tuple, set, frozenset)
#: exact types that are none of those (a subclass of one is looked up the long way)
_SHOWN_LEAVES = frozenset((int, float, complex, str, bytes, bool, type(None)))


def _len(value):
    try:
        return next(b for b in _SHOWN_CONTAINERS if isinstance(value, b)).__len__(value)
    except BaseException:
        return 0


def _str(e):
    """The text of an exception the tests raised, which may hold the code's values: str() of a KeyError of an
    integer past Python's 4300 digits raises, as may a value's own __str__; never an error of the verdict's."""
    try:
        s = str(e)
        return s if isinstance(s, str) else ""
    except BaseException:
        return "<%s whose text cannot be shown>" % wire.describe(e)


#: a line number beyond any code's: what a forged frame says past it is not believed (0: unknown)
_MAX_LINE = 10 ** 7


def _line(n):
    return n if type(n) is int and 1 <= n <= _MAX_LINE else 0


def _short(s, n=_MAX_SHOWN):
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 3] + "..."


def report(outcome, message, test_line=None, error=None, calls=()):
    """The verdict line: outcome is passed, assertion, raised, not-data, ended, protocol, syntax,
    loaderr (via raised), tests-error or tests (the tests cannot run as written)."""
    source = _test_source(test_line)
    out = {"outcome": outcome, "message": _short(message, 300), "testLine": test_line,
           "testSource": None if source is None else _short(source, 300), "calls": [_short(c, 400) for c in calls]}
    if error is not None:
        out["error"] = {"type": _short(str(error[0]), 100), "message": _short(str(error[1]), 1000),
                        "frames": [{"file": _short(str(f[0]), 200), "line": _line(f[1]),
                                    "function": _short(str(f[2]), 200), "source": _short(str(f[3]), 300)}
                                   for f in list(error[2])[-MAX_FRAMES:] if isinstance(f, tuple) and len(f) == 4]}
    return out


def verdict_json(verdict):
    """The verdict's JSON text, never longer than MAX_VERDICT: each part is cut when the report is made, and
    should that not do, the calls and the frames go (the sandbox must never get a line it cannot read)."""
    text = _json(verdict)
    if len(text) > MAX_VERDICT:
        verdict = dict(verdict, calls=[])
        if "error" in verdict:
            verdict["error"] = dict(verdict["error"], frames=[])
        text = _json(verdict)
    return text


def _cpu_limit():
    try:
        limit = float(os.environ.get("CODEAGENT_JUDGE_CPU", _DEFAULT_CPU_LIMIT))
    except ValueError:
        return _DEFAULT_CPU_LIMIT
    return limit if limit > 0 else _DEFAULT_CPU_LIMIT


def _base(obj):
    return next(b for b in wire.MUTABLE if isinstance(obj, b))


def _syntax(code, code_name):
    """The syntax verdict of the code, or None when it compiles."""
    try:
        compile(code, code_name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        # a NUL byte in the code is a ValueError before Python 3.11.4 and 3.12, a SyntaxError since: the code's
        # either way, never the judge's
        msg = _short(_str(getattr(e, "msg", None) or e), 1000)
        line = (getattr(e, "text", None) or "").strip()
        return report("syntax", "%s: %s" % (type(e).__name__, msg), error=(type(e).__name__, msg,
                      [(code_name, getattr(e, "lineno", None) or 0, "<module>", line)]))
    return None


def _raised_by_tests(e):
    """Whether an ImportError came from an import the tests (or the trusted prelude) made themselves."""
    import traceback

    return any(fs.filename in (TESTS_FILE, "<prelude>") for fs in traceback.extract_tb(e.__traceback__))


class _SitePackages:
    """The judge starts without site (-S: a third of an interpreter's start, when most tests import nothing
    but the standard library), yet must import what the program may import: the first import the standard
    library cannot satisfy adds the interpreter's site directories, as site would have (the same
    interpreter and packages as the candidate, which runs with site but without the user's site)."""

    done = False

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if cls.done or path is not None:
            return None
        cls.done = True
        import importlib.machinery
        import site

        site.ENABLE_USER_SITE = False
        site.main()
        return importlib.machinery.PathFinder.find_spec(name)

    @classmethod
    def install(cls):
        if not sys.flags.no_site or cls in sys.meta_path:
            return
        sys.meta_path.append(cls)


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


#: the tests and preludes a judge server compiled before forking a job's child (text, name) -> code: trusted texts
#: only, never the code under test; an evaluation's samples share their problem's tests, and compiling a suite of a
#: few hundred asserts cost each sample's judge ~3 ms
_compiled = {}
_MAX_COMPILED = 512


def precompile(text, name):
    """Compiles a trusted text (the tests, as TESTS_FILE, or the prelude) for the children forked after this, and
    reads what of it can be sent ahead (Plan); a text that does not compile is left for the child to report."""
    global _COMPARE, _ARITHMETIC, _ast
    if text is None or (text, name) in _compiled:
        return
    if len(_compiled) >= _MAX_COMPILED:
        _compiled.clear()
        _read.clear()
    import ast

    try:
        tree = ast.parse(text, name)
        code = compile(tree, name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return
    _compiled[(text, name)] = code
    if not _COMPARE:
        _ast = ast
        _COMPARE, _ARITHMETIC = _step_kinds()
    try:
        _read[(text, name)] = _Reading(tree, name == TESTS_FILE, code)
    except (RecursionError, MemoryError):
        pass


# ---------------------------------------------------------------- calls sent ahead

_F_GETPIPE_SZ = getattr(fcntl, "F_GETPIPE_SZ", 1032)
_FIONREAD = 0x541B

#: what a judge server read of the tests and preludes it compiled: (text, name) -> _Reading
_read = {}


class _Step:
    """One statement of the tests that calls the code once, with literal arguments: `assert f(1, [2]) == 3`."""

    __slots__ = ("first", "last", "callee", "args", "kwargs", "code", "module")

    def __init__(self, first, last, callee, args, kwargs):
        self.first, self.last, self.callee, self.args, self.kwargs = first, last, callee, args, kwargs
        # the code objects of the frame that runs the step and of the tests' module (None: neither found)
        self.code = self.module = None

    def frame(self, name):
        return ('["ahead",["g",%s],null,%s,%s]' % (json.dumps(name), self.args, self.kwargs)).encode("ascii")


#: the built-ins a step may call besides the code: none of them calls the code (a value of the code's that is not
#: data stops the calls sent ahead before the tests can use it)
_PLAIN = frozenset(("abs", "round", "len", "sorted", "set", "list", "tuple", "str", "int", "float", "sum", "min",
                    "max", "frozenset", "dict", "bool", "repr", "type", "isinstance", "reversed", "complex", "bytes"))


class _Reading:
    """What a trusted text binds (names), whether anything in it can catch an exception (or suspend: a generator's
    caller decides when it goes on), and, for tests, their runs: consecutive statements of the module or of a plain
    function at its top that each call the same function of the code once with literal arguments and use nothing
    else but built-ins (see Plan). tree: the text parsed (ast), which the caller compiles."""

    def __init__(self, tree, tests, code=None):
        import ast  # in the judge server, once per problem: its children inherit what it read

        self.bound, self.uses, self.catching, self.runs = set(), set(), False, []
        self._catching = tuple(getattr(ast, n) for n in ("Try", "TryStar", "With", "AsyncWith", "Match", "Yield",
                                                         "YieldFrom", "Await", "AsyncFunctionDef") if hasattr(ast, n))
        steps = []
        if tests:
            # a step binds nothing and catches nothing: only the other statements are walked (a suite is mostly steps)
            self._runs(ast, tree.body, steps)
            for step, _ in steps:
                step.code = step.module = code
            for node in tree.body:
                if type(node) is ast.FunctionDef and not node.decorator_list:
                    self.bound.add(node.name)
                    self._walk(ast, node.args)
                    if node.returns is not None:
                        self._walk(ast, node.returns)
                    before = len(steps)
                    self._runs(ast, node.body, steps)
                    inner = next((c for c in (code.co_consts if code is not None else ()) if type(c) is type(code)
                                  and c.co_name == node.name and c.co_firstlineno == node.lineno), None)
                    for step, _ in steps[before:]:
                        step.code, step.module = inner, code
                    for inner in node.body:
                        if not getattr(inner, "_step", False):
                            self._walk(ast, inner)
                elif not getattr(node, "_step", False):
                    self._walk(ast, node)
        else:
            self._walk(ast, tree)
        if not tests or self.catching:
            self.runs = []
            return
        for step, call in steps:
            try:
                args = [_made(a) for a in call.args]
                kwargs = {kw.arg: _made(kw.value) for kw in call.keywords}
                # as the judge's encoder sends the tests' arguments (Judge.encoder): values alone have no objects known
                enc = wire.Encoder(share=True, max_depth=wire.CALL_DEPTH)
                step.args = wire.dumps([enc.encode(x) for x in args])
                step.kwargs = wire.dumps({n: enc.encode(x) for n, x in kwargs.items()}) if kwargs else "{}"
            except (wire.NotData, RecursionError, MemoryError, ValueError, TypeError):
                step.args = None
        # a step whose arguments cannot be made here (not a literal: 'ab' + 'c', 0 ** 0) is a statement like any
        # other: it ends its run, and the next run starts after it
        runs = []
        for run in self.runs:
            part = []
            for step in run + [None]:
                if step is not None and step.args is not None:
                    part.append(step)
                    continue
                if len(part) > 1:
                    runs.append(part)
                part = []
        self.runs = runs

    def _runs(self, ast, body, steps):
        run = []
        for i, stmt in enumerate(body):
            alone = ((i == 0 or body[i - 1].end_lineno < stmt.lineno)
                     and (i + 1 == len(body) or body[i + 1].lineno > stmt.end_lineno))
            call = self._step(ast, stmt) if alone else None
            if call is None or (run and run[0].callee != call.func.id):
                if len(run) > 1:
                    self.runs.append(run)
                run = []
            if call is not None:
                stmt._step = True
                step = _Step(stmt.lineno, stmt.end_lineno, call.func.id, None, None)
                steps.append((step, call))
                run.append(step)
        if len(run) > 1:
            self.runs.append(run)

    def _walk(self, ast, tree):
        """Adds the names tree binds; marks the text catching when tree holds a try, a with, a match or a yield."""
        Name, Store, Del, arg = ast.Name, ast.Store, ast.Del, ast.arg
        defs, imports, scopes = (ast.FunctionDef, ast.ClassDef), (ast.Import, ast.ImportFrom), (ast.Global, ast.Nonlocal)
        for node in ast.walk(tree):
            t = type(node)
            if t is Name:
                if type(node.ctx) is Store or type(node.ctx) is Del:
                    self.bound.add(node.id)
            elif t is arg:
                self.bound.add(node.arg)
            elif t in defs:
                self.bound.add(node.name)
            elif t in imports:
                self.bound.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif t in scopes:
                self.bound.update(node.names)
            elif isinstance(node, self._catching):
                self.catching = True

    def _step(self, ast, stmt):
        """The one call of the code in stmt when stmt is a step, else None."""
        if type(stmt) is not ast.Assert or not (stmt.msg is None or type(stmt.msg) is ast.Constant):
            return None
        found = []
        names = set()
        if not _expression(stmt.test, found, names) or len(found) != 1:
            return None
        call = found[0]
        if not names <= _PLAIN or any(kw.arg is None for kw in call.keywords):
            return None
        self.uses |= names
        return call


def _expression(node, calls, names):
    """Whether node is made of literals, names and calls only (a step's expression), with the calls of anything but
    a plain built-in put in calls and every other name read in names."""
    ast = _ast
    t = type(node)
    if t is ast.Constant:
        return True
    if t is ast.Name:
        names.add(node.id)
        return type(node.ctx) is ast.Load
    if t is ast.Call:
        if type(node.func) is not ast.Name:
            return False
        if node.func.id in _PLAIN:
            names.add(node.func.id)
        else:
            calls.append(node)
        return (all(_expression(a, calls, names) for a in node.args)
                and all(_expression(k.value, calls, names) for k in node.keywords))
    if t is ast.Compare:
        return (type(node.ops[0]) in _COMPARE and all(type(o) in _COMPARE for o in node.ops)
                and _expression(node.left, calls, names) and all(_expression(c, calls, names) for c in node.comparators))
    if t is ast.BinOp:
        return type(node.op) in _ARITHMETIC and _expression(node.left, calls, names) and _expression(node.right, calls, names)
    if t is ast.UnaryOp:
        return _expression(node.operand, calls, names)
    if t is ast.Subscript:
        return _expression(node.value, calls, names) and _expression(node.slice, calls, names)
    if t is ast.Slice:
        return all(p is None or _expression(p, calls, names) for p in (node.lower, node.upper, node.step))
    if t is ast.List or t is ast.Tuple or t is ast.Set:
        return all(_expression(e, calls, names) for e in node.elts)
    if t is ast.Dict:
        return (None not in node.keys and all(_expression(k, calls, names) for k in node.keys)
                and all(_expression(v, calls, names) for v in node.values))
    return False


def _made(node):
    """The value of a literal as ast.literal_eval reads one (a number, string, bytes, True, False, None, a negative
    number, a complex sum, and lists and dicts of them), made without running anything, a new object each time as the
    tests' code makes one; ValueError for anything else (tuples and sets: see below)."""
    ast = _ast
    t = type(node)
    if t is ast.Constant:
        return node.value
    if t is ast.Tuple:
        # a tuple of constants is one object of the tests' code, made once: a global of the code's that kept it from
        # an earlier call crosses to the judge as that very object, and the judge then sends it by name; what the
        # candidate should get cannot be told before the call (a reviewer's attack), so such a call is not sent ahead
        raise ValueError("a tuple")
    if t is ast.List:
        return [_made(e) for e in node.elts]
    if t is ast.Set:
        # the order a set iterates in is the compiler's making (a frozenset constant for three or more constants):
        # a call with one is not sent ahead, rather than sent as a set that iterates otherwise
        raise ValueError("a set")
    if t is ast.Dict:
        if None in node.keys:
            raise ValueError("a dict unpacked")
        return {_made(k): _made(v) for k, v in zip(node.keys, node.values)}
    if t is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd) and _number(node.operand):
        return -node.operand.value if type(node.op) is ast.USub else +node.operand.value
    if (t is ast.BinOp and type(node.op) in (ast.Add, ast.Sub) and type(node.right) is ast.Constant
            and type(node.right.value) is complex):
        left = _made(node.left)
        if type(left) not in (int, float) or not (_number(node.left) or type(node.left) is ast.UnaryOp):
            raise ValueError("not a complex number")
        return left + node.right.value if type(node.op) is ast.Add else left - node.right.value
    raise ValueError("not a literal")


def _number(node):
    ast = _ast
    return type(node) is ast.Constant and type(node.value) in (int, float, complex)


def _step_kinds():
    import ast

    return (frozenset((ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn)),
            frozenset((ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)))


_COMPARE = _ARITHMETIC = frozenset()
_ast = None  # the ast module, once a judge server reads a text


class Plan:
    """Which calls of the tests can be sent to the candidate before the tests make them, so that it computes them
    one after another and the judge reads each reply as the tests reach it: one turn of the channel instead of one
    a call (a suite of hundreds of asserts paid a turn for each).

    A run is a list of statements that follow one another in the tests' module or in a plain function at its top
    (HumanEval's check), each `assert` on a call of the same function with literal arguments (no tuple, no set: see
    _made), and nothing else but literals and built-ins no one rebinds. Its calls are sent ahead only when the tests'
    own frame calls the code's function itself by that name, with nothing but the tests' frames between it and the
    judge (Judge.start_run). Then the tests make the run's calls in order with exactly those arguments, or stop: a
    statement can only go on to the next or raise, and nothing in the tests or the prelude can catch (neither has a
    try, a with, a match or a generator). Each call is still checked against the step it stands for when the tests
    make it (its frame, line, function and arguments' wire text).

    What one process would not do, the candidate does not count: it skips every call sent ahead once a call raised
    or sent a remote object (after which the tests could make other calls first); and a run's calls after a failed
    assertion, which one process would never make, may run in the candidate but decide nothing: the failed
    assertion's verdict stands over whatever the candidate does after it (the sandbox ends its run)."""

    def __init__(self, runs):
        self.at = {}
        for run in runs:
            for i, step in enumerate(run):
                for line in range(step.first, step.last + 1):
                    self.at[line] = (run, i)


#: (tests, prelude) -> their Plan
_plans = {}
#: the code of the frame that runs the tests (Judge.judge): the only caller the tests' frames may have for a run
_JUDGE_CODE = Judge.judge.__code__


def _plan(tests, prelude, entries=()):
    """The plan for these tests after this prelude, or None when nothing can be sent ahead: only texts a judge
    server read before forking (the cost of reading them is paid once per problem, not per sample)."""
    key = (tests, prelude, tuple(entries))
    if key in _plans:
        return _plans[key]
    reading = _read.get((tests, TESTS_FILE))
    before = None if prelude is None else _read.get((prelude, "<prelude>"))
    plan = None
    if reading is not None and reading.runs and (prelude is None or (before is not None and not before.catching
                                                                     and not (before.bound & reading.uses))
                                                 ) and not (reading.bound & reading.uses) \
            and not (set(entries) & reading.uses):
        # (an entry named like a built-in, MBPP's sum, is the code's: a second call of the code in a step)
        plan = Plan(reading.runs)
    if len(_plans) >= _MAX_COMPILED:
        _plans.clear()
    _plans[key] = plan
    return plan


def _compile(text, name):
    code = _compiled.get((text, name))
    return code if code is not None else compile(text, name, "exec", dont_inherit=True)


def judge_files(channel_in, channel_out, code_path, tests_path, prelude_path=None, entries=(), cpu_limit=None):
    """The verdict (a dict) of the tests in tests_path on the code in code_path, running in the candidate
    across the channel (judge.py, run once per job); see judge_texts."""
    with open(code_path, encoding="utf-8") as f:
        code = f.read()
    with open(tests_path, encoding="utf-8") as f:
        tests = f.read()
    prelude = None
    if prelude_path is not None:
        with open(prelude_path, encoding="utf-8") as f:
            prelude = f.read()
    return judge_texts(channel_in, channel_out, code, code_path, tests, prelude, entries, cpu_limit)


def judge_texts(channel_in, channel_out, code, code_name, tests, prelude=None, entries=(), cpu_limit=None):
    """The verdict (a dict) of the tests on the code (code_name: the file its frames name), running in the
    candidate across the channel; judge_server.py's children call it with the texts they were sent. cpu_limit:
    the sample's own CPU limit in seconds, which the judge's reading of its replies counts against (default: the
    environment's CODEAGENT_JUDGE_CPU, else 10 s)."""
    _SitePackages.install()
    if hasattr(sys, "set_int_max_str_digits"):
        # as in a plain interpreter; the wire sends larger integers in hexadecimal
        sys.set_int_max_str_digits(wire.INT_DIGITS)
    rfd, wfd = wire.open_channel(channel_in, channel_out, read_first=False)
    _tests_source[:] = tests.splitlines()
    return Judge(rfd, wfd, cpu_limit).judge(code, code_name, tests, prelude, entries)


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
    data = memoryview((nonce + verdict_json(verdict) + "\n").encode("ascii"))
    while data:
        data = data[os.write(verdict_fd, data):]
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
