"""The wire between codeagent's judge and the code it judges: frames, and values as data.

Both sides import this module, but only the judge trusts its own copy: whatever the candidate
sends is parsed here, on the judge's side, with ``json`` (C speed, linear, and bound by Python's
4300-digit limit on decimal integers) and then walked into Python values with explicit caps. Nothing
is ever unpickled, evaluated or called; a reply that is not data is a protocol error.

A frame is an ASCII decimal length, a newline, then that many bytes of JSON: a list whose first item
names the message. A value crosses as JSON, where a list stands for a list, numbers, strings, true,
false and null for themselves (floats keep -0.0, Infinity and NaN), and a one-key object for anything
else (see ``Encoder``):

  {"u": [..]} tuple   {"d": [k, v, k, v..]} dict   {"s": [..]} set   {"f": [..]} frozenset
  {"y": "latin-1"} bytes   {"a": "latin-1"} bytearray   {"c": [re, im]} complex   {"i": "-1f.."} a big int
  {"N": [key, v]} v, which later parts of this message call {"A": key} (aliases, cycles)
  {"O": key} an object both sides already hold (an argument of this call, a global of the code)
  {"T": [type, base, extra, v]} an instance of a subclass of a built-in type, as a stand-in type
  {"R": [ref, type]} an object of the code that is not data, held by the candidate (a remote object)
  {"B": name} a built-in (judge -> candidate only: int, len)
"""

import collections
import json
import operator
import os
import re
import stat
import sys

#: the largest frame either side accepts (bytes of JSON)
MAX_FRAME = 8 * 1024 * 1024
#: how deeply containers may nest in a value (the value's own levels: a message's envelope does not count)
MAX_DEPTH = 100
#: how deeply the tests' arguments may nest: a value of the code's (at most MAX_DEPTH) inside at most MAX_DEPTH
#: levels of the tests' own, so that a send past it is the tests' doing alone and never the code's (a sample that
#: returned a value 100 deep made the tests' `f([r])` unsendable, blamed on the problem for every sample)
CALL_DEPTH = 2 * MAX_DEPTH
#: how many items (containers and scalars together) one message may hold
MAX_NODES = 1_000_000
#: Python's default cap on decimal integer text (3.11): the judge keeps it, as a plain interpreter does, so
#: that parsing a sent integer stays linear; larger integers cross in hexadecimal, which is linear both ways
INT_DIGITS = 4300
_HEX_BITS = 13_000  # about 3,900 decimal digits: below INT_DIGITS
_MAX_HEADER = 12
#: a stand-in type's name, a field name: at most this long
_MAX_NAME = 200


class WireError(Exception):
    """A frame or a value that breaks the protocol; its text says what was wrong, in one line."""


class TooLarge(WireError):
    """A message over MAX_FRAME bytes, not sent; size is its length."""

    def __init__(self, message, size):
        super().__init__(message)
        self.size = size


class Closed(WireError):
    """The other side closed its end (it exited, or was killed)."""


class NotData(Exception):
    """A value the encoder cannot send as data (and may not send as a remote object); the text says why, and cap
    which of the caps it is over ("depth", "nodes"), or None for a value that is not data."""

    def __init__(self, message, cap=None):
        super().__init__(message)
        self.cap = cap


# ---------------------------------------------------------------- frames

def open_channel(read_end, write_end, read_first):
    """The (read fd, write fd) of a channel given as inherited descriptor numbers ("3") or as FIFO
    paths. FIFOs are opened in one fixed order on both sides (the judge->candidate FIFO first), since
    opening one end blocks until the other side opens its end."""
    if read_end.isdigit() and write_end.isdigit():
        return int(read_end), int(write_end)
    if read_first:
        r = _open_fifo(read_end, os.O_RDONLY)
        return r, _open_fifo(write_end, os.O_WRONLY)
    w = _open_fifo(write_end, os.O_WRONLY)
    return _open_fifo(read_end, os.O_RDONLY), w


