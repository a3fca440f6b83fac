"""Calls sent ahead (judge.Plan): a run of literal asserts takes one turn of the channel, and every verdict is what one
process would give."""

import judge as judge_module
from judging import judge_served

TESTS = """def check(candidate):
    assert candidate(1) == 2
    assert candidate(2) == 3
    assert candidate(3) == 4
    assert abs(candidate(4) - 5) < 1e-9
    assert candidate(x=5) == 6


check(f)
"""


def _done(candidate):
    candidate.kill()
    candidate.communicate(timeout=30)


def _passes_in_one_turn(tmp_path, code, *asserts):
    """Judges check(f) made of asserts (one run) on code: it must pass, its calls all sent with the first."""
    tests = "def check(candidate):\n" + "".join("    assert %s\n" % a for a in asserts) + "\n\ncheck(f)\n"
    verdict, frames, candidate = judge_served(tmp_path, code, tests)
    _done(candidate)
    assert verdict["outcome"] == "passed", verdict
    # the first call, then "bye"
    assert frames == 2


def test_a_run_of_literal_asserts_is_sent_in_one_turn_and_passes(tmp_path):
    verdict, frames, candidate = judge_served(tmp_path, "def f(x):\n    return x + 1\n", TESTS)
    _done(candidate)
    assert verdict["outcome"] == "passed", verdict
    # the first call, then "bye": the four others went ahead, in the same write
    assert frames == 2


def test_tests_that_can_catch_an_exception_are_not_sent_ahead(tmp_path):
    tests = TESTS.replace("check(f)", "try:\n    check(f)\nexcept ValueError:\n    pass")
    verdict, frames, candidate = judge_served(tmp_path, "def f(x):\n    return x + 1\n", tests)
    _done(candidate)
    assert verdict["outcome"] == "passed", verdict
    assert frames == 6


def test_a_wrong_answer_is_the_verdict_at_once_though_a_later_call_would_never_end(tmp_path):
    code = "def f(x):\n    if x == 2:\n        while True:\n            pass\n    return x\n"
    verdict, _, candidate = judge_served(tmp_path, code, TESTS, timeout=20)
    try:
        assert verdict["outcome"] == "assertion", verdict
        assert verdict["testLine"] == 2
        assert verdict["calls"] == ["f(1) returned 1"]
    finally:
        _done(candidate)


def test_no_call_sent_ahead_runs_after_a_call_that_raised(tmp_path):
    code = ("import os\n"
            "def f(x=0):\n"
            "    with open(os.path.join(os.path.dirname(__file__), 'ran'), 'a') as out:\n"
            "        out.write('%d ' % x)\n"
            "    if x == 2:\n"
            "        raise ValueError('two')\n"
            "    return x + 1\n")
    verdict, _, candidate = judge_served(tmp_path, code, TESTS)
    candidate.communicate(timeout=30)
    assert verdict["outcome"] == "raised", verdict
    assert verdict["error"]["type"] == "ValueError"
    assert (tmp_path / "ran").read_text() == "1 2 "


def test_a_remote_object_is_used_before_any_later_call_runs(tmp_path):
    # in one process the generator runs before f(3) is called, and sees two calls; a candidate that ran f(3) ahead
    # would make it see three
    code = ("calls = []\n"
            "def f(x):\n"
            "    calls.append(x)\n"
            "    if x == 2:\n"
            "        return (len(calls) for _ in range(1))\n"
            "    return x + 1\n")
    tests = ("def check(candidate):\n"
             "    assert candidate(1) == 2\n"
             "    assert sorted(candidate(2)) == [2]\n"
             "    assert candidate(3) == 4\n"
             "    assert candidate(4) == 5\n"
             "\n\ncheck(f)\n")
    verdict, frames, candidate = judge_served(tmp_path, code, tests)
    _done(candidate)
    assert verdict["outcome"] == "passed", verdict
    # f(1) and the run sent ahead; the generator's iteration; f(3), sent again with f(4) ahead, and "bye"
    assert frames > 2


