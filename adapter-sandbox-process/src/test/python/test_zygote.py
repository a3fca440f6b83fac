"""zygote.py's parts that need no sandbox: reading a run's job off the door, an exit status from SystemExit, and
refusing to start without what it needs. Forking programs into namespaces of their own is root's work in a
bubblewrap sandbox: the Java zygote ITs (ProcessSandboxZygote*IT, ProcessZygoteIsolationIT) hold that."""

import json
import os
import socket
import sys

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "main", "python", "dev",
                                                "codeagent", "sandbox", "process")))
import zygote  # noqa: E402


def sent(data):
    a, b = socket.socketpair()
    a.sendall(data)
    a.shutdown(socket.SHUT_WR)
    return b


def test_a_job_is_read_whole_up_to_the_hosts_shutdown():
    body = json.dumps({"files": {"main.py": "print('é')"}, "argv": ["python3", "main.py"]}).encode("utf-8")
    s = sent(b"%d\n" % len(body) + body)
    assert zygote.Run.read_job(s) == {"files": {"main.py": "print('é')"}, "argv": ["python3", "main.py"]}


@pytest.mark.parametrize("data", [b"", b"10\n{}", b"2\n{}extra", b"x\n{}", b"{}"])
def test_a_cut_or_padded_job_is_a_setup_failure_naming_its_size(data):
    with pytest.raises(zygote.SetupFailed, match="a cut job \\(%d bytes\\)" % len(data)):
        zygote.Run.read_job(sent(data))


@pytest.mark.parametrize("code, status", [(None, 0), (0, 0), (3, 3), (256 + 7, 7), (-1, 255)])
def test_sys_exit_with_a_number_is_that_status_as_a_shell_sees_it(code, status):
    assert zygote._exit_status(SystemExit(code)) == status


def test_sys_exit_with_a_message_prints_it_and_is_status_1(capsys):
    assert zygote._exit_status(SystemExit("bye now")) == 1
    assert capsys.readouterr().err == "bye now\n"


def test_a_zygote_started_wrongly_says_how_to_start_it(capsys):
    assert zygote.main(["zygote.py", "door"]) == 2
    assert "usage: zygote.py DOOR SECCOMP_FILE" in capsys.readouterr().err


def test_a_zygote_without_a_seccomp_filter_refuses_to_run_programs(capsys):
    assert zygote.main(["zygote.py", "/nonexistent/door", "-", "/nonexistent/empty", "-", "/nonexistent/launch", " "]) == 2
    assert "refusing to run programs without it" in capsys.readouterr().err
