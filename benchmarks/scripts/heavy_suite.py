"""A heavy HumanEval suite: hundreds of calls per problem on generated inputs, as modern benchmarks test (issue 30).

  heavy_suite.py DATA_DIR OUT.jsonl [--calls N] [--seed S]

EvalPlus-style: for each HumanEval problem, the literal arguments of its own tests' calls are mutated by type
(integers moved, strings cut and shuffled, lists shuffled, cut and grown), the canonical solution is run on each
input here (offline, trusted; a 2 s guard that no input comes near, so that a loaded machine makes the same suite), and each input whose output is deterministic plain data (no
floats: their comparison needs a tolerance HumanEval's asserts do not have) becomes one
`assert candidate(...) == ...` line. Problems with fewer than 20 usable inputs are left out. The output is
HumanEval's format, so both codeagent and the reference harness judge it. Same seed, same suite.
"""

import argparse
import ast
import copy
import json
import random
import signal
import sys


class _Slow(Exception):
    pass


def _alarm(_s, _f):
    raise _Slow()


def _literal_calls(test, param):
    """The argument tuples of the test's calls to `param` whose arguments are all literals."""
    out = []
    for node in ast.walk(ast.parse(test)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == param and not node.keywords:
            try:
                out.append(tuple(ast.literal_eval(a) for a in node.args))
            except (ValueError, SyntaxError, TypeError):
                pass
    return out


def _mutate(v, rnd):
    t = type(v)
    if t is bool:
        return not v
    if t is int:
        return v + rnd.choice((-3, -2, -1, 1, 2, 3, 5, 10)) if abs(v) < 10 ** 6 else v
    if t is str:
        s = list(v)
        k = rnd.random()
        if k < 0.3 and s:
            rnd.shuffle(s)
        elif k < 0.6 and s:
            del s[rnd.randrange(len(s))]
        elif s:
            s.insert(rnd.randrange(len(s) + 1), rnd.choice(s))
        return "".join(s)
    if t in (list, tuple):
        xs = list(v)
        k = rnd.random()
        if k < 0.3:
            rnd.shuffle(xs)
        elif k < 0.5 and xs:
            del xs[rnd.randrange(len(xs))]
        elif k < 0.8 and xs:
            xs.append(copy.deepcopy(rnd.choice(xs)))
        elif xs:
            i = rnd.randrange(len(xs))
            xs[i] = _mutate(xs[i], rnd)
        return t(xs)
    return v


def _plain(v, depth=0):
    """Whether v is deterministic plain data without floats (its repr is a literal that compares exactly)."""
    if depth > 20:
        return False
    t = type(v)
    if t in (int, str, bool) or v is None:
        return True
    if t in (list, tuple):
        return all(_plain(x, depth + 1) for x in v)
    if t is dict:
        return all(_plain(k, depth + 1) and _plain(x, depth + 1) for k, x in v.items())
    return False


def problems(data, calls=200, seed=30):
    """(task_id, prompt, canonical_solution, test, entry_point) for each problem of the suite."""
    rnd = random.Random(seed)
    signal.signal(signal.SIGALRM, _alarm)
    out = []
    for line in open(data + "/HumanEval.jsonl"):
        p = json.loads(line)
        ns = {}
        try:
            exec(p["prompt"] + p["canonical_solution"], ns)
        except Exception:
            continue
        fn = ns.get(p["entry_point"])
        seeds = _literal_calls(p["test"], "candidate")
        if fn is None or not seeds:
            continue
        seen, lines, tries = set(), [], 0
        while len(lines) < calls and tries < calls * 5:
            tries += 1
            args = rnd.choice(seeds) if not lines or rnd.random() < 0.5 else rnd.choice(seeds)
            args = tuple(_mutate(copy.deepcopy(a), rnd) if rnd.random() < 0.8 else copy.deepcopy(a) for a in args)
            text = ", ".join(repr(a) for a in args)
            if text in seen or len(text) > 2000 or not all(_plain(a) for a in args):
                continue
            seen.add(text)
            try:
                signal.setitimer(signal.ITIMER_REAL, 2.0)
                r1 = fn(*copy.deepcopy(args))
                r2 = fn(*copy.deepcopy(args))
            except BaseException:
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if r1 != r2 or not _plain(r1) or len(repr(r1)) > 2000:
                continue
            lines.append("    assert candidate(%s) == %r" % (text, r1))
        if len(lines) < 20:
            continue
        test = "\n\ndef check(candidate):\n" + "\n".join(lines) + "\n"
        out.append({"task_id": p["task_id"], "prompt": p["prompt"], "canonical_solution": p["canonical_solution"],
                    "test": test, "entry_point": p["entry_point"]})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--seed", type=int, default=30)
    a = ap.parse_args()
    ps = problems(a.data, a.calls, a.seed)
    with open(a.out, "w") as f:
        for p in ps:
            f.write(json.dumps(p) + "\n")
    n = sum(p["test"].count("\n    assert") for p in ps)
    print("heavy suite: %d problems, %d calls (%.0f per problem)" % (len(ps), n, n / max(1, len(ps))), file=sys.stderr)


if __name__ == "__main__":
    main()
