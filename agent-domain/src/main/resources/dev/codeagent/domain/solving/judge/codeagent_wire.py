"""The wire between codeagent's judge and the code it judges: frames, and values as data.

Both sides import this module, but only the judge trusts its own copy: whatever the candidate
sends is parsed here, on the judge's side, into plain Python data (str, bytes, int, float, complex,
bool, None, tuple, list, dict, set, frozenset) by walking an ``ast`` with explicit caps. Nothing is
ever unpickled, evaluated or called; a reply that is not data is a protocol error.

A frame is an ASCII decimal length, a newline, then that many bytes: the ``ascii()`` text of a
Python literal (a tuple whose first item names the message).
"""

import os
import sys

#: the largest frame either side accepts (bytes of literal text)
MAX_FRAME = 8 * 1024 * 1024
#: how deeply containers may nest in a value
MAX_DEPTH = 100
#: how many items (containers and scalars together) one value may hold
MAX_NODES = 1_000_000
_MAX_HEADER = 12

if hasattr(sys, "set_int_max_str_digits"):
    # a correct answer may be a big integer; the frame cap bounds the cost instead
    sys.set_int_max_str_digits(0)


class WireError(Exception):
    """A frame or a value that breaks the protocol; its text says what was wrong, in one line."""


class Closed(WireError):
    """The other side closed its end (it exited, or was killed)."""


# ---------------------------------------------------------------- frames

def open_channel(read_end, write_end, read_first):
    """The (read fd, write fd) of a channel given as inherited descriptor numbers ("3") or as FIFO
    paths. FIFOs are opened in one fixed order on both sides (the judge->candidate FIFO first), since
    opening one end blocks until the other side opens its end."""
    if read_end.isdigit() and write_end.isdigit():
        return int(read_end), int(write_end)
    if read_first:
        r = os.open(read_end, os.O_RDONLY | os.O_CLOEXEC)
        return r, os.open(write_end, os.O_WRONLY | os.O_CLOEXEC)
    w = os.open(write_end, os.O_WRONLY | os.O_CLOEXEC)
    return os.open(read_end, os.O_RDONLY | os.O_CLOEXEC), w

def write_frame(fd, message):
    """Writes one message (a literal-able tuple, already checked) as a frame to fd."""
    body = ascii(message).encode("ascii")
    if len(body) > MAX_FRAME:
        raise WireError("a message of %d bytes is over the %d-byte cap" % (len(body), MAX_FRAME))
    data = memoryview(b"%d\n" % len(body) + body)
    while data:
        data = data[os.write(fd, data):]


def _read_exactly(fd, n):
    chunks = []
    while n > 0:
        c = os.read(fd, min(n, 1 << 20))
        if not c:
            raise Closed("the other side closed the channel")
        chunks.append(c)
        n -= len(c)
    return b"".join(chunks)


def read_frame(fd):
    """The text of the next frame on fd (not yet parsed)."""
    header = b""
    while not header.endswith(b"\n"):
        c = os.read(fd, 1)
        if not c:
            raise Closed("the other side closed the channel")
        header += c
        if len(header) > _MAX_HEADER:
            raise WireError("a frame header longer than %d bytes" % _MAX_HEADER)
    digits = header[:-1]
    if not digits.isdigit():
        raise WireError("a frame header that is not a length: %r" % header[:20])
    n = int(digits)
    if n > MAX_FRAME:
        raise WireError("a frame of %d bytes is over the %d-byte cap" % (n, MAX_FRAME))
    body = _read_exactly(fd, n)
    try:
        return body.decode("ascii")
    except UnicodeDecodeError:
        raise WireError("a frame that is not ASCII text") from None


# ---------------------------------------------------------------- values

SCALARS = (str, bytes, int, float, complex, bool, type(None))
_CONTAINERS = (tuple, list, dict, set, frozenset)


