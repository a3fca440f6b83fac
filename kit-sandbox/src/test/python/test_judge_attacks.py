"""A judged sample never ends INTERNAL_ERROR (no verdict, or the tests blamed) by its own doing: each test here is an
attack by the code under test on the judge, across the real channel, and asserts the sample's own failing verdict."""

import collections
import time

import judge as judge_module
import codeagent_wire as wire
from judging import judge

# code that rewrites the reply the candidate is about to send (the code runs in the candidate's process)
FORGE = """import sys
_w = sys.modules["codeagent_wire"]
_orig = _w.write_frame
def _forged(fd, m):
    if m and m[0] in ("ok", "raise", "loaderr", "ready"):
        forge(m)
    _orig(fd, m)
_w.write_frame = _forged
"""


def test_a_stand_in_of_a_type_that_cannot_be_subclassed_is_the_programs_protocol_error(tmp_path):
    code = FORGE + "def forge(m):\n    if m[0] == 'ok': m[1] = {'T': ['a.B', 'bool', [], True]}\ndef f():\n    return 1\n"
    verdict, err = judge(tmp_path, code, "try:\n    f()\nexcept Exception:\n    pass\n")
    assert verdict["outcome"] == "protocol", (verdict, err)
    assert "stand-in" in verdict["message"]


