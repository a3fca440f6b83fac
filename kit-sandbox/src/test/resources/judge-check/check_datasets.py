"""Judges HumanEval / MBPP reference solutions and the attack corpus with the split judge (judge.py +
candidate.py, real processes over pipes), and counts what passes; times it against today's
single-process check.

  check_datasets.py humaneval|mbpp|mbpp-all|attacks --scripts DIR [--data DIR] [--attacks DIR]
                    [--mode split|jfork|today] [--workers N] [--uids] [--bwrap] [--show]

Exit status 0 when every reference solution passes (humaneval, mbpp) or no attack passes (attacks).
--uids and --bwrap need root: never run the attacks as root without --uids (they signal and ptrace).

split: a fresh candidate interpreter and a fresh judge interpreter per sample.
jfork: a fresh candidate interpreter; the judge forked per sample from this pre-imported process
       (what a judge zygote does).
today: codeagent's current program: code + tests + a marker line, one interpreter; passed when it
       exits 0 with the marker on stderr (for timing).
--uids: candidate and judge run under two different uids, fresh ones for every sample (61000+n, 62000+n),
       as the tiers would (one sample's code must not reach another's either).
--bwrap: the candidate runs under bubblewrap, seeing /usr and its own /work only, as in the process tier.
"""

import argparse
import ast
import concurrent.futures
import glob
import itertools
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

HERE = None  # the scripts' directory (--scripts)
ATTACKS = None
judge_module = None

PY = "/usr/bin/python3"
DATA = None
C_UID, J_UID = 61000, 62000
_SAMPLES = itertools.count()
TIMEOUT = float(os.environ.get("JUDGE_CHECK_TIMEOUT", "10"))
BWRAP = False


def humaneval():
    for line in open(os.path.join(DATA, "HumanEval.jsonl")):
        p = json.loads(line)
        yield (p["task_id"], p["prompt"] + p["canonical_solution"], p["test"] + "\n" + "check(" + p["entry_point"] + ")",
               p["prompt"], p["entry_point"])


