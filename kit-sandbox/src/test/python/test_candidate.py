"""candidate.py: runs the code as the program's __main__ and answers the judge's calls."""

import candidate as candidate_module
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