def test_a_stand_in_whose_name_python_refuses_is_the_programs_protocol_error(tmp_path):
    code = FORGE + "def forge(m):\n    if m[0] == 'ok': m[1] = {'T': ['a.B\\x00', 'list', [], [1]]}\ndef f():\n    return 1\n"
    verdict, err = judge(tmp_path, code, "try:\n    f()\nexcept ValueError:\n    pass\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


def test_an_exception_group_of_the_code_is_its_own_error(tmp_path):
    code = "def f():\n    raise ExceptionGroup('many', [ValueError('a'), KeyError('b')])\n"
    verdict, err = judge(tmp_path, code, "try:\n    f()\nexcept TypeError:\n    pass\n")
    assert verdict["outcome"] == "raised", (verdict, err)
    assert verdict["error"]["type"] == "ExceptionGroup" and "many" in verdict["message"]


def test_an_exception_group_at_load_is_the_codes_error(tmp_path):
    verdict, err = judge(tmp_path, "raise BaseExceptionGroup('x', [KeyboardInterrupt()])\n", "assert True\n")
    assert verdict["outcome"] == "raised", (verdict, err)


def test_an_exception_with_required_arguments_is_the_codes_error(tmp_path):
    code = "def f():\n    b'\\xff'.decode('utf-8')\n"
    verdict, err = judge(tmp_path, code, "f()\n")
    assert verdict["outcome"] == "raised", (verdict, err)
    assert verdict["error"]["type"] == "UnicodeDecodeError"


def test_an_exception_whose_str_raises_is_the_codes_error(tmp_path):
    code = ("class E(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\n"
            "    def __repr__(self):\n        raise RuntimeError('no')\n"
            "def f():\n    raise E()\n")
    verdict, err = judge(tmp_path, code, "f()\n")
    assert verdict["outcome"] == "raised", (verdict, err)


def test_a_module_the_code_cannot_import_is_its_error_not_the_tests(tmp_path):
    verdict, err = judge(tmp_path, "import no_such_module_anywhere\n", "assert True\n")
    assert verdict["outcome"] == "raised", (verdict, err)
    assert verdict["error"]["type"] == "ModuleNotFoundError"


def test_forged_line_numbers_are_reported_as_unknown(tmp_path):
    code = FORGE + ("def forge(m):\n    if m[0] == 'raise':\n"
                    "        m[1][2] = [['main.py', 10 ** 30, 'f', 'x'], ['main.py', -4, 'g', 'y'], ['main.py', 10 ** 7 + 1, 'h', 'z'],"
                    " ['main.py', 7, 'i', 'w']]\n"
                    "def f():\n    raise ValueError('v')\n")
    verdict, err = judge(tmp_path, code, "f()\n")
    assert verdict["outcome"] == "raised", (verdict, err)
    assert [f["line"] for f in verdict["error"]["frames"]] == [0, 0, 0, 7]


def test_a_big_integer_in_the_tests_own_error_message_does_not_break_the_verdict(tmp_path):
    verdict, err = judge(tmp_path, "def f():\n    return 10 ** 5000\n", "d = {}\nd[f()]\n")
    assert verdict["outcome"] == "tests-error", (verdict, err)
    assert "KeyError" in verdict["message"]


def test_a_big_integer_in_an_assertion_message_does_not_break_the_verdict(tmp_path):
    verdict, err = judge(tmp_path, "def f():\n    return 10 ** 5000\n", "assert f() == 1, f()\n")
    assert verdict["outcome"] == "assertion", (verdict, err)


def test_an_ordered_dict_the_code_changed_in_place_is_still_an_ordered_dict(tmp_path):
    code = "def f(d):\n    d['b'] = 2\n"
    tests = ("from collections import OrderedDict\nd = OrderedDict(a=1)\nf(d)\n"
             "assert list(d.items()) == [('a', 1), ('b', 2)]\nassert d == OrderedDict(a=1, b=2)\n")
    verdict, err = judge(tmp_path, code, tests)
    assert verdict["outcome"] == "passed", (verdict, err)


def test_colliding_hashes_cost_the_judge_no_more_than_the_samples_time(tmp_path, monkeypatch):
    # every multiple of 2**61 - 1 hashes alike: a set of them is quadratic to build (sent as a list, made a set on
    # its way out, so that the candidate does not pay the quadratic cost itself)
    monkeypatch.setenv("CODEAGENT_JUDGE_CPU", "1")
    code = FORGE + ("def forge(m):\n    if m[0] == 'ok': m[1] = {'s': m[1]}\n"
                    "def f():\n    return list(range(0, (2 ** 61 - 1) * 100000, 2 ** 61 - 1))\n")
    start = time.monotonic()
    verdict, err = judge(tmp_path, code, "assert len(f()) == 100000\n", timeout=120)
    assert verdict["outcome"] == "protocol", (verdict, err)
    assert "more than 1 s of CPU" in verdict["message"]
    assert time.monotonic() - start < 10


def test_colliding_dict_keys_and_frozensets_are_cut_off_too():
    checks = []

    def check():
        checks.append(1)
        if len(checks) > 3:
            raise wire.WireError("over")

    keys = [n * (2 ** 61 - 1) for n in range(1000)]
    for j in ({"d": [x for k in keys for x in (k, 0)]}, {"f": keys}, {"s": keys}):
        checks.clear()
        try:
            wire.Decoder(check=check).decode(j)
            raise AssertionError("decoded without the check ending it")
        except wire.WireError:
            pass


def test_a_value_at_exactly_the_depth_cap_crosses_and_one_level_more_is_the_programs_error(tmp_path):
    code = ("def f(n):\n    v = 1\n    for _ in range(n):\n        v = [v]\n    return v\n")
    tests = ("v = 1\nfor _ in range(%d):\n    v = [v]\nassert f(%d) == v\nf(%d)\n"
             % (wire.MAX_DEPTH, wire.MAX_DEPTH, wire.MAX_DEPTH + 1))
    verdict, err = judge(tmp_path, code, tests)
    assert verdict["outcome"] == "not-data", (verdict, err)
    assert "deeper than %d levels (the cap)" % wire.MAX_DEPTH in verdict["message"], verdict


REMOTE = """class Box:
    def __len__(self):
        return 3
    def __bool__(self):
        return True
    def __iter__(self):
        return iter([1, 2, 3])
def f():
    return Box()
"""


def test_a_remote_objects_lying_length_truth_or_iterator_is_the_programs_protocol_error(tmp_path):
    for lie, tests in (("[1]", "try:\n    bool(f())\nexcept TypeError:\n    pass\n"),
                       ("10 ** 30", "try:\n    len(f())\nexcept (TypeError, OverflowError):\n    pass\n"),
                       ("-1", "try:\n    len(f())\nexcept ValueError:\n    pass\n"),
                       ("7", "try:\n    list(f())\nexcept TypeError:\n    pass\n")):
        code = REMOTE + FORGE + ("_n = [0]\ndef forge(m):\n    if m[0] == 'ok':\n        _n[0] += 1\n"
                                 "        if _n[0] == 2: m[1] = %s\n" % lie)
        verdict, err = judge(tmp_path, code, tests)
        assert verdict["outcome"] == "protocol", (lie, verdict, err)


def test_an_honest_remote_objects_length_truth_and_items_reach_the_tests(tmp_path):
    verdict, err = judge(tmp_path, REMOTE, "assert len(f()) == 3\nassert f()\nassert list(f()) == [1, 2, 3]\n")
    assert verdict["outcome"] == "passed", (verdict, err)


def test_code_that_prints_into_the_wire_breaks_the_protocol_not_the_judge(tmp_path):
    code = ("import gc, os, sys\n"
            "fd = [o for o in gc.get_objects() if type(o).__name__ == 'Candidate'][0].wfd\n"
            "def f():\n    os.dup2(fd, 1)\n    print('x' * 100000)\n    sys.stdout.flush()\n    return 1\n")
    verdict, err = judge(tmp_path, code, "assert f() == 1\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


def test_a_reply_that_fills_the_judges_memory_is_the_programs_error_not_the_tests(tmp_path):
    # 660,000 empty sets pass the count of items, and cost the judge more than its 256 MiB
    code = FORGE + "def forge(m):\n    if m[0] == 'ok': m[1] = [{'s': []}] * 660000\ndef f():\n    return 1\n"
    verdict, err = judge(tmp_path, code, "try:\n    f()\nexcept Exception:\n    pass\n", judge_memory=256 << 20)
    assert verdict["outcome"] == "protocol", (verdict, err)
    assert "memory" in verdict["message"]


def test_a_flood_of_stand_in_types_is_the_programs_error(tmp_path):
    # each name is a new type the judge builds (and keeps, so that equal names are one type): 200,000 of them
    code = FORGE + ("def forge(m):\n    if m[0] == 'ok': m[1] = [{'T': ['m.T%d' % i, 'list', [], []]} for i in range(200000)]\n"
                    "def f():\n    return 1\n")
    verdict, err = judge(tmp_path, code, "try:\n    f()\nexcept Exception:\n    pass\n", judge_memory=256 << 20)
    assert verdict["outcome"] == "protocol", (verdict, err)
    assert "more than 10000 stand-in types (the cap)" in verdict["message"], verdict


def test_a_deeply_nested_reply_the_judge_only_shows_is_still_the_programs_error(tmp_path):
    catching = "try:\n    f()\nexcept Exception:\n    pass\n"
    for reply, tests, outcome in (
            ("['cap', deep]", catching, "not-data"),
            ("['protocol', deep]", catching, "protocol"),
            ("['raise', ['E', deep, [], 'Exception', 0], [], []]", "f()\n", "raised"),
            ("['raise', [deep, 'm', [['main.py', 1, deep, deep]], 'Exception', 1], [], []]", "f()\n", "raised")):
        code = FORGE + ("def forge(m):\n    if m[0] == 'ok':\n        deep = 1\n        for _ in range(900):\n"
                        "            deep = [deep]\n        m[:] = %s\ndef f():\n    return 1\n" % reply)
        verdict, err = judge(tmp_path, code, tests)
        assert verdict["outcome"] == outcome, (reply, verdict, err)


def test_code_with_a_nul_byte_is_its_own_syntax_error(tmp_path):
    verdict, err = judge(tmp_path, "def f():\n    return 1\n# \x00\n", "assert f() == 1\n")
    assert verdict["outcome"] == "syntax", (verdict, err)
    assert "null" in verdict["message"]


def test_a_reply_of_exactly_the_item_cap_crosses_and_one_item_more_is_refused_naming_it(tmp_path):
    code = "def f(n):\n    return [0] * n\n"
    tests = "assert len(f(%d)) == %d\nf(%d)\n" % (wire.MAX_NODES - 1, wire.MAX_NODES - 1, wire.MAX_NODES)
    verdict, err = judge(tmp_path, code, tests)
    assert verdict["outcome"] == "not-data", (verdict, err)
    assert "more than %d items (the cap)" % wire.MAX_NODES in verdict["message"]


def test_a_frame_of_exactly_the_byte_cap_is_read_and_one_byte_more_is_refused(tmp_path):
    import os
    for n, ok in ((wire.MAX_FRAME, True), (wire.MAX_FRAME + 1, False)):
        body = b'"' + b"a" * (n - 2) + b'"'
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                data = b"%d\n" % n + body
                while data:
                    data = data[os.write(w, data):]
            finally:
                os._exit(0)
        os.close(w)
        try:
            got = wire.loads(wire.read_frame(r))
            assert ok and len(got) == n - 2
        except wire.WireError as e:
            assert not ok and "cap" in str(e), e
        finally:
            os.close(r)
            os.waitpid(pid, 0)


def test_a_complex_number_with_an_integer_part_past_a_float_is_the_programs_protocol_error(tmp_path):
    code = FORGE + "def forge(m):\n    if m[0] == 'ok': m[1] = {'c': [10 ** 400, 0]}\ndef f():\n    return 1\n"
    verdict, err = judge(tmp_path, code, "try:\n    f()\nexcept Exception:\n    pass\n")
    assert verdict["outcome"] == "protocol", (verdict, err)
    assert "complex" in verdict["message"]


def test_a_program_that_exits_halfway_through_a_reply_has_ended(tmp_path):
    code = ("import os, sys\n_w = sys.modules['codeagent_wire']\n"
            "def _half(fd, m):\n    if m and m[0] == 'ok':\n        os.write(fd, b'100\\n[\"ok\",')\n        os._exit(0)\n"
            "    _w.__dict__['_orig'](fd, m)\n_w._orig = _w.write_frame\n_w.write_frame = _half\n"
            "def f():\n    return 1\n")
    verdict, err = judge(tmp_path, code, "try:\n    f()\nexcept BaseException:\n    pass\n")
    assert verdict["outcome"] == "ended", (verdict, err)


def test_a_thread_flooding_the_wire_during_a_call_breaks_the_protocol_not_the_judge(tmp_path):
    code = ("import gc, os, threading, time\n"
            "fd = [o for o in gc.get_objects() if type(o).__name__ == 'Candidate'][0].wfd\n"
            "def flood():\n    while True:\n        try:\n            os.write(fd, b'7\\n[\"ok\",1' * 1000)\n"
            "        except OSError:\n            return\n"
            "def f():\n    threading.Thread(target=flood, daemon=True).start()\n    time.sleep(0.05)\n    return 1\n")
    verdict, err = judge(tmp_path, code, "try:\n    f()\n    f()\nexcept BaseException:\n    pass\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


def test_a_value_sharing_its_parts_is_shown_in_bounded_time(tmp_path):
    # 60 levels, each holding the next twice: 120 containers sent, 2**60 paths to print
    code = "def f():\n    v = []\n    for _ in range(60):\n        v = [v, v]\n    return v\n"
    start = time.monotonic()
    verdict, err = judge(tmp_path, code, "assert len(f()) == 2\nassert len(f()) == 3\n", timeout=60)
    assert verdict["outcome"] == "assertion", (verdict, err)
    assert verdict["calls"] and verdict["calls"][0].startswith("f() returned <list of 2 items"), verdict
    assert time.monotonic() - start < 20


def test_a_tuple_sharing_its_parts_as_a_set_item_is_refused_before_it_is_hashed(tmp_path):
    # a tuple's hash is not cached: (t, t) 60 deep is 2**60 hashes, in one C call
    code = FORGE + ("def forge(m):\n    if m[0] == 'ok':\n        v = {'N': [1, {'u': []}]}\n"
                    "        for k in range(2, 62):\n            v = {'N': [k, {'u': [v, {'A': k - 1}]}]}\n"
                    "        m[1] = {'s': [v]}\n"
                    "def f():\n    return 1\n")
    start = time.monotonic()
    verdict, err = judge(tmp_path, code, "try:\n    f()\nexcept Exception:\n    pass\n", timeout=60)
    assert verdict["outcome"] == "protocol", (verdict, err)
    assert "cap" in verdict["message"], verdict
    assert time.monotonic() - start < 20


# ---------------------------------------------------------------- the tests passing the code's values back

DEEP = "def deep(n):\n    v = 1\n    for _ in range(n):\n        v = [v]\n    return v\ndef size(x):\n    return 1\n"


def test_the_codes_value_at_the_depth_cap_wrapped_by_the_tests_crosses_back(tmp_path):
    # a sample's 100-deep value in the tests' [r, r] was unsendable, blamed on the problem: every other sample of
    # it went unjudged in an evaluation
    verdict, err = judge(tmp_path, DEEP, "r = deep(100)\nassert size([r, r]) == 1\nassert size([[[[[r]]]]]) == 1\n")
    assert verdict["outcome"] == "passed", (verdict, err)


def test_the_tests_own_value_past_the_call_depth_cannot_judge_this_sample_only(tmp_path):
    tests = "v = 1\nfor _ in range(250):\n    v = [v]\nassert size(v) == 1\n"
    verdict, err = judge(tmp_path, DEEP, tests)
    assert verdict["outcome"] == "unjudgeable", (verdict, err)
    assert "deeper than 200 levels" in verdict["message"] and "before the code had sent" in verdict["message"]


def test_deep_stand_ins_of_the_tests_cross_to_the_code(tmp_path):
    # seven JSON levels a level: 190 namedtuples deep is ~1,300 levels of JSON, past the interpreter's recursion limit
    tests = ("import collections\nP = collections.namedtuple('P', 'x')\nv = 1\nfor _ in range(190):\n    v = P(v)\n"
             "def again():\n    return size(v)\n"
             "def nest(n):\n    return again() if n == 0 else nest(n - 1)\n"
             "assert nest(900) == 1\n")
    verdict, err = judge(tmp_path, DEEP, tests)
    assert verdict["outcome"] == "passed", (verdict, err)


def test_the_codes_values_sent_back_past_the_item_cap_are_the_samples_failure(tmp_path):
    code = "def big():\n    return list(range(600_000))\ndef size(x):\n    return 1\n"
    verdict, err = judge(tmp_path, code, "a = big()\nb = big()\nassert size([a, b]) == 1\n")
    assert verdict["outcome"] == "protocol", (verdict, err)
    assert "more than 1000000 items (the cap), a value that holds or is made from the code's own" in verdict["message"]


def test_the_tests_own_value_past_the_item_cap_is_not_the_samples_failure(tmp_path):
    code = "def small():\n    return 2\ndef size(x):\n    return 1\n"
    verdict, err = judge(tmp_path, code, "a = small()\nassert size([a, list(range(1_200_000))]) == 1\n")
    assert verdict["outcome"] == "unjudgeable", (verdict, err)


def test_once_the_code_has_sent_a_container_a_value_past_a_cap_is_the_samples(tmp_path):
    # whose part is over the cap cannot be told once the code's values may be in it (the reviewer's attacks below):
    # the sample's failure, never its INTERNAL_ERROR
    code = "def small():\n    return [1, 2]\ndef size(x):\n    return 1\n"
    verdict, err = judge(tmp_path, code, "a = small()\nassert size([a, list(range(1_200_000))]) == 1\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


# The code's values the judge holds whole, past what any one message of the code's carried: a reviewer with the
# source made each of these an INTERNAL_ERROR ("unjudgeable", the tests' part alone) under a rule that tallied what
# had crossed; in one process each is the code's own pass or failure.

def test_values_chained_through_globals_the_code_rebound_are_the_samples(tmp_path):
    code = ("def nest(n, inner):\n    for _ in range(n):\n        inner = [inner]\n    return inner\n"
            "A = nest(90, 0)\nB = nest(90, A)\nC = nest(90, B)\n"
            "def f(x):\n    global A, B, C\n    r = C\n    A = B = C = None\n    return r\n")
    verdict, err = judge(tmp_path, code, "assert f(f(1)) == 1\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


def test_globals_the_code_rebound_sent_back_past_the_item_cap_are_the_samples(tmp_path):
    code = "A = [0] * 700_000\nB = [0] * 700_000\ndef f(x):\n    global A, B\n    r = [A, B]\n    A = B = None\n    return r\n"
    verdict, err = judge(tmp_path, code, "assert f(f(1)) == 1\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


def test_items_the_code_put_into_the_tests_arguments_are_the_samples(tmp_path):
    code = "def fill(a):\n    a.extend([0] * 600_000)\n\ndef size(x):\n    return len(x)\n"
    verdict, err = judge(tmp_path, code, "a, b = [], []\nfill(a)\nfill(b)\nassert size([a, b]) == 2\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


def test_depth_the_code_chained_through_the_tests_arguments_is_the_samples(tmp_path):
    code = ("def link(a, b, c):\n"
            "    for outer, inner in ((c, 0), (b, c), (a, b)):\n"
            "        x = outer\n        for _ in range(94):\n            x.append([])\n            x = x[-1]\n"
            "        x.append(inner)\n"
            "def size(x):\n    return 1\n")
    verdict, err = judge(tmp_path, code, "a, b, c = [], [], []\nlink(a, b, c)\nassert size(a) == 1\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


def test_the_codes_value_passed_straight_back_past_the_byte_cap_is_the_samples(tmp_path):
    # the tests' encoding wraps each container ({"N": [k, []]}): five times the bytes the code sent
    code = "def f(x):\n    return [[] for _ in range(900_000)]\n"
    verdict, err = judge(tmp_path, code, "assert f(f(1)) == 1\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


def test_a_cycle_through_a_tuple_the_code_built_is_the_samples(tmp_path):
    code = ("G = []\nT = (G,)\nn = 0\n"
            "def f(x):\n    global G, T, n\n    n += 1\n"
            "    if n == 1:\n        G.append(T)\n        return 0\n"
            "    r = T\n    G = T = None\n    return r\n")
    verdict, err = judge(tmp_path, code, "f(0)\nr = f(0)\nassert f(r) == 1\n")
    assert verdict["outcome"] == "protocol", (verdict, err)


def test_an_argument_within_the_caps_reaches_the_candidate_whatever_its_wrapping(tmp_path):
    # 450,001 items within the cap, but the judge's wrapping broke the candidate's raw count: the candidate died and a
    # right program was RUNTIME_ERROR
    verdict, err = judge(tmp_path, "def size(x):\n    return len(x)\n",
                         "v = [[] for _ in range(450_000)]\nassert size(v) == 450_000\n")
    assert verdict["outcome"] == "passed", (verdict, err)


def test_the_codes_values_sent_back_past_the_byte_cap_are_the_samples_failure(tmp_path):
    code = "def big():\n    return 'x' * 5_000_000\ndef size(x):\n    return 1\n"
    verdict, err = judge(tmp_path, code, "a = big()\nb = big()\nassert size([a, b]) == 1\n")
    assert verdict["outcome"] == "protocol", (verdict, err)
    assert "byte cap, a value that holds or is made from the code's own" in verdict["message"]


def test_a_function_the_tests_pass_cannot_judge_this_sample_only(tmp_path):
    verdict, err = judge(tmp_path, DEEP, "assert size(lambda: 1) == 1\n")
    assert verdict["outcome"] == "unjudgeable", (verdict, err)


def test_a_missing_module_is_the_problems_before_any_call_and_this_samples_after_one(tmp_path):
    before, err = judge(tmp_path, DEEP, "import no_such_module_for_tests\nassert size(1) == 1\n")
    assert before["outcome"] == "tests", (before, err)
    after, err = judge(tmp_path, DEEP, "if size(1) == 1:\n    import no_such_module_for_tests\n")
    assert after["outcome"] == "unjudgeable", (after, err)


def test_tests_that_catch_the_codes_failure_and_then_miss_an_import_get_the_codes_failure(tmp_path):
    # the call ended in a Failure (the program exited): with a bare except the tests go on to an import this judge
    # cannot satisfy; before, that was "tests" (every sample of the problem blamed on its tests) by this sample's doing
    code = "import os\ndef f():\n    os._exit(3)\n"
    tests = "try:\n    f()\nexcept:\n    pass\nimport codeagent_no_such_module\n"
    verdict, err = judge(tmp_path, code, tests)
    assert verdict["outcome"] == "ended", (verdict, err)


def test_running_out_of_memory_while_reading_a_frame_is_the_replys_not_the_tests(monkeypatch):
    # a MemoryError in the frame's read itself, left to the tests, would be theirs: `except Exception` in them passes
    def out_of_memory(fd):
        raise MemoryError()
    monkeypatch.setattr(wire, "read_frame", out_of_memory)
    j = judge_module.Judge(-1, -1, cpu_limit=10)
    try:
        j.read()
    except judge_module.Failure as f:
        assert f.outcome == "protocol" and "memory" in f.message, f.message
    else:
        raise AssertionError("no failure")
    assert j.failure is not None