def mbpp(split=True):
    for line in open(os.path.join(DATA, "mbpp.jsonl")):
        p = json.loads(line)
        if split and not 11 <= p["task_id"] <= 510:
            continue
        # the entry points: what the dataset's own solution defines (task 126's is called sum)
        entries = ",".join(n.name for n in ast.parse(p["code"]).body
                           if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
        yield str(p["task_id"]), p["code"], p["test_setup_code"] + "\n" + "\n".join(p["test_list"]), None, entries


def attacks():
    """Attack files: the code is the file; the tests are the HumanEval problem named in its first line."""
    problems = {p[0]: p for p in humaneval()}
    for path in sorted(glob.glob(os.path.join(ATTACKS, "*.py"))):
        src = open(path).read()
        task = src.splitlines()[0].split("task:")[1].strip()
        _, _, tests, prompt, entry = problems[task]
        yield os.path.basename(path), prompt + src, tests, prompt, entry


def preexec(uid):
    def f():
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    return f


def run_split(task, code, tests, prelude, entry, mode, uids):
    n = next(_SAMPLES) % 1000
    c_uid, j_uid = C_UID + n, J_UID + n
    d = tempfile.mkdtemp(prefix="pj-")
    try:
        os.chmod(d, 0o755)
        # the judge's files live where the candidate cannot read them: the tests would be a lookup table
        jd = os.path.join(d, "judge")
        os.mkdir(jd, 0o700)
        main, tfile, jmain = os.path.join(d, "main.py"), os.path.join(jd, "tests.py"), os.path.join(jd, "main.py")
        open(main, "w").write(code)
        open(jmain, "w").write(code)
        open(tfile, "w").write(tests)
        pfile = os.path.join(jd, "prelude.py")
        open(pfile, "w").write(prelude or "")
        extra = [pfile if prelude is not None else "-", entry] if entry else []
        if uids:
            for f in (jd, tfile, jmain, pfile):
                os.chown(f, j_uid, j_uid)
        c_in, j_out = os.pipe()   # judge -> candidate
        j_in, c_out = os.pipe()   # candidate -> judge
        argv = [PY, os.path.join(HERE, "candidate.py"), str(c_in), str(c_out), main]
        if BWRAP:
            # as the process tier runs a program: own namespaces, /usr read-only, /work private; the
            # runner's directory read-only; the judge's files nowhere in sight
            argv = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr",
                    "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                    "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--bind", d, "/work",
                    "--ro-bind", HERE, "/judge-lib", "--chdir", "/work", "--"] + [
                    PY, "/judge-lib/candidate.py", str(c_in), str(c_out), "/work/main.py"]
        cand = subprocess.Popen(argv,
                                pass_fds=(c_in, c_out), cwd=d, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                preexec_fn=preexec(c_uid) if uids else None,
                                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"})
        os.close(c_in)
        os.close(c_out)
        if mode == "split":
            jp = subprocess.Popen([PY, "-I", "-S", os.path.join(HERE, "judge.py"), str(j_in), str(j_out), jmain, tfile] + extra,
                                  pass_fds=(j_in, j_out), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, preexec_fn=preexec(j_uid) if uids else None)
            os.close(j_in)
            os.close(j_out)
            try:
                out, err = jp.communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                # the tier's wall-clock limit would end both: TIME_LIMIT_EXCEEDED, never ACCEPTED
                jp.kill()
                cand.kill()
                jp.communicate()
                out, err = b'{"outcome": "timeout", "message": "wall-clock limit (driver)"}', b""
        else:  # jfork: the judge forked from this process, as from a zygote
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    os.close(r)
                    if uids:
                        preexec(j_uid)()
                    judge_module._tests_source[:] = tests.splitlines()
                    v = judge_module.Judge(j_in, j_out).run(jmain, tfile, pfile if prelude is not None else None,
                                                            entry.split(",") if entry else ())
                    os.write(w, (json.dumps(v) + "\n").encode())
                finally:
                    os._exit(0)
            os.close(w)
            os.close(j_in)
            os.close(j_out)
            out = b""
            while True:
                c = os.read(r, 65536)
                if not c:
                    break
                out += c
            os.close(r)
            os.waitpid(pid, 0)
            err = b""
        try:
            cand_out, _ = cand.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            cand.kill()
            cand_out, _ = cand.communicate()
        try:
            verdict = json.loads(out.decode().strip().splitlines()[-1])
        except (IndexError, ValueError):
            verdict = {"outcome": "judge-failed", "message": err.decode()[-500:]}
        verdict["candidateOutput"] = cand_out.decode(errors="replace")[-300:]
        return task, verdict
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_today(task, code, tests, prelude, entry, uids):
    d = tempfile.mkdtemp(prefix="pj-")
    try:
        os.chmod(d, 0o755)
        marker = "codeagent-tests-done-" + secrets.token_hex(8)
        main = os.path.join(d, "main.py")
        open(main, "w").write(code + "\n\n" + tests + "\n" + "__import__('sys').stderr.write('" + marker + "\\n')\n")
        p = subprocess.run([PY, "main.py"], cwd=d, capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                           preexec_fn=preexec(C_UID) if uids else None,
                           env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"})
        ok = p.returncode == 0 and marker in p.stderr.decode(errors="replace")
        return task, {"outcome": "passed" if ok else "failed", "message": p.stderr.decode(errors="replace")[-300:]}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():  # noqa: C901
    ap = argparse.ArgumentParser()
    ap.add_argument("set", choices=["humaneval", "mbpp", "mbpp-all", "attacks"])
    ap.add_argument("--mode", default="split", choices=["split", "jfork", "today"])
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--uids", action="store_true")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--bwrap", action="store_true")
    ap.add_argument("--scripts", required=True)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../../shared/data"))
    ap.add_argument("--attacks")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    global HERE, DATA, ATTACKS, judge_module
    HERE, DATA, ATTACKS = os.path.abspath(a.scripts), os.path.abspath(a.data), a.attacks
    if a.set == "attacks" and os.geteuid() == 0 and not a.uids:
        sys.exit("check_datasets: run the attacks as root only with --uids")
    sys.path.insert(0, HERE)
    import judge as judge_module
    items = list({"humaneval": humaneval, "mbpp": mbpp, "mbpp-all": lambda: mbpp(False), "attacks": attacks}[a.set]())
    items = items * a.repeat
    global BWRAP
    BWRAP = a.bwrap
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(a.workers) as pool:
        if a.mode == "today":
            futures = [pool.submit(run_today, *item, a.uids) for item in items]
        else:
            futures = [pool.submit(run_split, *item, a.mode, a.uids) for item in items]
        results = [f.result() for f in futures]
    wall = time.monotonic() - t0
    passed = [t for t, v in results if v["outcome"] == "passed"]
    for t, v in results:
        if a.show or (a.set != "attacks" and v["outcome"] != "passed"):
            print("%-28s %-12s %s%s" % (t, v["outcome"], v.get("message", "")[:150],
                                        ("  | calls: " + "; ".join(v["calls"])[:150]) if v.get("calls") else ""))
    print("%s %s%s: %d/%d passed in %.2f s (%d workers)" % (a.set, a.mode, " two-uids" if a.uids else "",
                                                            len(passed), len(results), wall, a.workers))
    return (len(passed) == 0) if a.set == "attacks" else (len(passed) == len(results))


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
