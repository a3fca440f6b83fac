"""candidate.py: runs the code as the program's __main__ and answers the judge's calls."""

import os
import subprocess
import sys

import candidate as candidate_module
import codeagent_wire
from conftest import SCRIPTS
from judging import judge


def test_the_code_runs_as_main_with_its_own_directory_first_on_the_path(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 7\n", encoding="utf-8")
    code = "import sys, os\nfrom helper import VALUE\nAS_MAIN = __name__ == '__main__'\ndef seen():\n    return [AS_MAIN, VALUE]\n"
    verdict, err = judge(tmp_path, code, "assert seen() == [True, 7]\n")
    assert verdict["outcome"] == "passed", (verdict, err)


def test_a_generator_crosses_as_a_remote_object_the_tests_can_iterate(tmp_path):
    verdict, err = judge(tmp_path, "def gen(n):\n    yield from range(n)\n", "assert list(gen(3)) == [0, 1, 2]\n")
    assert verdict["outcome"] == "passed", (verdict, err)


def test_a_candidate_started_wrongly_says_how_to_start_it(capsys):
    assert candidate_module.main(["candidate.py", "0"]) == 2
    assert "usage: candidate.py" in capsys.readouterr().err


def test_a_rehearsal_judges_the_built_in_sample_passed_and_leaves_nothing_behind():
    # what a judge server and the zygote run once before their first job, each with its own side in-process
    main, argv, fds = sys.modules.get("__main__"), sys.argv, sorted(os.listdir("/proc/self/fd"))
    verdict = candidate_module.rehearse("judge")
    assert verdict["outcome"] == "passed", verdict
    assert candidate_module.rehearse("candidate") == 0
    assert sys.modules.get("__main__") is main and sys.argv is argv
    assert sorted(os.listdir("/proc/self/fd")) == fds
    assert not codeagent_wire._pending


def test_the_built_in_sample_is_judged_as_any_other_code(tmp_path):
    # the rehearsal's tests would catch its code getting an argument's in-place change wrong
    verdict, err = judge(tmp_path, candidate_module.REHEARSAL_CODE, candidate_module.REHEARSAL_TESTS)
    assert verdict["outcome"] == "passed", (verdict, err)
    wrong = candidate_module.REHEARSAL_CODE.replace("numbers.sort()", "numbers = sorted(numbers)")
    verdict, err = judge(tmp_path, wrong, candidate_module.REHEARSAL_TESTS)
    assert verdict["outcome"] == "assertion" and verdict["testSource"] == "assert data == [1, 2, 3]", (verdict, err)


def test_a_rehearsal_whose_own_side_fails_ends_instead_of_waiting_on_the_other():
    # the side in this process raises before a frame crosses: the forked side must read an end of file (it holds no
    # write end of its own), or the zygote or judge server would never start
    code = ("import sys; sys.path.insert(0, %r); import candidate\n"
            "def broken(*a, **k):\n    raise RuntimeError('broken side')\n"
            "candidate.Candidate.run = broken\n"
            "try:\n    candidate.rehearse('candidate')\nexcept RuntimeError as e:\n    print('raised', e)\n" % SCRIPTS)
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "raised broken side\n", (done.stdout, done.stderr)
