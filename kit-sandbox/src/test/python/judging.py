"""Runs the split judge as the tiers do, minus the sandbox: candidate.py and judge.py as two processes joined by
two pipes, the verdict on the judge's stdout behind a nonce."""

import json
import os
import resource
import subprocess
import sys

from conftest import SCRIPTS

PYTHON = sys.executable
NONCE = "n0nce"


def judge(tmp_path, code, tests, prelude=None, entries=(), timeout=60, judge_memory=None):
    """The verdict (a dict) of tests on code, and the judge's stderr; judge_memory: the judge's address space in
    bytes (as the sandbox caps it), else unlimited."""
    main = tmp_path / "main.py"
    main.write_text(code, encoding="utf-8")
    tests_file = tmp_path / "tests.py"
    tests_file.write_text(tests, encoding="utf-8")
    j2c_r, j2c_w = os.pipe()
    c2j_r, c2j_w = os.pipe()
    candidate = subprocess.Popen([PYTHON, os.path.join(SCRIPTS, "candidate.py"), str(j2c_r), str(c2j_w), str(main)],
                                 pass_fds=(j2c_r, c2j_w), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, cwd=tmp_path)
    argv = [PYTHON, "-I", "-S", os.path.join(SCRIPTS, "judge.py"), str(c2j_r), str(j2c_w), str(main), str(tests_file)]
    if prelude is not None or entries:
        prelude_arg = "-"
        if prelude is not None:
            (tmp_path / "prelude.py").write_text(prelude, encoding="utf-8")
            prelude_arg = str(tmp_path / "prelude.py")
        argv += [prelude_arg, ",".join(entries)]
    env = dict(os.environ, CODEAGENT_JUDGE_NONCE=NONCE)
    limit = None if judge_memory is None else (lambda: resource.setrlimit(resource.RLIMIT_AS, (judge_memory, judge_memory)))
    judge_process = subprocess.Popen(argv, pass_fds=(c2j_r, j2c_w), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=tmp_path, preexec_fn=limit)
    for fd in (j2c_r, j2c_w, c2j_r, c2j_w):
        os.close(fd)
    out, err = judge_process.communicate(timeout=timeout)
    candidate.communicate(timeout=timeout)
    line = out.decode("ascii")
    assert line.startswith(NONCE) and line.endswith("\n") and line.count("\n") == 1, line
    return json.loads(line[len(NONCE):]), err.decode("utf-8", "replace")


_AHEAD_DRIVER = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
import codeagent_wire as wire
import judge
spec = json.loads(open(sys.argv[2], encoding="utf-8").read())
# as judge_server.py does before it forks a job's judge: the texts read once, what can be sent ahead with them
judge.precompile(spec["tests"], judge.TESTS_FILE)
judge.precompile(spec["prelude"], "<prelude>")
frames = [0]
write = wire.write_frame
def counted(fd, message):
    frames[0] += 1
    return write(fd, message)
wire.write_frame = counted
verdict = judge.judge_texts(sys.argv[3], sys.argv[4], spec["code"], "main.py", spec["tests"],
                            spec["prelude"], spec["entries"])
sys.stdout.write(json.dumps({"verdict": verdict, "frames": frames[0]}) + "\n")
"""


def judge_served(tmp_path, code, tests, prelude=None, entries=(), timeout=60):
    """As judge(), with the judge as a judge server's child runs it (the tests read before, so that calls can be sent
    ahead of them): the verdict, how many frames the judge wrote itself (calls sent ahead are not frames it wrote
    one by one), and the candidate's process, still running or not."""
    main = tmp_path / "main.py"
    main.write_text(code, encoding="utf-8")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"code": code, "tests": tests, "prelude": prelude, "entries": list(entries)}),
                    encoding="utf-8")
    j2c_r, j2c_w = os.pipe()
    c2j_r, c2j_w = os.pipe()
    candidate = subprocess.Popen([PYTHON, os.path.join(SCRIPTS, "candidate.py"), str(j2c_r), str(c2j_w), str(main)],
                                 pass_fds=(j2c_r, c2j_w), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, cwd=tmp_path)
    judge_process = subprocess.Popen([PYTHON, "-I", "-S", "-c", _AHEAD_DRIVER, SCRIPTS, str(spec), str(c2j_r),
                                      str(j2c_w)], pass_fds=(c2j_r, j2c_w), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    for fd in (j2c_r, j2c_w, c2j_r, c2j_w):
        os.close(fd)
    out, err = judge_process.communicate(timeout=timeout)
    assert out, err.decode("utf-8", "replace")
    result = json.loads(out)
    return result["verdict"], result["frames"], candidate
