"""The course assignments: generated student versions, their checks and the grader.

Every grading run of this module happens once, in one module-scoped fixture that grades two
submissions at a time: each student version (all checks must fail), each solution (all must
pass), one student version whose checks were tampered with and which has a cell that hangs
(the grader must run its own checks, and interrupt the hang), and the first three deliberately
wrong solutions of each assignment in `MUTATIONS` (the check must fail with the diagnostic for
the mistake).  Every wrong solution also runs through the notebooks' side of the checks, in
this process.
"""

import copy
import csv
import json
import re
import shutil
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import numpy as np
import pytest

from assignments import grade, make_student
from assignments.checks import MODULES, for_assignment
from assignments.sandbox import Limits
from tests import mutations

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "assignments"
SOLUTIONS = sorted((ASSIGNMENTS / "solutions").glob("*.ipynb"))
NAMES = [path.stem for path in SOLUTIONS]
LIMITS = Limits(timeout=60)  # seconds per cell or call; a solution runs in a few seconds
HANG_LIMITS = Limits(timeout=3)  # for the notebook with a cell that hangs

# A wrong implementation is the solution with `old` replaced by `new` in one task cell; the check
# `check` must fail with an error that contains `message`.  Each assignment's list is in
# tests/mutations/<module>.py, named like its module of checks.
MUTATIONS = {name: mutations.for_assignment(name) for name in NAMES}
# The first three of each list are also graded through the grader's command line; every one runs
# through the notebook's side of its check, which is the same code on the same kind of data (a
# grading costs a worker's start, about a second of CPU).
BY_THE_GRADER = 3


def _is_task(cell):
    return cell.cell_type == "code" and make_student.BEGIN in cell.source


def mutant(solution, cell_id, old, new):
    """The solution with ``old`` replaced by ``new`` in its task cell ``cell_id``."""
    nb = copy.deepcopy(solution)
    cell = next(c for c in nb.cells if c.get("id") == cell_id)
    assert old in cell.source, f"{old!r} is not in the solution's cell {cell_id}"
    cell.source = cell.source.replace(old, new)
    return nb


def tampered_student(student):
    """A student version whose first check now only prints success, whose second is deleted,
    and which has a cell that hangs."""
    nb = copy.deepcopy(student)
    first, second = [c for c in nb.cells if grade.is_check_cell(c)][:2]
    first.source = "# Check 1: trust me\nprint('check 1 passed')"
    nb.cells.remove(second)
    nb.cells.insert(
        nb.cells.index(first), nbformat.v4.new_code_cell("import time\ntime.sleep(600)", id="hang")
    )
    return nb


def _without_exploration(nb, keep):
    """``nb`` without the solution in its task cells that define no function (the capstone's
    cross-validation, which takes seconds and which no check uses), other than ``keep``; their
    imports stay.  A wrong solution is graded for its functions."""
    for cell in nb.cells:
        defines = re.search(r"^def ", cell.source, re.MULTILINE)
        if _is_task(cell) and not defines and cell.get("id") != keep:
            head, _, rest = cell.source.partition(make_student.BEGIN)
            cell.source = head + "pass" + rest.partition(make_student.END)[2]
    return nb


def _submission_file(key):
    """The file name of the graded submission ``key``: 'mutant-04_rho1-2.ipynb'."""
    return "-".join(str(part) for part in key) + ".ipynb"


