"""The docker tier's supervisor (the container's init): the edges of its wire that need no container. A job's files
go to /work and /tmp, which here would be the host's, so what runs a program is left to the Java tests against a
real engine (BootstrapTest, the docker ITs); these run it only where it must refuse before touching anything."""

import json
import os
import subprocess
import sys
import time

SCRIPT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "main", "python", "dev", "codeagent",
                                      "sandbox", "docker", "supervisor.py"))


def payload(**extra):
    body = json.dumps(dict({"files": {"main.py": "print(1)"}, "argv": ["python3", "main.py"], "env": {"PATH": "/usr/bin"},
                            "rlimits": {}, "stdin": "", "nonce": "n"}, **extra)).encode()
    return b"%d\n" % len(body) + body


def supervise(stdin, idle="30"):
    env = dict(os.environ, CODEAGENT_IDLE_SECONDS=idle)
    return subprocess.run([sys.executable, "-I", "-S", SCRIPT], input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env, timeout=60)


def test_a_supervisor_that_is_not_the_container_init_refuses_the_payload():
    p = supervise(payload())
    assert p.returncode == 121
    assert p.stdout == b""
    assert p.stderr.startswith(b"codeagent-bootstrap: the supervisor is pid ")
    assert b"not the container init (was the container made with --init?)" in p.stderr


def test_a_header_longer_than_any_length_is_refused_as_such():
    p = supervise(b"1" * 30 + b"\n{}")
    assert p.returncode == 121
    assert p.stderr == b"codeagent-bootstrap: bad payload header\n"


def test_a_supervisor_nobody_sends_a_payload_ends_quietly():
    p = supervise(b"")
    assert (p.returncode, p.stdout, p.stderr) == (0, b"", b"")


def test_a_pooled_supervisor_nobody_claims_ends_itself_after_its_idle_time():
    r, w = os.pipe()  # stdin stays open, silent: only the idle clock can end it
    try:
        start = time.monotonic()
        p = subprocess.run([sys.executable, "-I", "-S", SCRIPT], stdin=r, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=dict(os.environ, CODEAGENT_IDLE_SECONDS="1"), timeout=30)
        took = time.monotonic() - start
    finally:
        os.close(r)
        os.close(w)
    assert (p.returncode, p.stdout, p.stderr) == (0, b"", b"")
    assert 0.9 <= took < 20