def _open_fifo(path, flags):
    """path opened with flags, once it is known to be a FIFO no third uid can open: the host opens a channel to
    the judge's and the candidate's uids alone, and a channel open to others (a regression) could carry a forged
    reply or verdict, or the tests' calls to another local user: refused loudly instead."""
    fd = os.open(path, flags | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISFIFO(mode) or mode & 0o007:
        os.close(fd)
        raise WireError("the channel %s is %s with modes %s: it must be a FIFO that other users cannot open"
                        % (path, "a FIFO" if stat.S_ISFIFO(mode) else "not a FIFO", stat.filemode(mode)))
    return fd


def dumps(message):
    """The JSON text of a message made of JSON-ready parts (what an Encoder gives)."""
    return json.dumps(message, ensure_ascii=True, allow_nan=True, check_circular=False, separators=(",", ":"))


def write_frame(fd, message):
    """Writes one message (JSON-ready) as a frame to fd."""
    body = dumps(message).encode("ascii")
    if len(body) > MAX_FRAME:
        raise TooLarge("a message of %d bytes is over the %d-byte cap" % (len(body), MAX_FRAME), len(body))
    data = memoryview(b"%d\n" % len(body) + body)
    while data:
        data = data[os.write(fd, data):]


#: what was read from each descriptor past the frame returned: a frame's header and body come in one read (the
#: header a byte per read cost four system calls a frame, a third of a round trip's)
_pending = {}


def forget(fd):
    """Drops what was read past the last frame from fd (a descriptor closed, whose number may come back)."""
    _pending.pop(fd, None)


def read_frame(fd):
    """The bytes of the next frame on fd (not yet parsed)."""
    buf = _pending.pop(fd, b"")
    while True:
        end = buf.find(b"\n", 0, _MAX_HEADER + 1)
        if end >= 0:
            break
        if len(buf) > _MAX_HEADER:
            raise WireError("a frame header longer than %d bytes" % _MAX_HEADER)
        c = os.read(fd, 65536)
        if not c:
            raise Closed("the other side closed the channel")
        buf += c
    digits = buf[:end]
    if not digits.isdigit():
        raise WireError("a frame header that is not a length: %r" % buf[:min(end + 1, 20)])
    n = int(digits)
    if n > MAX_FRAME:
        raise WireError("a frame of %d bytes is over the %d-byte cap" % (n, MAX_FRAME))
    start = end + 1
    if len(buf) - start < n:
        chunks = [buf[start:]]
        have = len(chunks[0])
        while have < n:
            c = os.read(fd, max(n - have, 65536) if n - have < (1 << 20) else 1 << 20)
            if not c:
                raise Closed("the other side closed the channel")
            chunks.append(c)
            have += len(c)
        buf = b"".join(chunks)
        start = 0
    body = buf[start:start + n]
    if len(buf) > start + n:
        _pending[fd] = buf[start + n:]
    return body


# a JSON string once its escapes are gone: one character class repeated, which the regex engine matches in
# constant memory (an alternation repeated per character kept a backtracking record per character: a 3 MB
# string global cost the judge more than its 256 MiB, a MemoryError blamed on the tests)
_STRINGS = re.compile(rb'"[^"]*"')


def loads(body, max_depth=MAX_DEPTH, raw_count=True):
    """The JSON of a frame, as lists, dicts, str, int, float, bool, None: linear in its size and bounded in
    memory (items are counted before any is built: 8 MiB of "[]," would be 2.7 million lists). raw_count=False
    for the judge's own frames, which its encoder counted: a container it sends is wrapped ({"N": [k, [...]]}),
    several JSON items to one of the value's, and 450,000 lists within the cap failed the raw count."""
    if not isinstance(body, bytes) or not body.isascii():
        raise WireError("a frame that is not ASCII text")
    # every item takes a byte at least: a body this short cannot hold more (most replies are a few dozen bytes,
    # and the count below is three passes over them and a regular expression)
    if raw_count and len(body) > 2 * MAX_NODES:
        # escaped backslashes first, so that what remains of a backslash before a quote escapes it
        bare = _STRINGS.sub(b"", body.replace(b"\\\\", b"").replace(b'\\"', b""))
        if bare.count(b",") + bare.count(b"[") + bare.count(b"{") > 2 * MAX_NODES:
            raise WireError("a message of more than %d items (the cap)" % MAX_NODES)
    try:
        with Room(max_depth):
            return json.loads(body)
    except RecursionError:
        raise WireError("a message nested deeper than %d levels (the cap)" % max_depth) from None
    except ValueError as e:
        if "digits" in str(e):
            raise WireError("an integer of more than %d decimal digits (the cap)" % INT_DIGITS) from None
        raise WireError("a frame that is not JSON") from None


class Room:
    """Room above the interpreter's recursion limit for the wire's own recursion (encoding, JSON text, decoding) of a
    value depth levels deep, wherever in its stack the caller is: a test calling the code 900 calls deep works in
    one process, and the crossing must not make it a RecursionError. A level is up to seven JSON levels
    ({"N": [k, {"T": [.., {"u": [..]}]}]}). Never around the code's own run: its limit is the interpreter's."""

    def __init__(self, depth=CALL_DEPTH):
        self.extra = 8 * depth + 50
        self.limit = None

    def __enter__(self):
        self.limit = sys.getrecursionlimit()
        sys.setrecursionlimit(self.limit + self.extra)
        return self

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.limit)