def _result(record):
    """A GradeResult from its record in the grader's JSON file."""
    checks = [grade.CheckResult(c["name"], c["passed"], c["error"]) for c in record["checks"]]
    fields = {k: v for k, v in record.items() if k not in ("checks", "score", "total")}
    return grade.GradeResult(**fields, checks=checks)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Every grading run of this module, as one batch of the grader's command line, two at a
    time, with its JSON results, gradebook and feedback files: each student version (all checks
    must fail), each solution (all must pass), and every deliberately wrong solution in
    `MUTATIONS`; and, beside it, one student version whose checks were tampered with and which
    has a cell that hangs (the grader must run its own checks, and interrupt the hang).

    Returns ``(results, files)``: {(kind, name[, k]): GradeResult}, and the paths of the
    submissions, the JSON file, the CSV gradebook and the feedback directory."""
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in ASSIGNMENTS.glob("*/*.ipynb")}
    folder = tmp_path_factory.mktemp("batch")
    submissions = {}
    for path in SOLUTIONS:
        name = path.stem
        solution = nbformat.read(path, as_version=4)
        submissions["student", name] = nbformat.read(ASSIGNMENTS / "student" / path.name, 4)
        submissions["solution", name] = solution
        for k, (cell_id, old, new, _, _) in enumerate(MUTATIONS[name][:BY_THE_GRADER]):
            submissions["mutant", name, k] = _without_exploration(
                mutant(solution, cell_id, old, new), cell_id
            )
    for key, nb in submissions.items():
        nbformat.write(nb, folder / _submission_file(key))
    first = SOLUTIONS[0]
    tampered = tampered_student(nbformat.read(ASSIGNMENTS / "student" / first.name, as_version=4))
    files = {
        "submissions": [folder / _submission_file(key) for key in submissions],
        "json": folder / "grades.json",
        "csv": folder / "grades.csv",
        "feedback": folder / "feedback",
    }
    with ThreadPoolExecutor(max_workers=1) as pool:
        # Beside the batch, so that its wait for the timeout overlaps it.
        hang = pool.submit(grade.grade_notebook, tampered, limits=HANG_LIMITS)
        options = ["--jobs", "2", "--timeout", str(LIMITS.timeout), "--json", str(files["json"])]
        options += ["--csv", str(files["csv"]), "--feedback", str(files["feedback"])]
        code = grade.main([*map(str, files["submissions"]), *options])
        results = {("tampered", first.stem): hang.result()}
    assert code == 0
    records = json.loads(files["json"].read_text(encoding="utf-8"))
    results.update({key: _result(r) for key, r in zip(submissions, records, strict=True)})
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in ASSIGNMENTS.glob("*/*.ipynb")}
    assert after == before, "grading wrote into a notebook"
    return results, files


@pytest.fixture(scope="module")
def graded(batch):
    """{(kind, name[, k]): GradeResult} of every grading run of this module."""
    return batch[0]


def test_there_are_ten_assignments_each_with_its_checks_and_mistakes():
    assert sorted(MODULES) == NAMES and len(NAMES) == 10
    assert sorted(p.name for p in (ASSIGNMENTS / "student").glob("*.ipynb")) == [
        p.name for p in SOLUTIONS
    ]
    for name in NAMES:
        # At least three common mistakes, each recognised and named by its own diagnostic.
        messages = {message for *_, message in MUTATIONS[name]}
        assert len(messages) >= 3, f"{name}: {len(messages)} named mistakes"


# The gradebook and the feedback of the batch, read back.


def test_the_gradebook_has_a_row_a_submission_and_a_column_a_check(batch):
    _, files = batch
    records = json.loads(files["json"].read_text(encoding="utf-8"))
    with open(files["csv"], newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, list(reader)
    width = max(r["total"] for r in records)
    assert header == ["submission", "file", "assignment", "score", "total"] + [
        f"Check {k}" for k in range(1, width + 1)
    ] + ["notes"]  # a batch of several assignments: the checks by number
    assert len(rows) == len(records) == len(files["submissions"]) >= 40
    for row, record, path in zip(rows, records, files["submissions"], strict=True):
        assert row["submission"] == path.stem and row["file"] == path.name
        assert row["assignment"] == record["assignment"]
        assert (int(row["score"]), int(row["total"])) == (record["score"], record["total"])
        marks = [row[f"Check {k}"] for k in range(1, width + 1)]
        expected = [str(int(c["passed"])) for c in record["checks"]]
        assert marks == expected + [""] * (width - len(expected)), (path.name, marks)
        assert int(row["notes"]) == len(record["notes"])


def test_each_submission_gets_a_feedback_file_with_every_diagnostic(batch):
    _, files = batch
    records = json.loads(files["json"].read_text(encoding="utf-8"))
    written = sorted(p.name for p in files["feedback"].iterdir())
    assert written == sorted(f"{p.stem}.md" for p in files["submissions"])
    for record, path in zip(records, files["submissions"], strict=True):
        text = (files["feedback"] / f"{path.stem}.md").read_text(encoding="utf-8")
        assert f"**{record['score']} of {record['total']} checks passed.**" in text
        assert text.count("## Passed: ") == record["score"]
        assert text.count("## Failed: ") == record["total"] - record["score"]
        for check in record["checks"]:
            if not check["passed"]:
                assert f"```text\n{check['error']}\n```" in text, (path.name, check["name"])
        for answer in record["answers"]:  # collected, not marked: the capstone's justification
            assert f"`{answer['cell']}` (read, not marked)" in text
            assert f"```text\n{answer['text']}\n```" in text
    # The capstone's justification reaches the feedback; the student version's is the stub.
    answers = {
        path.stem: record["answers"]
        for record, path in zip(records, files["submissions"], strict=True)
    }
    assert answers["student-10_capstone"] == [{"cell": "justification", "text": "YOUR ANSWER HERE"}]
    (solution,) = answers["solution-10_capstone"]
    assert solution["cell"] == "justification" and len(solution["text"].split()) >= 50


# (i) The stored student versions are what the generator makes now.


@pytest.mark.parametrize("name", NAMES)
def test_student_version_is_generated_from_the_solution(name):
    solution = ASSIGNMENTS / "solutions" / f"{name}.ipynb"
    stored = (ASSIGNMENTS / "student" / f"{name}.ipynb").read_text(encoding="utf-8")
    assert stored == make_student.student_text(solution), (
        f"assignments/student/{name}.ipynb is stale: run python assignments/make_student.py"
    )


@pytest.mark.parametrize("name", NAMES)
def test_student_version_has_no_solution_and_no_outputs(name):
    solution = nbformat.read(ASSIGNMENTS / "solutions" / f"{name}.ipynb", as_version=4)
    student = nbformat.read(ASSIGNMENTS / "student" / f"{name}.ipynb", as_version=4)
    assert [c.id for c in student.cells] == [c.id for c in solution.cells]
    for sol, stu in zip(solution.cells, student.cells, strict=True):
        if stu.cell_type == "code":
            assert stu.outputs == [] and stu.execution_count is None
        if _is_task(sol):
            assert "SOLUTION" not in stu.source and "raise NotImplementedError(" in stu.source
            body = sol.source.split(make_student.BEGIN)[1].split(make_student.END)[0]
            assert not any(
                line.strip() and line in stu.source.split("\n") for line in body.split("\n")[1:-1]
            )
        elif sol.cell_type == "markdown" and make_student.BEGIN in sol.source:  # a written answer
            assert "SOLUTION" not in stu.source and "YOUR ANSWER HERE" in stu.source
            assert stu.source == make_student.clear_solutions(sol.source, "markdown")[0]
        else:
            assert stu.source == sol.source
    assert any(c.outputs for c in solution.cells if c.cell_type == "code"), (
        "the solution is stored without outputs"
    )


def test_check_mode_passes_now_and_fails_on_drift(tmp_path, capsys):
    assert make_student.main(["--check"]) == 0
    solutions, student = tmp_path / "solutions", tmp_path / "student"
    solutions.mkdir()
    student.mkdir()
    for path in SOLUTIONS[:2]:
        (solutions / path.name).write_bytes(path.read_bytes())
    assert make_student.main(["--solutions", str(solutions), "--student", str(student)]) == 0
    assert (
        make_student.main(["--check", "--solutions", str(solutions), "--student", str(student)])
        == 0
    )
    drifted = student / SOLUTIONS[0].name
    drifted.write_text(
        drifted.read_text(encoding="utf-8").replace("YOUR CODE HERE", "your code here"),
        encoding="utf-8",
    )
    capsys.readouterr()
    assert (
        make_student.main(["--check", "--solutions", str(solutions), "--student", str(student)])
        == 1
    )
    assert f"{drifted} is not what make_student.py generates" in capsys.readouterr().err
    # Regenerating restores it, byte for byte.
    assert make_student.main(["--solutions", str(solutions), "--student", str(student)]) == 0
    assert drifted.read_bytes() == (ASSIGNMENTS / "student" / SOLUTIONS[0].name).read_bytes()


# (ii) Every check of a student version fails; (iii) every check of a solution passes.


@pytest.mark.parametrize("name", NAMES)
def test_student_version_fails_every_check(graded, name):
    result = graded["student", name]
    assert result.total >= 3 and result.score == 0, grade.format_result(result)
    for check in result.checks:
        assert check.error.startswith(("NotImplementedError", "AssertionError")), check.error


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_every_check(graded, name):
    result = graded["solution", name]
    assert result.total >= 3 and result.score == result.total, grade.format_result(result)
    assert result.assignment == name and result.notes == []


def test_grader_runs_its_own_checks_and_survives_a_hang(graded):
    result = graded["tampered", NAMES[0]]
    assert result.total == 3 and result.score == 0, grade.format_result(result)
    assert [c.name.split(":")[0] for c in result.checks] == ["Check 1", "Check 2", "Check 3"]
    assert any(
        "'Check 1: gaussian_gram" in note and "edited in the submission" in note
        for note in result.notes
    )
    assert any(
        "'Check 2: polynomial_gram" in note and "missing from the submission" in note
        for note in result.notes
    )
    assert any(
        f"id hang) was interrupted after the timeout of {HANG_LIMITS.timeout:g} s" in note
        for note in result.notes
    ), result.notes


# (iv) A wrong implementation fails the relevant check, with the diagnostic for its mistake,
# in the grader and in the notebook.


@pytest.mark.parametrize("name", NAMES)
def test_wrong_implementations_are_diagnosed_by_the_grader(graded, name):
    for k, (cell_id, _, new, check_id, message) in enumerate(MUTATIONS[name][:BY_THE_GRADER]):
        result = graded["mutant", name, k]
        number = int(check_id.split("-")[1])
        check = result.checks[number - 1]
        assert not check.passed, f"{name}: {new!r} in {cell_id} passed {check.name}"
        assert check.error.startswith("AssertionError") and message in check.error, (
            f"{name}: {new!r} in {cell_id} should fail {check_id} with {message!r}, got "
            f"{check.error!r}"
        )


def _functions(nb, namespace=None, redefine=None):
    """The functions that the code cells of ``nb`` other than its checks define, run here, in
    ``namespace``.  With ``redefine`` (a cell id), only that cell and the task cells that define
    functions run (a function's globals are the namespace it was defined in)."""
    namespace = {} if namespace is None else namespace
    for cell in nb.cells:
        code = cell.cell_type == "code" and not grade.is_check_cell(cell)
        defines = _is_task(cell) and re.search(r"^def ", cell.source, re.MULTILINE)
        if code and (redefine is None or defines or cell.get("id") == redefine):
            exec(compile(cell.source, f"<cell {cell.get('id')}>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("name", NAMES)
def test_wrong_implementations_are_diagnosed_in_the_notebook(name, capsys):
    solution = nbformat.read(ASSIGNMENTS / "solutions" / f"{name}.ipynb", as_version=4)
    checks = for_assignment(name).CHECKS
    cells = _functions(solution)  # every cell once (the capstone's tuning takes seconds)
    capsys.readouterr()
    for cell_id, old, new, check_id, message in MUTATIONS[name]:
        check = checks[int(check_id.split("-")[1]) - 1]
        wrong = _functions(mutant(solution, cell_id, old, new), dict(cells), redefine=cell_id)
        with pytest.raises(AssertionError, match=re.escape(message)):
            check(wrong[check.function])
    assert capsys.readouterr().out == "", "a check printed more than its success line"


@pytest.mark.parametrize("seed", [688, 1911])
def test_a_diagnosis_names_the_cause_where_the_symptom_also_shows(seed):
    """Formulas for labels in {0, 1} also stall where J is no lower than at the start, on these
    cases drawn by the check: the flipped labels, the cause, are named, not the steps."""
    name = "07_klr_newton"
    solution = nbformat.read(ASSIGNMENTS / "solutions" / f"{name}.ipynb", as_version=4)
    cell_id, old, new, check_id, message = next(
        m for m in MUTATIONS[name] if m[4].startswith("Formulas written for labels")
    )
    check = for_assignment(name).CHECKS[int(check_id.split("-")[1]) - 1]
    wrong = _functions(mutant(solution, cell_id, old, new))
    with pytest.raises(AssertionError, match=re.escape(message)):
        check(wrong[check.function], rng=np.random.default_rng(seed))


def test_check_cells_call_the_checks_of_their_assignment():
    """One definition: a check cell names its check and calls it on the student's function."""
    for name in NAMES:
        nb = nbformat.read(ASSIGNMENTS / "solutions" / f"{name}.ipynb", as_version=4)
        cells = [c for c in nb.cells if grade.is_check_cell(c)]
        module = for_assignment(name)
        assert name == module.ASSIGNMENT and [c.id for c in cells] == [
            f"check-{k.number}" for k in module.CHECKS
        ]
        for cell, check in zip(cells, module.CHECKS, strict=True):
            assert cell.source == (
                f"# {check.name}\nfrom {module.__name__} import check_{check.number}\n\n"
                f"check_{check.number}({check.function})"
            )


def test_a_hidden_call_of_ksvm_fails_the_check_in_the_notebook():
    from assignments.checks.gram_mercer import check_1

    def gaussian_gram(X, Y, gamma):
        kernels = __import__("importlib").import_module("ksvm" + ".kernels")
        return getattr(kernels, "rbf" + "_kernel")(X, Y, gamma=gamma)

    with pytest.raises(
        AssertionError, match=r"gaussian_gram calls ksvm\.kernels\.rbf_kernel from ksvm"
    ):
        check_1(gaussian_gram, rng=np.random.default_rng(0))


def test_a_call_of_a_forbidden_package_fails_the_check_in_the_notebook():
    # An assignment whose reference is scikit-learn's answer names that package in FORBIDDEN.
    from sklearn.svm import SVC

    from assignments.checks import call, local_invoke

    def intercept(K, y):
        return float(SVC(kernel="precomputed").fit(K, y).intercept_[0])

    X = np.random.default_rng(0).normal(size=(8, 2))
    invoke = local_invoke(intercept, "intercept", ("ksvm", "sklearn.svm"))
    with pytest.raises(AssertionError, match=r"intercept calls sklearn\.svm\..* from sklearn\.svm"):
        invoke(call(X @ X.T, np.r_[np.ones(4), -np.ones(4)]))
    # Without the package in the list, the same call is allowed.
    assert (
        local_invoke(intercept, "intercept")(call(X @ X.T, np.r_[np.ones(4), -np.ones(4)])).raised
        == ()
    )


# (v) Malformed markers are refused with a clear error.


@pytest.mark.parametrize(
    "source, match",
    [
        (
            "def f(x):\n    ### BEGIN SOLUTION\n    return x\n",
            "line 2: '### BEGIN SOLUTION' without a matching",
        ),
        ("def f(x):\n    return x\n    ### END SOLUTION\n", "line 3: '### END SOLUTION' without a"),
        (
            "### BEGIN SOLUTION\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n",
            "line 2: .* inside the region opened on line 1",
        ),
        (
            "def f(x):\n    ## BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n",
            "line 2: malformed marker '## BEGIN SOLUTION'",
        ),
        ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION here\n", "line 3: malformed marker"),
    ],
)
def test_malformed_markers_are_refused(source, match):
    with pytest.raises(make_student.MarkerError, match=match):
        make_student.clear_solutions(source, where="cell")


def test_stub_keeps_the_indentation_and_names_the_function():
    source = (
        "def f(x):\n    y = x\n    ### BEGIN SOLUTION\n    return y\n    ### END SOLUTION\n\nz = 1"
    )
    assert make_student.clear_solutions(source) == (
        "def f(x):\n    y = x\n    # YOUR CODE HERE\n"
        '    raise NotImplementedError("f: write your code here")\n\nz = 1',
        1,
    )
    assert make_student.clear_solutions("### BEGIN SOLUTION\nx\n### END SOLUTION", "markdown") == (
        "YOUR ANSWER HERE",
        1,
    )


def test_generator_names_the_notebook_and_cell_and_exits_2(tmp_path, capsys):
    nb = nbformat.read(SOLUTIONS[0], as_version=4)
    task = next(c for c in nb.cells if _is_task(c))
    task.source = task.source.replace(make_student.END, "")
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nbformat.write(nb, solutions / SOLUTIONS[0].name)
    code = make_student.main(
        ["--solutions", str(solutions), "--student", str(tmp_path / "student")]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert (
        f"{SOLUTIONS[0].name}: cell" in err
        and f"(id {task.id})" in err
        and "without a matching" in err
    )
    assert not (tmp_path / "student").exists()


def test_generator_refuses_a_notebook_without_solution_or_checks():
    nb = nbformat.read(SOLUTIONS[0], as_version=4)
    no_checks = copy.deepcopy(nb)
    no_checks.cells = [c for c in no_checks.cells if not grade.is_check_cell(c)]
    with pytest.raises(make_student.MarkerError, match="no cell tagged 'check'"):
        make_student.student_notebook(no_checks)
    no_solution = copy.deepcopy(nb)
    no_solution.cells = [c for c in no_solution.cells if not _is_task(c)]
    with pytest.raises(make_student.MarkerError, match="no '### BEGIN SOLUTION' region"):
        make_student.student_notebook(no_solution)


@pytest.mark.slow
def test_the_wheel_for_students_holds_the_checks_and_no_solution(tmp_path):
    # The instructors' page hands out a wheel instead of a clone, which holds the solutions.
    source = tmp_path / "source"  # a copy, since building writes build/ beside pyproject.toml
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    for name in ("ksvm", "assignments"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            str(source),
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("ksvm-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "assignments/checks/gram_mercer.py" in names and "ksvm/kernels.py" in names
    modules = {path.relative_to(ROOT).as_posix() for path in (ROOT / "ksvm").rglob("*.py")}
    assert modules - set(names) == set()  # every module of ksvm, its subpackages' too
    assert not [n for n in names if n.endswith(".ipynb") or "solution" in n], names
