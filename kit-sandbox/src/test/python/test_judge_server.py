"""judge_server.py: many jobs from one warm interpreter, a forked child per job, verdicts behind each job's nonce."""

import json
import os
import subprocess
import sys

from conftest import SCRIPTS

PYTHON = sys.executable


def start_server(tmp_path):
    """The server, as its sandbox starts it (its jobs' texts stay in memory: nothing is written under tmp_path)."""
    code = "import sys; sys.path.insert(0, %r); import judge_server; sys.exit(judge_server.main())" % SCRIPTS
    return subprocess.Popen([PYTHON, "-I", "-S", "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def start_candidate(channel, code_path):
    return subprocess.Popen([PYTHON, os.path.join(SCRIPTS, "candidate.py"), str(channel / "j2c"), str(channel / "c2j"),
                             str(code_path)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def job(nonce, channel, code, tests, prelude=None, entries="-", cpu="-"):
    texts = [code.encode(), tests.encode(), b"" if prelude is None else prelude.encode()]
    sizes = [len(texts[0]), len(texts[1]), -1 if prelude is None else len(texts[2])]
    head = "J %s 30 %d 10 %s %s %d %d %d %s\n" % (nonce, 512 * 1024 * 1024, channel, entries, *sizes, cpu)
    return head.encode("ascii") + b"".join(texts)


def channel_dir(tmp_path, name):
    d = tmp_path / name
    d.mkdir()
    # as the host makes them: no other uid may open a channel (the wire refuses one that others can)
    os.mkfifo(d / "c2j", 0o600)
    os.mkfifo(d / "j2c", 0o600)
    return d


def test_each_job_gets_its_own_verdict_behind_its_own_nonce(tmp_path):
    samples = {"good": "def add(a, b):\n    return a + b\n", "bad": "def add(a, b):\n    return a * b\n"}
    server = start_server(tmp_path)
    candidates = []
    for nonce, code in samples.items():
        channel = channel_dir(tmp_path, nonce)
        main = tmp_path / (nonce + ".py")
        main.write_text(code, encoding="utf-8")
        server.stdin.write(job(nonce, channel, code, "assert add(2, 3) == 5\n"))
        server.stdin.flush()
        candidates.append(start_candidate(channel, main))
    try:
        out, err = server.communicate(timeout=60)
        for c in candidates:
            c.wait(timeout=60)
    finally:
        for p in candidates + [server]:
            p.kill()
    verdicts = {}
    for line in out.decode("ascii").splitlines():
        for nonce in samples:
            if line.startswith(nonce + "{"):
                verdicts[nonce] = json.loads(line[len(nonce):])
    assert set(verdicts) == set(samples), (out, err)
    assert verdicts["good"]["outcome"] == "passed"
    assert verdicts["bad"]["outcome"] == "assertion"
    assert verdicts["bad"]["testSource"] == "assert add(2, 3) == 5"
    # the built-in sample it judged before its first job passed
    assert b"built-in sample" not in err, err


def test_a_jobs_judge_runs_on_the_cpu_its_index_names(tmp_path):
    cpus = sorted(os.sched_getaffinity(0))
    server = start_server(tmp_path)
    channel = channel_dir(tmp_path, "pinned")
    main = tmp_path / "pinned.py"
    main.write_text("x = 1\n", encoding="utf-8")
    # an index past the CPUs wraps: the host counts its own CPUs, which may be more than the server may use
    tests = "import os\nassert os.sched_getaffinity(0) == {%d}, os.sched_getaffinity(0)\n" % cpus[-1]
    server.stdin.write(job("pinned", channel, "x = 1\n", tests, cpu=str(len(cpus) * 3 + len(cpus) - 1)))
    server.stdin.flush()
    candidate = start_candidate(channel, main)
    try:
        out, err = server.communicate(timeout=60)
        candidate.wait(timeout=60)
    finally:
        candidate.kill()
        server.kill()
    line = [x for x in out.decode("ascii").splitlines() if x.startswith("pinned{")]
    assert line, (out, err)
    assert json.loads(line[0][len("pinned"):])["outcome"] == "passed", line


def test_a_killed_job_answers_its_nonce_alone(tmp_path):
    channel = channel_dir(tmp_path, "k")
    server = start_server(tmp_path)
    # no candidate ever opens the channel: the job's child blocks opening its FIFO until it is killed
    server.stdin.write(job("k1", channel, "x = 1\n", "assert x == 1\n") + b"K k1\n")
    server.stdin.close()
    out = server.stdout.read()
    server.wait(timeout=60)
    assert out.decode("ascii").splitlines() == ["k1"]