# ---------------------------------------------------------------- values out

_BASES = (bool, int, float, complex, str, bytes, bytearray, dict, list, tuple, frozenset, set)
_TAGS = {tuple: "u", set: "s", frozenset: "f"}
MUTABLE = (list, dict, set, bytearray)


def _qualname(t):
    try:
        name = "%s.%s" % (t.__module__, t.__qualname__)
        return name if isinstance(name, str) else "object"
    except BaseException:
        return "object"


class Encoder:
    """Turns values into JSON-ready parts for one message. known: id -> key of the objects the other side
    already holds (they cross as {"O": key}); share: give every container a key ({"N": ..}), so the other side
    can name it in its reply; remote(obj): the JSON part of a value that is not data, or raise NotData.
    Counts nodes and depth exactly as Decoder does, so a value one side sends the other accepts."""

    def __init__(self, known=None, share=False, remote=None, max_depth=MAX_DEPTH):
        self.known = known or {}
        self.share = share
        self.remote = remote
        self.max_depth = max_depth
        self.nodes = 0
        self.keys = {}  # id -> key of each container sent in this message
        self.objects = {}  # key -> the container itself (kept alive: ids stay unique)
        self.slots = {}  # id -> (holder list, index) of a container's first, unwrapped occurrence
        self.open = set()  # ids of immutables being encoded (a cycle through one cannot be rebuilt)

    def encode(self, value, contents=False):
        holder = [None]
        holder[0] = self._enc(value, 0, holder, 0, contents)
        return holder[0]

    def _enc(self, v, depth, holder, index, contents=False):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise NotData("a value of more than %d items (the cap)" % MAX_NODES, "nodes")
        if depth > self.max_depth:
            raise NotData("a value nested deeper than %d levels (the cap)" % self.max_depth, "depth")
        t = type(v)
        if t is str or t is bool or v is None or t is float:
            return v
        if t is int:
            if v.bit_length() > _HEX_BITS:
                return {"i": format(v, "x")}
            return v
        i = id(v)
        if not contents:
            key = self.known.get(i)
            if key is not None:
                return {"O": key}
            key = self.keys.get(i)
            if key is not None:
                if i in self.open:
                    raise NotData("a cycle through an immutable value", "cycle")
                slot = self.slots.get(i)
                if slot is None:
                    self.slots[i] = "named"  # a cycle: named when its first occurrence is done
                elif type(slot) is tuple:
                    # its first occurrence is named, so that this one can refer to it
                    slot[0][slot[1]] = {"N": [key, slot[0][slot[1]]]}
                    self.slots[i] = "done"
                return {"A": key}
        base = t if t in _BASES else next((b for b in _BASES if isinstance(v, b)), None)
        if base is None:
            if self.remote is None:
                raise NotData("a " + describe(v))
            return self.remote(v)
        if base is complex:
            out = {"c": [complex.__getattribute__(v, "real"), complex.__getattribute__(v, "imag")]}
        elif base is bytes:
            out = {"y": bytes(v).decode("latin-1")}
        elif base is bytearray:
            out = {"a": bytes(v).decode("latin-1")}
        elif base in (int, float, str, bool):
            out = {int: int.__int__, float: float.__float__, str: str.__str__, bool: bool}[base](v)
            if base is int and out.bit_length() > _HEX_BITS:
                out = {"i": format(out, "x")}
        else:
            key = len(self.keys) + 1
            self.keys[i] = key
            self.objects[key] = v
            self.slots[i] = None  # being encoded
            immutable = base is tuple or base is frozenset
            if immutable:
                self.open.add(i)
            items = list(dict.items(v)) if base is dict else base.__iter__(v)
            body = []
            if base is dict:
                for k, x in items:
                    body.append(None)
                    body[-1] = self._enc(k, depth + 1, body, len(body) - 1)
                    body.append(None)
                    body[-1] = self._enc(x, depth + 1, body, len(body) - 1)
            else:
                for x in items:
                    body.append(None)
                    body[-1] = self._enc(x, depth + 1, body, len(body) - 1)
            if immutable:
                self.open.discard(i)
            out = body if base is list else {"d" if base is dict else _TAGS[base]: body}
            if t is not base:
                out = {"T": [_qualname(t), base.__name__, self._extra(v, t), out]}
            if (self.share and not contents) or self.slots[i] == "named":
                self.slots[i] = "done"
                return {"N": [key, out]}
            self.slots[i] = (holder, index)
            return out
        if t is not base:
            out = {"T": [_qualname(t), base.__name__, self._extra(v, t), out]}
        return out

    @staticmethod
    def _extra(v, t):
        """What a stand-in keeps of its type: a namedtuple's field names, an enum member's name."""
        try:
            fields = getattr(t, "_fields", None)
            if type(fields) is tuple and all(type(f) is str for f in fields):
                return ["fields"] + list(fields)
            name = getattr(v, "_name_", None)
            if type(name) is str:
                return ["name", name]
        except BaseException:
            pass
        return []


