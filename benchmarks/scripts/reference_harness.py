#!/usr/bin/python3.11
"""A human-eval-style reference harness: the baseline `codeagent eval` is measured against.

It checks HumanEval completions the way openai/human-eval's harness does: for every problem a
multiprocessing Manager holds the result list, a fresh Process runs the check program with
exec() under a SIGALRM time limit (3 s by default), the parent waits timeout + 1 s and kills
what is still alive; problems are spread over a thread pool (4 workers, human-eval's default).
Like the original it is *not* a sandbox: the checked code runs with the harness's own rights.

Usage: reference_harness.py PROBLEMS.jsonl [--samples SAMPLES.jsonl] [--workers N] [--timeout S]
                            [--start-method fork|spawn|forkserver] [--json]
Without --samples each problem's canonical_solution (MBPP: its code) is checked. MBPP problems (those
with a test_list) are checked as MBPP's own evaluation does: the code, test_setup_code, then each assert. The start method defaults to the
platform's (fork on Linux up to Python 3.13), which is what human-eval gets; spawn starts a fresh
interpreter for the Manager and for every Process, as human-eval does on macOS and Windows.
"""

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import signal
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed


class TimedOut(Exception):
    pass


@contextlib.contextmanager
def alarm(seconds):
    def on_alarm(signum, frame):
        raise TimedOut()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Sink(io.StringIO):
    """Swallows output; refuses to be read, so a program waiting on stdin fails instead of hanging."""

    def read(self, *args, **kwargs):
        raise OSError("stdin is closed")

    readline = read
    readlines = read


def run_in_child(program, timeout, result):
    # A private temporary working directory, as human-eval gives each check.
    with tempfile.TemporaryDirectory() as workdir:
        os.chdir(workdir)
        sink = _Sink()
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                saved_stdin, sys.stdin = sys.stdin, sink
                try:
                    with alarm(timeout):
                        exec(program, {})
                finally:
                    sys.stdin = saved_stdin
            result.append("passed")
        except TimedOut:
            result.append("timed out")
        except BaseException as e:  # the checked code may raise anything, SystemExit included
            result.append("failed: %s: %s" % (type(e).__name__, e))
        finally:
            os.chdir("/")


def check(problem, completion, timeout):
    if "test_list" in problem:
        # MBPP, as its own evaluation builds the program: the code, the setup, then each assert
        program = completion + "\n" + (problem.get("test_setup_code") or "") + "\n" + "\n".join(problem["test_list"])
    else:
        program = (problem["prompt"] + completion + "\n" + problem["test"] + "\n"
                   + "check(" + problem["entry_point"] + ")")
    manager = multiprocessing.Manager()
    try:
        result = manager.list()
        child = multiprocessing.Process(target=run_in_child, args=(program, timeout, result))
        child.start()
        child.join(timeout + 1)
        if child.is_alive():
            child.kill()
            child.join()
        outcome = result[0] if len(result) else "timed out"
    finally:
        manager.shutdown()
    return outcome


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    print("%s:%d: not JSON (%s); skipped" % (path, number, e.msg), file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems")
    parser.add_argument("--samples")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--start-method", choices=multiprocessing.get_all_start_methods())
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.start_method:
        multiprocessing.set_start_method(args.start_method)

    problems = {p["task_id"]: p for p in read_jsonl(args.problems)}
    if args.samples:
        samples = [(s["task_id"], s["completion"]) for s in read_jsonl(args.samples) if s.get("task_id") in problems]
    else:
        samples = [(task_id, p["canonical_solution"] if "canonical_solution" in p else p["code"])
                   for task_id, p in problems.items()]

    started = time.monotonic()
    failures = []
    passed = 0
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        futures = {pool.submit(check, problems[t], c, args.timeout): t for t, c in samples}
        for future in as_completed(futures):
            outcome = future.result()
            if outcome == "passed":
                passed += 1
            else:
                failures.append((futures[future], outcome))
    wall_ms = int((time.monotonic() - started) * 1000)

    if args.json:
        print(json.dumps({"total": len(samples), "passed": passed, "wallTimeMs": wall_ms,
                          "startMethod": multiprocessing.get_start_method()}))
    else:
        for task_id, outcome in sorted(failures):
            print("%s: %s" % (task_id, outcome))
        print("reference harness: %d/%d passed in %.1f s (%d workers, %.0f s timeout, %s)"
              % (passed, len(samples), wall_ms / 1000, args.workers, args.timeout, multiprocessing.get_start_method()))
    return 0 if passed == len(samples) else 1


if __name__ == "__main__":
    sys.exit(main())
