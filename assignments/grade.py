"""Grade submitted assignment notebooks by running them and reading their check cells.

Usage::

    python assignments/grade.py submission.ipynb [more.ipynb ...]
        [--timeout SECONDS] [--reference SOLUTION.ipynb | --own-checks] [--jobs N] [--json FILE]

Each submission is executed from top to bottom by nbclient in a fresh kernel
whose working directory is a new temporary directory; the submission file
itself is read once and never written.  Execution goes on after an error, so
every check cell runs.  A check cell is a code cell tagged ``check`` (or whose
first line starts with ``# Check <number>``); it passes if it raises nothing.  The
score of a notebook is the number of check cells that pass out of the number
of check cells.

The check cells that count are those of the reference notebook: the solution
in ``assignments/solutions/`` named by the submission's notebook metadata
``ksvm_assignment`` (or, failing that, the solution with the submission's file
name).  A check cell that the student edited is run in its original form, and
one that was deleted is put back; the report says so.  ``--own-checks`` grades
with the submission's own check cells instead.

Every check draws fresh random data, so an answer hard-coded for one run fails
the next.  A submission is arbitrary code: grade it in a container or an
account of its own.
"""

import argparse
import copy
import json
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"
METADATA_KEY = "ksvm_assignment"

# The generator and the grader must agree on what a check cell is: one definition.
sys.path.insert(0, str(HERE))
from make_student import is_check_cell


def check_name(cell):
    """The first line of a check cell without its ``#``: 'Check 1: ...'."""
    first = cell.source.strip().split("\n", 1)[0]
    return first.lstrip("#").strip() or f"cell {cell.get('id', '?')}"


@dataclass
class CheckResult:
    name: str
    passed: bool
    error: str = ""  # "AssertionError: K is not symmetric", or why the cell did not run


@dataclass
class GradeResult:
    path: str
    assignment: str
    checks: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def score(self):
        return sum(check.passed for check in self.checks)

    @property
    def total(self):
        return len(self.checks)

    def as_dict(self):
        return {**asdict(self), "score": self.score, "total": self.total}


def find_reference(nb, path=None):
    """The solution notebook whose checks grade ``nb``, or None."""
    name = nb.metadata.get(METADATA_KEY)
    candidates = []
    if isinstance(name, str):
        candidates.append(SOLUTIONS / f"{name}.ipynb")
    if path is not None:
        candidates.append(SOLUTIONS / Path(path).name)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def with_reference_checks(submission, reference):
    """A copy of ``submission`` whose check cells are those of ``reference``.

    Returns the notebook to run, the indices of its check cells and notes on
    what was restored.
    """
    nb = copy.deepcopy(submission)
    notes = []
    ref_cells = reference.cells
    ref_checks = [cell for cell in ref_cells if is_check_cell(cell)]
    by_id = {cell.get("id"): i for i, cell in enumerate(nb.cells) if cell.get("id")}
    by_name = {check_name(cell): i for i, cell in enumerate(nb.cells) if is_check_cell(cell)}
    placed = []  # the reference checks as placed in the notebook to run
    for ref in ref_checks:
        index = by_id.get(ref.get("id"))
        if index is None or nb.cells[index].cell_type != "code":
            index = by_name.get(check_name(ref))
        original = copy.deepcopy(ref)
        original.outputs, original.execution_count = [], None
        if index is None:
            # Put it back after the nearest earlier reference cell that the submission has.
            position = len(nb.cells)
            ref_index = next(i for i, cell in enumerate(ref_cells) if cell is ref)
            for earlier in reversed(ref_cells[:ref_index]):
                if earlier.get("id") in by_id:
                    position = by_id[earlier.get("id")] + 1
                    break
            nb.cells.insert(position, original)
            by_id = {cell.get("id"): i for i, cell in enumerate(nb.cells) if cell.get("id")}
            notes.append(f"'{check_name(ref)}' was missing from the submission: run as in the original")
        else:
            if nb.cells[index].source != ref.source:
                notes.append(f"'{check_name(ref)}' was edited in the submission: run as in the original")
            nb.cells[index] = original
            by_id = {cell.get("id"): i for i, cell in enumerate(nb.cells) if cell.get("id")}
        placed.append(original)
    originals = {id(cell) for cell in placed}
    for cell in nb.cells:
        if is_check_cell(cell) and id(cell) not in originals:
            notes.append(f"'{check_name(cell)}' is not a check of the assignment: run, not scored")
    indices = [i for i, cell in enumerate(nb.cells) if id(cell) in originals]
    return nb, indices, notes