def describe(value):
    """A short, safe name for what a value is (for "cannot be compared: ..." messages)."""
    try:
        t = type(value)
        name = getattr(t, "__qualname__", None) or getattr(t, "__name__", "object")
        return name if isinstance(name, str) else "object"
    except BaseException:
        return "object"


# ---------------------------------------------------------------- values in

_SCALARS = (str, int, float, bool, type(None))
_FLAT = frozenset(_SCALARS)
_HEX = re.compile(r"-?[0-9a-f]+")
_CONTAINER_TAGS = {"u": tuple, "s": set, "f": frozenset, "d": dict}


class Decoder:
    """Turns a value's JSON back into Python, with the caps (nodes per message, depth per value). known: key ->
    an object this side holds (for {"O": key}); remote(ref, type_name): the object for {"R": ..};
    builtins: the names {"B": name} may give (empty on the judge's side); standin(name, base, extra, value): the
    value for {"T": ..}; check(): called every few items and insertions, to end a decoding that costs too much CPU
    by raising (integers that all hash alike make a set or a dict quadratic to build: a few thousand of them cost a
    C call seconds, so sets and dicts are filled an item at a time and the cost is looked at as it goes)."""

    def __init__(self, known=None, remote=None, builtins=None, standin=None, check=None, max_depth=MAX_DEPTH,
                 tally=None):
        self.known = known or {}
        # tally[0] counts the values decoded that could weigh in a value sent back: containers, and scalars of
        # more than a few bytes (the judge tells by it whether the code's values can be in the tests' arguments)
        self.tally = tally
        self.max_depth = max_depth
        self.remote = remote
        self.builtins = builtins or {}
        self.standin = standin
        self.check = check
        self.nodes = 0
        self.ops = 0
        self.aliases = {}  # key -> object named by {"N": [key, ..]} in this message
        # id -> (tuple, its items counted along every path): a tuple's hash is not cached, so one that shares its
        # parts ((t, t), 60 deep: 120 tuples sent) costs 2**60 hashes as a set item or a dict key, in one C call
        self.paths = {}

    def _tick(self):
        self.ops += 1
        if not self.ops & 15 and self.check is not None:
            self.check()

    def decode(self, j, depth=0):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise WireError("a message of more than %d items (the cap)" % MAX_NODES)
        self._tick()
        if depth > self.max_depth:
            raise WireError("a value nested deeper than %d levels (the cap)" % self.max_depth)
        t = type(j)
        if t in _SCALARS:
            if t is str and len(j) > 64 and self.tally is not None:
                self.tally[0] += 1
            return j
        if self.tally is not None:
            self.tally[0] += 1
        if t is list:
            return self._fill([], j, depth)
        if t is not dict or len(j) != 1:
            raise WireError("a value that is not data")
        (tag, body), = j.items()
        if tag == "N":
            if not (type(body) is list and len(body) == 2 and type(body[0]) is int):
                raise WireError("a malformed alias")
            if body[0] in self.aliases:
                raise WireError("an alias named twice")
            return self._node(body[1], depth, body[0])
        return self._node(j, depth, None)

    def _node(self, j, depth, alias):
        t = type(j)
        if t in _SCALARS and alias is None:
            return j
        if t is list:
            out = []
            self._name(alias, out)
            return self._fill(out, j, depth)
        if t is not dict or len(j) != 1:
            if alias is not None and t in _SCALARS:
                raise WireError("an alias of a scalar")
            raise WireError("a value that is not data")
        (tag, body), = j.items()
        if tag == "A" or tag == "O":
            table = self.aliases if tag == "A" else self.known
            if type(body) not in (int, str) or body not in table:
                raise WireError("a reference to a value never sent")
            return table[body]
        if tag == "d":
            if type(body) is not list or len(body) % 2:
                raise WireError("a malformed dict")
            out = {}
            self._name(alias, out)
            for n in range(0, len(body), 2):
                k = self.decode(body[n], depth + 1)
                self._hashable(k)
                try:
                    out[k] = self.decode(body[n + 1], depth + 1)
                except TypeError:
                    raise WireError("a dict with an unhashable key") from None
                self._tick()
            return out
        if tag in ("u", "s", "f"):
            if type(body) is not list:
                raise WireError("a malformed container")
            items = self._fill([], body, depth)
            if tag == "u":
                out = tuple(items)
                self._count(out, items)
            else:
                out = set()
                try:
                    for x in items:
                        self._hashable(x)
                        out.add(x)
                        self._tick()
                except TypeError:
                    raise WireError("a set with an unhashable item") from None
                if tag == "f":
                    # as costly as the set, which was within the budget: looked at again once built
                    out = frozenset(out)
                    if self.check is not None:
                        self.check()
            self._name(alias, out)
            return out
        if tag == "T":
            if not (type(body) is list and len(body) == 4 and type(body[0]) is str and type(body[1]) is str
                    and type(body[2]) is list and all(type(x) is str for x in body[2])
                    and len(body[0]) <= _MAX_NAME and len(body[2]) <= 256 and all(len(x) <= _MAX_NAME for x in body[2])):
                raise WireError("a malformed stand-in")
            # the stand-in is built from the base value's shape; {"N"} names the stand-in, never its base value
            inner = self._node(body[3], depth, None)
            base = type(inner)
            if base.__name__ != body[1] or base not in _BASES or self.standin is None:
                raise WireError("a stand-in of a type that is not a built-in data type")
            try:
                out = self.standin(body[0], base, body[2], inner)
            except (TypeError, ValueError) as e:
                # a type Python will not build (a subclass of bool, a name with a NUL, a lone surrogate): the
                # sender's doing, never an error for the tests to see (or to catch and pass)
                raise WireError("a stand-in the judge cannot build (%s): %s" % (_clip(body[0]), _clip(str(e)))) from None
            if base is tuple:
                self._count(out, inner)
            self._name(alias, out)
            return out
        if alias is not None and tag in ("R", "B"):
            raise WireError("an alias of a reference")
        if tag == "c":
            if not (type(body) is list and len(body) == 2 and all(type(x) in (int, float) for x in body)):
                raise WireError("a malformed complex number")
            try:
                out = complex(body[0], body[1])
            except OverflowError:
                # an integer part past a float's range, which no complex number has
                raise WireError("a malformed complex number") from None
        elif tag in ("y", "a"):
            if type(body) is not str:
                raise WireError("malformed bytes")
            try:
                out = body.encode("latin-1")
            except UnicodeEncodeError:
                raise WireError("malformed bytes") from None
            if tag == "a":
                out = bytearray(out)
        elif tag == "i":
            if type(body) is not str or not _HEX.fullmatch(body):
                raise WireError("a malformed integer")
            out = int(body, 16)
        elif tag == "R":
            if self.remote is None or not (type(body) is list and len(body) in (1, 2) and type(body[0]) is int
                                           and all(type(x) is str for x in body[1:])):
                raise WireError("a reference that is not data")
            return self.remote(body[0], body[1][:_MAX_NAME] if len(body) == 2 else "object")
        elif tag == "B":
            if type(body) is not str or body not in self.builtins:
                raise WireError("a value that is not data")
            return self.builtins[body]
        else:
            raise WireError("a value that is not data")
        self._name(alias, out)
        return out

    def _count(self, t, items):
        n = 1
        for x in items:
            if isinstance(x, tuple):
                n += self.paths.get(id(x), (None, 1))[1]
                if n > MAX_NODES:
                    n = MAX_NODES + 1
                    break
            else:
                n += 1
        self.paths[id(t)] = (t, n)

    def _hashable(self, x):
        if isinstance(x, tuple) and self.paths.get(id(x), (None, 1))[1] > MAX_NODES:
            raise WireError("a tuple of more than %d items along its shared parts, to hash (the cap)" % MAX_NODES)

    def _name(self, alias, out):
        if alias is not None:
            self.aliases[alias] = out

    def _fill(self, out, items, depth):
        n = len(items)
        if n and depth < self.max_depth and self.nodes + n <= MAX_NODES and set(map(type, items)) <= _FLAT:
            # items that are all JSON scalars (most lists crossing), taken as they are at C speed, counted as the
            # loop below counts them: the same caps and tally; the CPU is looked at once for the list (taking it is
            # linear and in C: what the checks are for, a set or dict of colliding hashes, is filled item by item)
            if self.tally is not None:
                self.tally[0] += sum(1 for x in items if type(x) is str and len(x) > 64)
            self.nodes += n
            ticks = self.ops >> 4
            self.ops += n
            if self.check is not None and self.ops >> 4 != ticks:
                self.check()
            out.extend(items)
            return out
        for x in items:
            out.append(self.decode(x, depth + 1))
        return out