def test_calls_with_tuples_are_not_sent_ahead_and_keep_their_identity(tmp_path):
    # equal tuples in one call are one object of the compiled tests; and a global of the code's may keep one from an
    # earlier call, which the judge then sends by name (test_ahead_attacks.py): such calls go one by one
    tests = ("def check(candidate):\n"
             "    assert candidate((1, 2), (1, 2)) is True\n"
             "    assert candidate((1, [2]), (1, [2])) is False\n"
             "    assert candidate((0.0,), (-0.0,)) is False\n"
             "    assert candidate(((1,), 2), ((1,), 2)) is True\n"
             "    assert candidate([(1, 2)], [(1, 2)]) is False\n"
             "\n\ncheck(f)\n")
    verdict, frames, candidate = judge_served(tmp_path, "def f(a, b):\n    return a is b\n", tests)
    _done(candidate)
    assert verdict["outcome"] == "passed", verdict
    assert frames == 6


def test_an_argument_sorted_in_place_and_returned_is_still_the_tests_own(tmp_path):
    _passes_in_one_turn(tmp_path, 'def f(xs):\n    xs.sort()\n    return xs\n',
                        'candidate([3, 1, 2]) == [1, 2, 3]',
                        'candidate([2, 1]) == [1, 2]')


def test_a_built_in_the_tests_rebind_or_an_entry_named_like_one_stops_a_plan(tmp_path):
    rebinds = TESTS.replace("check(f)", "abs = lambda v: 0\ncheck(f)")
    judge_module.precompile(rebinds, judge_module.TESTS_FILE)
    assert judge_module._plan(rebinds, None) is None
    judge_module.precompile(TESTS, judge_module.TESTS_FILE)
    assert judge_module._plan(TESTS, None) is not None
    assert judge_module._plan(TESTS, None, ["abs"]) is None


def test_statements_that_are_not_plain_literal_calls_are_not_steps():
    tests = ("def check(candidate):\n"
             "    x = [1]\n"
             "    assert candidate(x) == 1\n"
             "    assert candidate(1) == 1 or candidate(2) == 2\n"
             "    assert candidate(1) == 1, candidate(2)\n"
             "    assert candidate(*[1]) == 1\n"
             "    assert candidate(len) == 1\n"
             "    assert [candidate(i) for i in (1, 2)] == [1, 2]\n"
             "    assert candidate(1) == x\n"
             "    assert candidate(1) == 1; assert candidate(2) == 2\n"
             "\n\ncheck(f)\n")
    judge_module.precompile(tests, judge_module.TESTS_FILE)
    assert judge_module._plan(tests, None) is None


def test_a_call_whose_arguments_are_not_literals_ends_a_run_in_its_middle(tmp_path):
    # HumanEval/16 and /90: 'abcde' + 'cade' and 0**0 are computed by the tests, so their call cannot go ahead; the
    # calls after it are a run of their own
    tests = ("def check(candidate):\n"
             "    assert candidate('a') == 1\n"
             "    assert candidate('b') == 1\n"
             "    assert candidate('ab' + 'c') == 3\n"
             "    assert candidate('abcd') == 4\n"
             "    assert candidate([1, 0**0]) == 2\n"
             "    assert candidate({16, 12, 13, 14, 15}) == 5\n"
             "    assert candidate('x') == 1\n"
             "    assert candidate('yz') == 2\n"
             "\n\ncheck(f)\n")
    verdict, frames, candidate = judge_served(tmp_path, "def f(s):\n    return len(s)\n", tests)
    _done(candidate)
    assert verdict["outcome"] == "passed", verdict
    # 'a' (with 'b' ahead), 'abc', 'abcd' (a run of one), [1, 1], a set (MBPP/341: the order it iterates in is the
    # compiler's), 'x' (with 'yz' ahead), bye
    assert frames == 7
