"""A second review's attacks on calls sent ahead (judge.Plan): each test asserts the verdict one plain process gives.

Each case's cold verdict (judging.judge, nothing sent ahead) agrees with one process; the served one (judge_served)
ends "unjudgeable" (out_of_step), an INTERNAL_ERROR-class verdict."""

from test_ahead_attacks import WRONG_AT_ONE, _agrees

RIGHT = "def f(x):\n    return x + 1\n"


# ---------------------------------------------------------------- catching with no try in the text: C code between
# two <tests> frames (Python frames only are walked by Judge.start_run)

OLD_ITERATION_TESTS = ("class It:\n"
                       "    def __getitem__(self, i):\n"
                       "        if i == 0:\n"
                       "            check(f)\n"
                       "            return 0\n"
                       "        raise IndexError\n"
                       "\n"
                       "def check(candidate):\n"
                       "    assert candidate(1)[0] == 2\n"
                       "    assert candidate(2)[0] == 3\n"
                       "    assert candidate(3)[0] == 4\n"
                       "\n"
                       "for _ in It():\n"
                       "    pass\n"
                       "assert f(10) == [11]\n")


def test_an_index_error_of_a_step_ended_by_old_style_iteration_is_not_out_of_step(tmp_path):
    # code-triggered in a tests' shape: f(1) returns [], the step's [0] raises IndexError in the tests, which the
    # for loop's __getitem__ protocol takes for the end; f(2), f(3) are still ahead when the tests call f(10)
    code = "def f(x):\n    return [] if x == 1 else [x + 1]\n"
    _agrees(tmp_path, code, OLD_ITERATION_TESTS, "passed")


LENGTH_HINT_TESTS = ("class L:\n"
                     "    def __len__(self):\n"
                     "        check(f)\n"
                     "        return 0\n"
                     "    def __iter__(self):\n"
                     "        return iter([])\n"
                     "\n"
                     "def check(candidate):\n"
                     "    assert len(candidate(1)) == 1\n"
                     "    assert len(candidate(2)) == 1\n"
                     "    assert len(candidate(3)) == 1\n"
                     "\n"
                     "list(L())\n"
                     "assert f(10) == [11]\n")


def test_a_type_error_of_a_step_swallowed_by_a_length_hint_is_not_out_of_step(tmp_path):
    # list() asks __len__ for a length hint and drops a TypeError: f(1) returns 0, len(0) is one
    code = "def f(x):\n    return 0 if x == 1 else [x + 1]\n"
    _agrees(tmp_path, code, LENGTH_HINT_TESTS, "passed")


DEL_TESTS = ("class D:\n"
             "    def __del__(self):\n"
             "        check(f)\n"
             "\n"
             "def check(candidate):\n"
             "    assert candidate(1) == 2\n"
             "    assert candidate(2) == 3\n"
             "    assert candidate(3) == 4\n"
             "\n"
             "d = D()\n"
             "del d\n"
             "assert f(10) == 11\n")


def test_an_assertion_swallowed_by_a_finalizer_is_not_out_of_step(tmp_path):
    # an exception out of __del__ is unraisable: written to stderr, and the tests go on
    _agrees(tmp_path, WRONG_AT_ONE, DEL_TESTS, "passed")


EXEC_TESTS = ("def check(candidate):\n"
              "    assert candidate(1) == 2\n"
              "    assert candidate(2) == 3\n"
              "    assert candidate(3) == 4\n"
              "\n"
              "exec(compile('try:\\n    check(f)\\nexcept AssertionError:\\n    pass\\n', '<tests>', 'exec'))\n"
              "assert f(10) == 11\n")


def test_a_try_compiled_by_the_tests_under_their_own_file_name_is_not_out_of_step(tmp_path):
    # the try is in a string _Reading never parses; its frames are named <tests> (also: Plan.at is looked up by line
    # alone, so a text compiled as <tests> matches the steps' lines)
    _agrees(tmp_path, WRONG_AT_ONE, EXEC_TESTS, "passed")


# ---------------------------------------------------------------- a call of the tests between two steps

TRACE_TESTS = ("import sys\n"
               "\n"
               "seen = []\n"
               "\n"
               "def tracer(frame, event, arg):\n"
               "    if frame.f_code.co_filename != '<tests>':\n"
               "        return None\n"
               "    if event == 'line' and frame.f_code.co_name == 'check' and frame.f_lineno == 15 and not seen:\n"
               "        seen.append(f(0))\n"
               "    return tracer\n"
               "\n"
               "def check(candidate):\n"
               "    assert candidate(1) == 2\n"
               "    assert candidate(2) == 3\n"
               "    assert candidate(3) == 4\n"
               "\n"
               "sys.settrace(tracer)\n"
               "check(f)\n"
               "sys.settrace(None)\n"
               "assert seen == [1]\n")


def test_a_trace_function_of_the_tests_calling_the_code_between_steps_is_not_out_of_step(tmp_path):
    # tests-shape: the tracer's frame is <tests>, its call of f(0) comes while f(3) is ahead
    _agrees(tmp_path, RIGHT, TRACE_TESTS, "passed")


# ---------------------------------------------------------------- the run's last step sent twice

SLOW_READER_CODE = r'''import os, sys, time

# the candidate is the code's process: its reader now takes one frame at a time, a little late (nothing else changes:
# every frame is still read and answered in order, honestly)
w = sys.modules.get("codeagent_wire")
if w is not None:
    def _exact(fd):
        time.sleep(0.2)
        h = b""
        while not h.endswith(b"\n"):
            c = os.read(fd, 1)
            if not c:
                raise w.Closed("closed")
            h += c
        n = int(h)
        body = b""
        while len(body) < n:
            c = os.read(fd, n - len(body))
            if not c:
                raise w.Closed("closed")
            body += c
        return body
    w.read_frame = _exact

def f(s):
    return len(s)
'''
BIG_TESTS = ("def check(candidate):\n"
             "    assert candidate('x') == 1\n"
             "    assert candidate('%s') == 25000\n"
             "    assert candidate('%s') == 10000\n"
             "\n\ncheck(f)\n"
             "assert f('yy') == 2\n") % ("a" * 25000, "b" * 10000)


def test_a_last_step_not_sent_ahead_in_time_is_not_sent_again(tmp_path):
    # code-triggered: the 10 KB step does not fit while the 25 KB one is unread, so the tests reach it with the step
    # still unsent; it is called as usual, start_run says no (the run's last step) but leaves it in unsent, and
    # request's send_ahead then sends it again, ahead: f('yy') is out of step with the duplicate
    _agrees(tmp_path, SLOW_READER_CODE, BIG_TESTS, "passed")