def grade_notebook(nb, reference=None, timeout=60, kernel_name=None, path=""):
    """Execute ``nb`` (a NotebookNode, left unchanged) and grade its check cells.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The submission.
    reference : nbformat.NotebookNode or None
        The notebook whose check cells count; None grades with the
        submission's own check cells.
    timeout : float
        Seconds allowed to each cell; a cell that takes longer is interrupted
        and fails.
    kernel_name : str or None
        None means the notebook's kernelspec, or ``python3``.
    path : str
        The name to report.

    Returns
    -------
    result : GradeResult
    """
    assignment = str(nb.metadata.get(METADATA_KEY, ""))
    if reference is None:
        run = copy.deepcopy(nb)
        indices = [i for i, cell in enumerate(run.cells) if is_check_cell(cell)]
        notes = []
    else:
        run, indices, notes = with_reference_checks(nb, reference)
        assignment = str(reference.metadata.get(METADATA_KEY, assignment))
    for cell in run.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    if kernel_name is None:
        kernel_name = run.metadata.get("kernelspec", {}).get("name", "python3")
    aborted = ""
    with tempfile.TemporaryDirectory(prefix="ksvm-grade-") as workdir:
        client = NotebookClient(
            run,
            timeout=timeout,
            kernel_name=kernel_name,
            allow_errors=True,
            interrupt_on_timeout=True,
            record_timing=False,
            resources={"metadata": {"path": workdir}},
        )
        try:
            client.execute()
        except Exception as exc:  # the kernel died, could not start, or a cell hung past the interrupt
            aborted = f"execution stopped: {type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
            notes.append(aborted)
    result = GradeResult(path=str(path), assignment=assignment, notes=notes)
    if not indices:
        result.notes.append("no check cells found")
    for i, cell in enumerate(run.cells):  # errors outside the checks explain failed checks
        if i in indices or cell.cell_type != "code":
            continue
        for out in cell.outputs:
            if out.get("output_type") == "error":
                why = f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"
                if out.get("ename") == "KeyboardInterrupt":
                    why = f"interrupted after the timeout of {timeout:g} s"
                result.notes.append(f"cell {i} (not a check, id {cell.get('id', '?')}) failed: {why}")
    for i in indices:
        cell = run.cells[i]
        errors = [out for out in cell.outputs if out.get("output_type") == "error"]
        if errors:
            error = f"{errors[0].get('ename', 'Error')}: {errors[0].get('evalue', '')}"
            result.checks.append(CheckResult(check_name(cell), False, error))
        elif cell.execution_count is None:
            result.checks.append(CheckResult(check_name(cell), False, aborted or "the cell did not run"))
        else:
            result.checks.append(CheckResult(check_name(cell), True))
    return result


def grade_file(path, reference="auto", timeout=60, kernel_name=None):
    """Read the submission at ``path`` (never written) and grade it.

    ``reference`` is 'auto' (the solution named by the notebook's metadata or
    file name; the submission's own checks if there is none), None (the
    submission's own checks) or the path of a reference notebook.
    """
    nb = nbformat.read(path, as_version=4)
    notes = []
    if reference == "auto":
        found = find_reference(nb, path)
        if found is None:
            notes.append("no solution notebook found for this submission: graded with its own check cells")
        reference = found
    ref_nb = nbformat.read(reference, as_version=4) if reference is not None else None
    result = grade_notebook(nb, ref_nb, timeout=timeout, kernel_name=kernel_name, path=str(path))
    result.notes[:0] = notes
    return result


def format_result(result):
    lines = [f"{result.path}  [{result.assignment or 'unknown assignment'}]"]
    for note in result.notes:
        lines.append(f"  note  {note}")
    for check in result.checks:
        lines.append(f"  {'PASS' if check.passed else 'FAIL'}  {check.name}")
        if not check.passed:
            lines.append(f"        {check.error}")
    lines.append(f"  score: {result.score}/{result.total}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="+", type=Path, help="notebooks to grade")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per cell (default: %(default)s)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--reference", type=Path, help="the notebook whose check cells count")
    group.add_argument("--own-checks", action="store_true", help="grade with the submission's own check cells")
    parser.add_argument("--kernel", help="kernel name (default: the notebook's, or python3)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks executed at once (default: 1)")
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    args = parser.parse_args(argv)

    reference = None if args.own_checks else (args.reference or "auto")
    for path in args.submissions:
        if not path.is_file():
            parser.error(f"{path}: no such file")

    def grade(path):
        return grade_file(path, reference=reference, timeout=args.timeout, kernel_name=args.kernel)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(grade, args.submissions))
    for result in results:
        print(format_result(result))
    if len(results) > 1:
        print(f"total: {sum(r.score for r in results)}/{sum(r.total for r in results)} checks passed "
              f"in {len(results)} notebooks")
    if args.json:
        args.json.write_text(json.dumps([r.as_dict() for r in results], indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
