"""judge.py and candidate.py: the verdict's shape and caps, and whole judgings across the channel."""

import json
import os

import pytest

import judge as judge_module
from judging import judge

REPORT_KEYS = {"outcome", "message", "testLine", "testSource", "calls"}


def test_a_report_has_the_shape_the_jvm_reads():
    r = judge_module.report("assertion", "failed assertion", None, ("ValueError", "bad", [("main.py", 3, "f", "x")]),
                            ["f(1) returned 2"])
    assert REPORT_KEYS <= set(r)
    assert r["error"] == {"type": "ValueError", "message": "bad",
                          "frames": [{"file": "main.py", "line": 3, "function": "f", "source": "x"}]}
    assert r["calls"] == ["f(1) returned 2"]


def test_a_report_cuts_long_parts_and_drops_malformed_frames():
    frames = [("main.py", "3", "f", "x"), "not a frame"] + [("main.py", i, "g", "y") for i in range(50)]
    r = judge_module.report("raised", "m" * 5000, None, ("E" * 500, "v" * 5000, frames), ["c" * 1000])
    assert len(r["message"]) == 300 and r["message"].endswith("...")
    assert len(r["error"]["type"]) == 100
    assert len(r["error"]["message"]) == 1000
    assert len(r["calls"][0]) == 400
    assert len(r["error"]["frames"]) == judge_module.MAX_FRAMES
    assert all(type(f["line"]) is int for f in r["error"]["frames"])


def test_the_verdict_line_is_ascii_json_that_reads_back_the_same():
    verdict = {"outcome": "raised", "message": "é \" \\ \n \U0001F600 \x00", "testLine": 3, "testSource": None,
               "calls": ["ä"], "error": None}
    text = judge_module.verdict_json(verdict)
    assert text.isascii() and "\n" not in text
    assert json.loads(text) == verdict


def test_a_verdict_too_long_for_the_sandbox_loses_its_calls_and_frames_not_its_outcome():
    frames = [{"file": "main.py", "line": i, "function": "f", "source": "s" * 300} for i in range(1000)]
    verdict = {"outcome": "raised", "message": "m", "testLine": None, "testSource": None, "calls": ["c" * 400] * 200,
               "error": {"type": "E", "message": "x", "frames": frames}}
    text = judge_module.verdict_json(verdict)
    assert len(text) <= judge_module.MAX_VERDICT
    back = json.loads(text)
    assert back["outcome"] == "raised" and back["calls"] == [] and back["error"]["frames"] == []


def test_correct_code_passes(tmp_path):
    verdict, err = judge(tmp_path, "def add(a, b):\n    return a + b\n", "assert add(1, 2) == 3\nassert add('a', 'b') == 'ab'\n")
    assert verdict["outcome"] == "passed", err
    assert verdict["message"] == ""


def test_a_wrong_answer_names_the_assertion_its_line_and_the_call(tmp_path):
    verdict, _ = judge(tmp_path, "def add(a, b):\n    return a - b\n", "assert add(1, 1) == 0\nassert add(2, 2) == 4\n")
    assert verdict["outcome"] == "assertion"
    assert verdict["testLine"] == 2
    assert verdict["testSource"] == "assert add(2, 2) == 4"
    assert "add(2, 2) returned 0" in verdict["calls"]


def test_an_exception_of_the_code_is_reported_with_its_frames_in_the_code(tmp_path):
    verdict, _ = judge(tmp_path, "def div(a, b):\n    return a / b\n", "assert div(1, 0) == 0\n")
    assert verdict["outcome"] == "raised"
    assert verdict["error"]["type"] == "ZeroDivisionError"
    assert [f["line"] for f in verdict["error"]["frames"]] == [2]


def test_code_that_does_not_compile_is_a_syntax_outcome(tmp_path):
    verdict, _ = judge(tmp_path, "def add(a, b)\n    return a + b\n", "assert add(1, 2) == 3\n")
    assert verdict["outcome"] == "syntax"


def test_code_that_raises_a_syntax_error_of_its_own_is_not_a_syntax_outcome(tmp_path):
    # the candidate says the code did not load with a SyntaxError, but the code compiles: the judge compiles it
    # itself before it believes that, so the code's own raise is an error it raised, not a syntax verdict
    verdict, _ = judge(tmp_path, "raise SyntaxError('invalid syntax')\n", "assert add(1, 2) == 3\n")
    assert verdict["outcome"] == "raised", verdict
    assert verdict["error"]["type"] == "SyntaxError"


def _silent_candidate():
    """The judge's two ends of a channel whose candidate ended before it said anything."""
    c2j_r, c2j_w = os.pipe()
    j2c_r, j2c_w = os.pipe()
    os.close(c2j_w)
    os.close(j2c_r)
    return c2j_r, j2c_w


def test_code_that_does_not_compile_is_a_syntax_outcome_whatever_the_candidate_said():
    # a judge server's child judges from the texts, and compiles the code only when the candidate did not say it
    # is ready: a candidate that ended first (killed, out of memory) must not turn a syntax error into "ended"
    rfd, wfd = _silent_candidate()
    verdict = judge_module.Judge(rfd, wfd, 10.0).judge("def add(a, b)\n    return a + b\n", "main.py",
                                                       "assert add(1, 2) == 3\n")
    assert verdict["outcome"] == "syntax", verdict
    assert verdict["error"]["frames"][0]["file"] == "main.py"
    assert verdict["error"]["frames"][0]["line"] == 1


def test_tests_that_do_not_compile_are_the_problems_fault_before_the_code_is_looked_at():
    rfd, wfd = _silent_candidate()
    verdict = judge_module.Judge(rfd, wfd, 10.0).judge("def add(a, b)\n", "main.py", "assert add(1, 2) ==\n")
    assert verdict["outcome"] == "tests", verdict
    assert "the problem's fault" in verdict["message"]


def test_a_value_that_is_not_data_cannot_be_compared(tmp_path):
    code = "class Always:\n    def __eq__(self, other):\n        return True\n\ndef f():\n    return Always()\n"
    verdict, _ = judge(tmp_path, code, "assert f() == 42\n")
    assert verdict["outcome"] != "passed"


def test_a_program_that_exits_before_the_tests_end_is_never_passed(tmp_path):
    verdict, _ = judge(tmp_path, "import os\nos._exit(0)\n", "assert True\n")
    assert verdict["outcome"] == "ended"


def test_the_prelude_runs_on_the_judge_side_and_entry_points_shadow_builtins(tmp_path):
    verdict, err = judge(tmp_path, "def sum(xs):\n    return 42\n", "assert sum([1]) == helper()\n",
                         prelude="def helper():\n    return 42\n", entries=["sum"])
    assert verdict["outcome"] == "passed", (verdict, err)


@pytest.mark.parametrize("argv", [["judge.py"], ["judge.py", "0", "1", "main.py"]])
def test_a_judge_started_wrongly_says_how_to_start_it(argv, capsys):
    assert judge_module.main(argv) == 2
    assert "usage: judge.py" in capsys.readouterr().err