def _clip(s, n=100):
    return s if len(s) <= n else s[:n] + "..."


# ---------------------------------------------------------------- state that crosses back

def snapshot(obj):
    """What tells, cheaply, whether a mutable container changed: its items by identity (not equality, which
    could be anything for the code's objects and would miss an item replaced by an equal one)."""
    if isinstance(obj, dict):
        return list(dict.keys(obj)), list(dict.values(obj))
    if isinstance(obj, bytearray):
        return bytes(obj)
    if isinstance(obj, set):
        return set.copy(obj)
    return list.copy(obj)


def changed(obj, snap):
    if isinstance(obj, dict):
        keys, values = snap
        return (len(keys) != len(obj) or any(map(operator.is_not, keys, dict.keys(obj)))
                or any(map(operator.is_not, values, dict.values(obj))))
    if isinstance(obj, bytearray):
        return snap != obj
    if isinstance(obj, set):
        return len(snap) != len(obj) or any(map(operator.is_not, sorted(map(id, snap)), sorted(map(id, obj))))
    return len(snap) != len(obj) or any(map(operator.is_not, snap, obj))


def apply(obj, state):
    """Makes obj, in place, hold what state (a fresh container of obj's base type) holds."""
    if isinstance(obj, collections.OrderedDict):
        # an OrderedDict keeps its order beside the dict: dict's own methods would leave it stale (and the
        # tests' honest OrderedDict unequal to itself)
        collections.OrderedDict.clear(obj)
        collections.OrderedDict.update(obj, state)
    elif isinstance(obj, dict):
        dict.clear(obj)
        dict.update(obj, state)
    elif isinstance(obj, list):
        list.__setitem__(obj, slice(None), state)
    elif isinstance(obj, set):
        set.clear(obj)
        set.update(obj, state)
    elif isinstance(obj, bytearray):
        bytearray.__setitem__(obj, slice(None), state)
    else:
        raise WireError("a state sent for an object that cannot change")


