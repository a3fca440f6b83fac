"""supervisor.py, the Python build of the process tier's in-sandbox supervisor: the job wire (a decimal length, a
newline, one JSON object; nothing read past it), the files it writes, and the wait status it reports behind the
nonce. The Java SupervisorTest holds the C build and this one to the same contract; these tests pin the script's own
edges. As the sandbox's init it must be pid 1 of a pid namespace: `unshare --pid --fork` (root) stands in for
bubblewrap."""

import base64
import json
import os
import shutil
import subprocess
import sys

import pytest

SCRIPT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "main", "python", "dev", "codeagent",
                                      "sandbox", "process", "supervisor.py"))
NONCE = "0123456789abcdef"
PYTHON = os.path.realpath(sys.executable)

needs_pid_namespace = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                                         reason="a pid namespace of its own needs root and unshare")


def job(source, files=None, binary=None, rlimits=None, env=None, args=()):
    body = json.dumps({"files": dict(files or {}, **{"main.py": source}), "binary": binary or {},
                       "argv": [PYTHON, "-S", "main.py", *args], "env": env or {"PATH": "/usr/bin"},
                       "rlimits": rlimits or {}, "nonce": NONCE}).encode("utf-8")
    return b"%d\n" % len(body) + body


def supervise(tmp_path, stdin, as_init=True):
    cmd = [PYTHON, "-S", SCRIPT]
    if as_init:
        cmd = ["unshare", "--pid", "--fork", "--kill-child", "--"] + cmd
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr


def report(stderr):
    marker = b"\x00codeagent:" + NONCE.encode() + b":"
    assert stderr.count(marker) == 1, stderr
    head, _, line = stderr.partition(marker)
    assert line.endswith(b"\n") and line.count(b"\n") == 1, stderr
    return json.loads(line), head


@needs_pid_namespace
def test_the_files_are_written_byte_for_byte_and_the_exit_status_reported(tmp_path):
    source = "import sys\nprint(open('pkg/data.txt').read(), open('blob', 'rb').read().hex(), sys.argv[1:])\nsys.exit(3)\n"
    stdin = job(source, files={"pkg/data.txt": "ünï"}, binary={"blob": base64.b64encode(b"\x00\xff").decode()},
                args=["a b"])
    status, out, err = supervise(tmp_path, stdin)
    assert status == 0
    assert out == "ünï 00ff ['a b']\n"
    assert report(err)[0] == {"exit": 3, "signal": None}


@needs_pid_namespace
def test_what_follows_the_job_on_stdin_is_the_programs_stdin(tmp_path):
    stdin = job("import sys\nprint(repr(sys.stdin.read()))\n") + b"the program's\nown input"
    _, out, err = supervise(tmp_path, stdin)
    assert out == "\"the program's\\nown input\"\n"
    assert report(err)[0] == {"exit": 0, "signal": None}


@needs_pid_namespace
def test_a_signal_is_reported_as_a_signal(tmp_path):
    _, _, err = supervise(tmp_path, job("import os\nos.kill(os.getpid(), 9)\n"))
    assert report(err)[0] == {"exit": None, "signal": 9}


@needs_pid_namespace
def test_the_rlimits_and_the_environment_are_the_jobs(tmp_path):
    source = "import os, resource\nprint(resource.getrlimit(resource.RLIMIT_NOFILE), os.environ.get('ONLY'), 'PATH' in os.environ)\n"
    _, out, _ = supervise(tmp_path, job(source, rlimits={"RLIMIT_NOFILE": [20, 30]}, env={"ONLY": "this"}))
    assert out == "(20, 30) this False\n"


@needs_pid_namespace
def test_the_report_comes_after_every_process_the_program_left_is_gone(tmp_path):
    source = "import os, time\nif os.fork() == 0:\n    time.sleep(30)\n    print('survived')\n"
    _, out, err = supervise(tmp_path, job(source))
    assert "survived" not in out
    assert report(err)[0] == {"exit": 0, "signal": None}


@needs_pid_namespace
def test_a_program_that_cannot_start_is_a_boot_failure_not_a_report_of_its_own(tmp_path):
    body = json.loads(job("")[job("").index(b"\n") + 1:])
    body["argv"] = ["/nonexistent/python"]
    data = json.dumps(body).encode()
    _, _, err = supervise(tmp_path, b"%d\n" % len(data) + data)
    assert b"codeagent-boot: cannot start the program" in err
    assert report(err)[0] == {"exit": 127, "signal": None}


@needs_pid_namespace
def test_a_header_that_is_no_length_is_refused_before_anything_runs(tmp_path):
    status, _, err = supervise(tmp_path, b"9" * 30 + b"\n{}")
    assert status == 125
    assert err.startswith(b"codeagent-boot: bad job header")


@needs_pid_namespace
def test_no_job_at_all_ends_quietly(tmp_path):
    status, out, err = supervise(tmp_path, b"")
    assert (status, out, err) == (0, "", b"")


def test_a_supervisor_that_is_not_the_sandbox_init_refuses_the_job(tmp_path):
    # never run outside a pid namespace: its sweep kills every process it may signal
    status, out, err = supervise(tmp_path, job("print('ran')\n"), as_init=False)
    assert status == 125
    assert out == ""
    assert b"codeagent-boot: the supervisor is pid" in err and b"not the sandbox init" in err
    assert not (tmp_path / "main.py").exists()
