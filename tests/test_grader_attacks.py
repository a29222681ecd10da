"""Submissions that try to get marks without the answers: each must get none.

Every attack is the untouched student version of an assignment with a few lines appended to
its first task cell, as a student could write them.
"""

import copy
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from assignments import grade

ROOT = Path(__file__).resolve().parents[1]
STUDENT = ROOT / "assignments" / "student"

# name: (assignment, code appended to its first task cell, the check that must fail ('all' for every one))
ATTACKS = {
    "ipython-custom-exception-handler": (
        "01_gram_mercer", "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)", "all"),
    "ipython-input-transformer-blanks-the-checks": (
        "01_gram_mercer",
        "get_ipython().input_transformers_cleanup.append("
        "lambda lines: ['pass\\n'] if lines and lines[0].startswith('# Check') else lines)", "all"),
    "ipython-showtraceback-silenced": (
        "01_gram_mercer", "get_ipython().showtraceback = lambda *a, **k: None", "all"),
    "ksvm-through-dunder-import": (
        "01_gram_mercer",
        "gaussian_gram = lambda X, Y, gamma: getattr(__import__('ksvm.kernels', fromlist=['_']), "
        "'rbf' + '_kernel')(X, Y, gamma=gamma)", "Check 1"),
}


def attacked(assignment, code):
    nb = nbformat.read(STUDENT / f"{assignment}.ipynb", as_version=4)
    nb = copy.deepcopy(nb)
    task = next(c for c in nb.cells if c.cell_type == "code" and "NotImplementedError" in c.source)
    task.source += "\n" + code
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    def run(name):
        assignment, code, _ = ATTACKS[name]
        path = tmp_path_factory.mktemp(name) / f"{assignment}.ipynb"
        nbformat.write(attacked(assignment, code), path)
        return grade.grade_file(path)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(ATTACKS, pool.map(run, ATTACKS)))


@pytest.mark.parametrize("name", ATTACKS)
def test_attack_gets_no_marks(graded, name):
    result = graded[name]
    _, _, attacked_check = ATTACKS[name]
    failed = [check for check in result.checks if not check.passed]
    if attacked_check == "all":
        assert result.total == 3 and result.score == 0, grade.format_result(result)
    else:
        assert any(check.name.startswith(attacked_check) for check in failed), grade.format_result(result)