# ---------------------------------------------------------------- stand-ins

#: types both sides rebuild as themselves: the standard library's, whose behaviour (a Counter's equality
#: ignores zero counts) the tests may rely on
_REAL = {"collections.Counter": ("collections", "Counter"), "collections.OrderedDict": ("collections", "OrderedDict")}
_standins = {}
#: how many stand-in types one side builds in a run: a program has a few, a flood of names would be a type each
MAX_STANDIN_TYPES = 10_000


def standin(name, base, extra, value):
    """An instance of a subclass of a built-in data type, as the other side had it: the standard library's
    Counter and OrderedDict as themselves, any other as a type this side builds (so that `type(r) is tuple`
    is False for a namedtuple, while equality, hashing, ordering and isinstance are the base type's)."""
    real = _REAL.get(name)
    if real is not None and base is dict:
        return getattr(__import__(real[0]), real[1])(value)
    key = (name, base, tuple(extra))
    cls = _standins.get(key)
    if cls is None:
        if len(_standins) >= MAX_STANDIN_TYPES:
            # each is a type this side builds and keeps for the rest of the run (equal names, one type)
            raise WireError("more than %d stand-in types (the cap)" % MAX_STANDIN_TYPES)
        module, _, qualname = name.rpartition(".")
        attrs = {"__module__": module, "__qualname__": qualname, "__slots__": () if base in (tuple, int, bytes) else None}
        if attrs["__slots__"] is None:
            del attrs["__slots__"]
        fields = extra[1:] if extra[:1] == ["fields"] and base is tuple else []
        for n, f in enumerate(fields):
            if f.isidentifier() and not f.startswith("__"):
                attrs[f] = property(operator.itemgetter(n))
        if fields:
            attrs["_fields"] = tuple(fields)
            attrs["__repr__"] = lambda self: "%s(%s)" % (type(self).__qualname__, ", ".join(
                "%s=%r" % (f, x) for f, x in zip(type(self)._fields, self)))
        if extra[:1] == ["name"] and len(extra) == 2:
            attrs["name"] = attrs["_name_"] = extra[1]
            attrs["value"] = property(lambda self: base(self))
        cls = type(qualname or "object", (base,), attrs)
        _standins[key] = cls
    return cls(value)