def is_data(value):
    """Whether value is plain data within the caps: exact built-in types only (no subclasses, whose
    __eq__ or __repr__ could be anything), no cycles, not too deep or too large."""
    nodes = 0
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES or depth > MAX_DEPTH:
            return False
        t = type(v)
        if t in SCALARS:
            continue
        if t is dict:
            for k, x in v.items():
                stack.append((k, depth + 1))
                stack.append((x, depth + 1))
        elif t in _CONTAINERS:
            for x in v:
                stack.append((x, depth + 1))
        else:
            return False
    return True


def describe(value):
    """A short, safe name for what a value is (for "cannot be compared: ..." messages)."""
    try:
        t = type(value)
        name = getattr(t, "__qualname__", None) or getattr(t, "__name__", "object")
        return name if isinstance(name, str) else "object"
    except BaseException:
        return "object"


_NAMED_FLOATS = {"inf": float("inf"), "nan": float("nan")}
_TRUSTED_NAMES = dict(_NAMED_FLOATS, set=set, frozenset=frozenset)
_ast = None


def parse_trusted(text):
    """A message from the judge, read on the candidate's side. The judge wrote it with ascii() of plain
    data, so evaluating it with no names but these gives the same value as parse(), without the cost of
    importing ast into every candidate. Never used on the judge's side."""
    return eval(text, {"__builtins__": {}}, dict(_TRUSTED_NAMES))


def parse(text):
    """The plain value a literal's text stands for; WireError when it is anything but data."""
    import ast  # only the judge parses untrusted text; candidates need not pay for the import

    global _ast
    _ast = ast
    if len(text) > MAX_FRAME:
        raise WireError("a value over the size cap")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        raise WireError("a reply that is not a literal (%s)" % type(e).__name__) from None
    count = [0]
    return _value(tree.body, 0, count)


def _value(node, depth, count):
    count[0] += 1
    if depth > MAX_DEPTH:
        raise WireError("a value nested deeper than %d" % MAX_DEPTH)
    if count[0] > MAX_NODES:
        raise WireError("a value of more than %d items" % MAX_NODES)
    t = type(node)
    if t is _ast.Constant:
        if type(node.value) in SCALARS:
            return node.value
        raise WireError("a constant that is not data")
    if t is _ast.Tuple:
        return tuple(_value(e, depth + 1, count) for e in node.elts)
    if t is _ast.List:
        return [_value(e, depth + 1, count) for e in node.elts]
    if t is _ast.Set:
        return _hashed(set, node.elts, depth, count)
    if t is _ast.Dict:
        if any(k is None for k in node.keys):
            raise WireError("a dict with ** in it")
        try:
            return {_value(k, depth + 1, count): _value(v, depth + 1, count) for k, v in zip(node.keys, node.values)}
        except TypeError:
            raise WireError("a dict with an unhashable key") from None
    if t is _ast.Name and node.id in _NAMED_FLOATS:
        return _NAMED_FLOATS[node.id]
    if t is _ast.UnaryOp and type(node.op) in (_ast.USub, _ast.UAdd):
        v = _value(node.operand, depth + 1, count)
        if type(v) not in (int, float, complex):
            raise WireError("a sign on something that is not a number")
        return -v if type(node.op) is _ast.USub else v
    if t is _ast.BinOp and type(node.op) in (_ast.Add, _ast.Sub):
        # how repr writes a complex number: (1+2j), (-0-1j)
        a, b = _value(node.left, depth + 1, count), _value(node.right, depth + 1, count)
        if type(a) in (int, float) and type(b) is complex:
            return a + b if type(node.op) is _ast.Add else a - b
        raise WireError("arithmetic in a value")
    if t is _ast.Call and type(node.func) is _ast.Name and not node.keywords:
        # how repr writes set() and frozenset({...})
        if node.func.id == "set" and not node.args:
            return set()
        if node.func.id == "frozenset":
            if not node.args:
                return frozenset()
            if len(node.args) == 1 and type(node.args[0]) is _ast.Set:
                return _hashed(frozenset, node.args[0].elts, depth, count)
    raise WireError("a reply holding %s, which is not data" % t.__name__)


def _hashed(kind, elts, depth, count):
    try:
        return kind(_value(e, depth + 1, count) for e in elts)
    except TypeError:
        raise WireError("a set with an unhashable item") from None
