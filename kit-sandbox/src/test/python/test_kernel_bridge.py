"""kernel_bridge.py's parts that need no kernel: its line reader, the output caps, the file commands."""

import base64
import os

import pytest

import kernel_bridge as bridge


def test_lines_are_read_from_a_raw_fd_leaving_the_rest_for_the_next():
    r, w = os.pipe()
    try:
        os.write(w, b'{"op":"hello"}\n{"op":"exec')
        buf = [b""]
        assert bridge.read_line(r, buf) == b'{"op":"hello"}'
        os.write(w, b'ute"}\n')
        assert bridge.read_line(r, buf) == b'{"op":"execute"}'
        os.close(w)
        w = None
        assert bridge.read_line(r, buf) is None
    finally:
        os.close(r)
        if w is not None:
            os.close(w)


def test_stream_output_is_merged_per_stream_and_cut_at_the_cap():
    out = bridge.Outputs(max_output=10, max_image=100)
    assert out.add("stream", {"name": "stdout", "text": "abc"}) == {"type": "stream", "name": "stdout", "text": "abc"}
    out.add("stream", {"name": "stdout", "text": "def"})
    out.add("stream", {"name": "stderr", "text": "ghijklmnop"})
    assert out.items[0] == {"type": "stream", "name": "stdout", "text": "abcdef"}
    assert out.items[1]["text"] == "ghij"
    assert out.truncated and "cap" in out.why
    assert out.add("stream", {"name": "stdout", "text": "more"}) is None


def test_the_cap_counts_bytes_and_never_splits_a_character():
    out = bridge.Outputs(max_output=3, max_image=100)
    out.add("stream", {"name": "stdout", "text": "éé"})
    assert out.items[0]["text"] == "é"


def test_an_image_over_its_cap_becomes_a_note_in_the_text():
    out = bridge.Outputs(max_output=10000, max_image=4)
    png = base64.b64encode(b"12345678").decode()
    item = out.add("display_data", {"data": {"image/png": png, "text/plain": "<Figure>"}})
    assert "image/png" not in item["data"]
    assert "over the image cap of 4 bytes" in item["data"]["text/plain"]
    assert out.truncated


def test_an_execute_result_keeps_its_count_and_rich_data_as_text():
    out = bridge.Outputs(max_output=10000, max_image=100)
    item = out.add("execute_result", {"data": {"application/json": {"a": 1}}, "execution_count": 3})
    assert item == {"type": "execute_result", "data": {"application/json": '{"a": 1}'}, "execution_count": 3}


def test_kernel_bookkeeping_is_not_an_output():
    out = bridge.Outputs(max_output=100, max_image=100)
    assert out.add("status", {"execution_state": "busy"}) is None
    assert out.items == []


def test_a_long_traceback_past_the_cap_keeps_its_last_frames():
    out = bridge.Outputs(max_output=10, max_image=100)
    item = out.add("error", {"ename": "E", "evalue": "v", "traceback": ["x" * 5000] * 10})
    assert len(item["traceback"]) == 3 and out.truncated


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_file_written_reads_back_the_same_bytes(workdir):
    data = base64.b64encode(b"\x00\xffbytes").decode()
    assert bridge.file_op("write_file", {"path": "d/e/f.bin", "data": data}) == {}
    assert (workdir / "d/e/f.bin").read_bytes() == b"\x00\xffbytes"
    assert bridge.file_op("read_file", {"path": "d/e/f.bin", "max": 100}) == {"data": data}


@pytest.mark.parametrize("path", ["/etc/passwd", "../x", "a/../b", "a//b", "", "./a"])
def test_a_path_that_is_not_plainly_relative_is_invalid(workdir, path):
    assert bridge.file_op("read_file", {"path": path, "max": 100})["error"] == "invalid"


def test_a_symbolic_link_anywhere_in_the_path_is_refused(workdir, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret").write_text("s")
    os.symlink(outside, workdir / "link")
    os.symlink(outside / "secret", workdir / "file")
    assert bridge.file_op("read_file", {"path": "link/secret", "max": 100})["error"] == "invalid"
    assert bridge.file_op("read_file", {"path": "file", "max": 100})["error"] == "invalid"
    assert bridge.file_op("write_file", {"path": "link/new", "data": ""})["error"] == "invalid"
    assert not (outside / "new").exists()


def test_reading_more_than_asked_missing_files_and_directories_are_named(workdir):
    (workdir / "big").write_bytes(b"x" * 10)
    (workdir / "dir").mkdir()
    assert bridge.file_op("read_file", {"path": "big", "max": 5})["error"] == "too_large"
    assert bridge.file_op("read_file", {"path": "nope", "max": 5})["error"] == "not_found"
    assert bridge.file_op("read_file", {"path": "dir", "max": 5})["error"] == "not_found"
