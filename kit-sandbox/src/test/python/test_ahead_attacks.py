"""Attacks on calls sent ahead (judge.Plan): each test asserts the verdict one plain process would give."""

import subprocess
import sys

from judging import judge, judge_served


def _plain(code, tests):
    """The outcome of code then tests in one plain Python process (a rough classification)."""
    script = ("import sys\nns = {'__name__': '__main__'}\n"
              "try:\n"
              "    exec(compile(%r, 'main.py', 'exec'), ns)\n"
              "    exec(compile(%r, '<tests>', 'exec'), ns)\n"
              "except AssertionError:\n    print('assertion')\n"
              "except BaseException as e:\n    print('error ' + type(e).__name__)\n"
              "else:\n    print('passed')\n") % (code, tests)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, text=True)
    return out.stdout.strip().splitlines()[-1]


def _done(candidate):
    candidate.kill()
    candidate.communicate(timeout=30)


def _served(tmp_path, code, tests, **kw):
    verdict, frames, candidate = judge_served(tmp_path, code, tests, timeout=60, **kw)
    _done(candidate)
    return verdict, frames


def _agrees(tmp_path, code, tests, expected, prelude=None):
    """One process, the cold judge (nothing sent ahead) and the served judge (calls sent ahead) all end expected."""
    assert _plain(code, tests if prelude is None else prelude + tests) == expected
    cold, _ = judge(tmp_path, code, tests, prelude=prelude)
    assert cold["outcome"] == expected, cold
    verdict, _ = _served(tmp_path, code, tests, prelude=prelude)
    assert verdict["outcome"] == expected, verdict


# ---------------------------------------------------------------- A: a global aliasing a tests' constant tuple

ALIAS_CODE = ("last = None\n"
              "def f(t):\n"
              "    global last\n"
              "    last = t\n"
              "    return sum(t)\n")
ALIAS_TESTS = ("def check(candidate):\n"
               "    assert candidate((1, 2)) == 3\n"
               "    assert candidate((1, 2)) == 3\n"
               "    assert candidate((3, 4)) == 7\n"
               "\n\ncheck(f)\n")


def test_a_global_that_keeps_a_tuple_argument_does_not_make_the_sample_unjudgeable(tmp_path):
    _agrees(tmp_path, ALIAS_CODE, ALIAS_TESTS, "passed")


# ---------------------------------------------------------------- B: an assertion caught by library code

WRONG_AT_ONE = "def f(x):\n    return 0 if x == 1 else x + 1\n"

UNITTEST_TESTS = ("import unittest\n"
                  "\n"
                  "def check(candidate):\n"
                  "    assert candidate(1) == 2\n"
                  "    assert candidate(2) == 3\n"
                  "    assert candidate(3) == 4\n"
                  "\n"
                  "class T(unittest.TestCase):\n"
                  "    def test_check(self):\n"
                  "        check(f)\n"
                  "    def test_more(self):\n"
                  "        self.assertEqual(f(10), 11)\n"
                  "\n"
                  "unittest.TextTestRunner().run(unittest.defaultTestLoader.loadTestsFromTestCase(T))\n")


def test_an_assertion_caught_by_unittest_does_not_make_a_wrong_answer_unjudgeable(tmp_path):
    # the tests have no try, yet unittest catches the failed assertion and runs the next test, which calls f(10)
    # while f(2) and f(3) are still ahead
    _agrees(tmp_path, WRONG_AT_ONE, UNITTEST_TESTS, "passed")


DECORATOR_TESTS = ("import contextlib\n"
                   "\n"
                   "class lenient(contextlib.ContextDecorator):\n"
                   "    def __enter__(self):\n"
                   "        return self\n"
                   "    def __exit__(self, *exc):\n"
                   "        return exc[0] is AssertionError\n"
                   "\n"
                   "@lenient()\n"
                   "def soft():\n"
                   "    check(f)\n"
                   "\n"
                   "def check(candidate):\n"
                   "    assert candidate(1) == 2\n"
                   "    assert candidate(2) == 3\n"
                   "    assert candidate(3) == 4\n"
                   "\n"
                   "soft()\n"
                   "assert f(10) == 11\n")


def test_an_assertion_caught_by_a_context_decorator_does_not_make_a_wrong_answer_unjudgeable(tmp_path):
    _agrees(tmp_path, WRONG_AT_ONE, DECORATOR_TESTS, "passed")


# ---------------------------------------------------------------- C: a step whose callee is not the code's function

HELPER_PRELUDE = ("def helper(x):\n"
                  "    r = f(x)\n"
                  "    return r if r is not None else f(0)\n")
HELPER_TESTS = ("def check(candidate):\n"
                "    assert helper(1) == 2\n"
                "    assert helper(2) == 3\n"
                "    assert helper(3) == 4\n"
                "\n\ncheck(f)\n")
NONE_AT_ONE = "def f(x):\n    return None if x == 1 else x + 1\n"


def test_a_prelude_helper_that_calls_the_code_again_on_its_answer_gives_the_assertion(tmp_path):
    # helper(1) calls f(1) at the step's line: the run starts (f(2), f(3) go ahead); f(1) is None, so helper calls
    # f(0), which the judge takes for the step on the next line
    _agrees(tmp_path, NONE_AT_ONE, HELPER_TESTS, "assertion", prelude=HELPER_PRELUDE)


CACHED_TESTS = ("import functools\n"
                "g = functools.lru_cache(maxsize=None)(f)\n"
                "\n"
                "def check():\n"
                "    assert g(1) == 2\n"
                "    assert g(1) == 2\n"
                "    assert g(2) == 3\n"
                "\n\ncheck()\n")


def test_a_cached_wrapper_of_the_code_as_a_steps_callee_passes_a_right_answer(tmp_path):
    # g(1) the second time is a cache hit, with no call: f(1) ran twice in the candidate, and g(2)'s call is taken
    # for the second step's
    code = "def f(x):\n    return x + 1\n"
    _agrees(tmp_path, code, CACHED_TESTS, "passed")


DEEP_PRELUDE = ("def _down(x, n):\n"
                "    return f(x) if n == 0 else _down(x, n - 1)\n"
                "\n"
                "def deep(x):\n"
                "    return _down(x, 0 if x == 1 else 60)\n")
DEEP_TESTS = ("def check(candidate):\n"
              "    assert deep(1) == 2\n"
              "    assert deep(2) == 3\n"
              "\n\ncheck(f)\n")


def test_a_call_made_more_than_50_frames_below_its_step_is_taken_without_an_error_of_the_judge(tmp_path):
    # the tests' line of the second call cannot be found (None): take_ahead compares step.first <= None, a TypeError
    # the tests see as theirs
    code = "def f(x):\n    return x + 1\n"
    _agrees(tmp_path, code, DEEP_TESTS, "passed", prelude=DEEP_PRELUDE)
