"""The judge's wire: frames (a decimal length, a newline, that many bytes of JSON) and values as data."""

import math
import os

import pytest

import codeagent_wire as wire


@pytest.fixture
def pipe():
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        try:
            os.close(fd)
        except OSError:
            pass


def test_a_frame_is_its_length_a_newline_and_compact_json(pipe):
    r, w = pipe
    wire.write_frame(w, ["call", "f", [1, 2]])
    assert os.read(r, 100) == b'18\n["call","f",[1,2]]'


def test_frames_written_back_to_back_are_read_one_at_a_time(pipe):
    # one read takes the first frame and part of the next: what is left over is kept for the next read
    r, w = pipe
    wire.write_frame(w, ["a", 1])
    wire.write_frame(w, ["b", "x" * 60000])
    wire.write_frame(w, ["c"])
    assert wire.loads(wire.read_frame(r)) == ["a", 1]
    assert wire.loads(wire.read_frame(r)) == ["b", "x" * 60000]
    assert wire.loads(wire.read_frame(r)) == ["c"]


def test_a_closed_channel_is_closed_not_a_protocol_error(pipe):
    r, w = pipe
    os.write(w, b"10\n[1,")
    os.close(w)
    with pytest.raises(wire.Closed):
        wire.read_frame(r)


@pytest.mark.parametrize("raw, says", [
    (b"1234567890123456\n", "header longer"),
    (b"12a\n[]", "not a length"),
    (b"%d\n" % (wire.MAX_FRAME + 1), "over the"),
])
def test_a_bad_header_is_a_wire_error_naming_what_was_wrong(pipe, raw, says):
    r, w = pipe
    os.write(w, raw)
    with pytest.raises(wire.WireError, match=says):
        wire.read_frame(r)


def test_a_message_over_the_cap_is_refused_before_it_is_written(pipe):
    _, w = pipe
    with pytest.raises(wire.WireError, match="cap"):
        wire.write_frame(w, ["x" * wire.MAX_FRAME])


@pytest.mark.parametrize("body, says", [
    ("[\"é\"]".encode("utf-8"), "not ASCII"),
    (b"[1, 2", "not JSON"),
    (b"[" * 100000 + b"]" * 100000, "nested deeper"),
    (b"[" + b"9" * 5000 + b"]", "decimal digits"),
])
def test_bodies_that_are_not_data_are_refused_in_one_line(body, says):
    with pytest.raises(wire.WireError, match=says):
        wire.loads(body)


def roundtrip(value):
    sent = wire.Encoder().encode(value)
    return wire.Decoder().decode(wire.loads(wire.dumps(sent).encode("ascii")))


@pytest.mark.parametrize("value", [
    None, True, 0, -1, 2 ** 100, pytest.param(2 ** 20000, id="hex-int"), 1.5, "text é ∑", [1, [2, [3]]], (1, "a"), {"k": [1]}, {(1, 2): "tuple key"},
    {1, 2, 3}, frozenset({"a"}), b"\x00\xff", bytearray(b"ab"), 1 + 2j, float("inf"),
])
def test_values_cross_as_the_same_values_of_the_same_types(value):
    back = roundtrip(value)
    assert back == value
    assert type(back) is type(value)


def test_negative_zero_and_nan_keep_what_they_are():
    assert math.copysign(1.0, roundtrip(-0.0)) == -1.0
    assert math.isnan(roundtrip(float("nan")))


def test_a_shared_container_and_a_cycle_come_back_shared():
    inner = [1]
    outer = [inner, inner]
    outer.append(outer)
    back = roundtrip(outer)
    assert back[0] is back[1]
    assert back[2] is back


def test_a_value_that_is_not_data_is_refused_by_the_encoder():
    with pytest.raises(wire.NotData):
        wire.Encoder().encode(object())
    with pytest.raises(wire.NotData):
        wire.Encoder().encode(x for x in ())


def test_nesting_past_the_cap_is_refused_on_both_sides():
    deep = []
    for _ in range(wire.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(wire.NotData, match="nested deeper"):
        wire.Encoder().encode(deep)


# ---------------------------------------------------------------- a channel given as FIFO paths

def fifo(tmp_path, name, mode):
    path = tmp_path / name
    os.mkfifo(path, 0o600)
    os.chmod(path, mode)  # whatever the umask
    return str(path)


def the_other_side(read_end, write_end):
    """The other side's ends, opened so that neither of the wire's opens blocks."""
    return os.open(read_end, os.O_RDWR), os.open(write_end, os.O_RDONLY | os.O_NONBLOCK)


def test_a_channel_of_fifos_no_other_uid_can_open_is_opened(tmp_path):
    read_end, write_end = fifo(tmp_path, "j2c", 0o600), fifo(tmp_path, "c2j", 0o600)
    theirs = the_other_side(read_end, write_end)
    r, w = wire.open_channel(read_end, write_end, read_first=False)
    try:
        wire.write_frame(w, ["ok"])
        assert os.read(theirs[1], 100) == b'6\n["ok"]'
    finally:
        for fd in (r, w) + theirs:
            os.close(fd)


def test_a_fifo_other_users_can_open_is_refused_naming_it(tmp_path):
    # a regression on the host (the channel made 0666) must fail loudly, not carry a forged reply or verdict
    read_end, write_end = fifo(tmp_path, "j2c", 0o600), fifo(tmp_path, "c2j", 0o622)
    theirs = the_other_side(read_end, write_end)
    try:
        with pytest.raises(wire.WireError, match="c2j.*other users cannot open"):
            wire.open_channel(read_end, write_end, read_first=False)
    finally:
        for fd in theirs:
            os.close(fd)


def test_a_channel_end_that_is_no_fifo_is_refused(tmp_path):
    plain = tmp_path / "j2c"
    plain.write_text("")
    os.chmod(plain, 0o600)
    with pytest.raises(wire.WireError, match="j2c is not a FIFO"):
        wire.open_channel(str(plain), fifo(tmp_path, "c2j", 0o600), read_first=True)


def test_a_list_of_scalars_taken_at_once_keeps_every_cap_and_count():
    # depth: the items of a list at the deepest level are one level past it
    with pytest.raises(wire.WireError, match="deeper"):
        wire.Decoder(max_depth=1).decode([[1, 2]])
    assert wire.Decoder(max_depth=1).decode([1, 2]) == [1, 2]
    # items: a flat list past the cap, and one that fits only with what came before it
    with pytest.raises(wire.WireError, match="items"):
        wire.Decoder().decode(list(range(wire.MAX_NODES)))
    d = wire.Decoder()
    assert d.decode(list(range(wire.MAX_NODES - 1))) == list(range(wire.MAX_NODES - 1))
    assert d.nodes == wire.MAX_NODES
    # the tally of values that could weigh in a value sent back: the list and each string over 64 characters
    tally = [0]
    wire.Decoder(tally=tally).decode(["x" * 65, "y", 3, None, 1.5, True, "z" * 100])
    assert tally == [3]
    # the CPU check is still called for a list past sixteen items, and for each sixteen a set's items go in
    calls = []
    wire.Decoder(check=lambda: calls.append(1)).decode({"u": list(range(100))})
    assert calls
    calls.clear()
    wire.Decoder(check=lambda: calls.append(1)).decode({"s": list(range(100))})
    assert len(calls) >= 100 // 16
    # a list holding anything else goes item by item, as before
    assert wire.Decoder().decode([1, {"u": [2]}, [3]]) == [1, (2,), [3]]
