"""Regenerates the traceback corpus: for every case directory, builds main.py exactly as
Judge.prepare does (code, a blank line, the tests, a newline; or the code alone), runs it with
/usr/bin/python3.11 and stores what it wrote on stderr in stderr.txt.

Run it from this directory with /usr/bin/python3.11 generate.py. A case may hold a file named
`mode` saying how the program is run: `file` (default: python3.11 main.py in a fresh temp dir),
`workdir` (in /tmp/codeagent-tb/work, as a container would), `string` (python3.11 -c SOURCE), or
`stdin` (python3.11 - < main.py).
"""
import os
import pathlib
import shutil
import subprocess
import tempfile

PYTHON = "/usr/bin/python3.11"
HERE = pathlib.Path(__file__).resolve().parent


def program(case):
    code = (case / "code.py").read_text().rstrip("\n")
    tests_file = case / "tests.py"
    if tests_file.exists():
        return code + "\n\n" + tests_file.read_text() + "\n"
    return code


def run(case, source):
    mode_file = case / "mode"
    mode = mode_file.read_text().strip() if mode_file.exists() else "file"
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    if mode == "workdir":
        work = pathlib.Path("/tmp/codeagent-tb/work")
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    else:
        work = pathlib.Path(tempfile.mkdtemp(prefix="run-"))
    try:
        (work / "main.py").write_text(source)
        if mode == "string":
            cmd, stdin = [PYTHON, "-c", source], None
        elif mode == "stdin":
            cmd, stdin = [PYTHON, "-"], source
        else:
            cmd, stdin = [PYTHON, "main.py"], None
        p = subprocess.run(cmd, cwd=work, env=env, input=stdin, capture_output=True, text=True, timeout=30)
        return p.returncode, p.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)


for case in sorted(d for d in HERE.iterdir() if d.is_dir()):
    source = program(case)
    (case / "main.py").write_text(source)
    status, stderr = run(case, source)
    (case / "stderr.txt").write_text(stderr)
    print(f"{case.name}: exit {status}, {len(stderr.splitlines())} stderr lines")
