"""Grade submitted assignment notebooks: run each one in a sandbox, decide every check outside it.

Usage::

    python assignments/grade.py submission.ipynb [more.ipynb ...] [--assignment NAME]
        [--timeout SECONDS] [--time-limit SECONDS] [--memory MB] [--max-output MB]
        [--seed N] [--jobs N] [--json FILE]

For each submission the grader

1. finds the assignment: ``--assignment``, else the notebook metadata ``ksvm_assignment``, else
   the file name;
2. starts a worker (``assignments/sandbox.py``): a process of its own, in an empty working
   directory, under limits of time, memory and output, without ``ksvm``;
3. runs the submission's code cells there, from top to bottom, as Jupyter's Restart & Run All
   does, except the assignment's check cells (recognised by cell id or first line): in the place
   of each, the grader runs its own check (step 4), which so sees what the cells above it made
   and nothing that a later cell changes.  A check cell that was edited is noted; one that was
   deleted is noted, and its check runs after the last cell.  A cell that fails or
   outlasts ``--timeout`` (it is interrupted) is noted, and the run goes on;
4. runs each check of the assignment (``assignments/checks``), where step 3 puts it, here in the
   grader's process: the check draws fresh inputs, the worker calls the student's function on
   them and sends back what it returned as plain data, and the check compares that with ksvm's
   answer.  The score is the number of checks passed out of the number of checks.

Nothing that the submission's process says decides a pass.  A submission that breaks a rule of
the sandbox (starting a process, writing outside its directory, reading ksvm, ...) or outlasts
a limit is stopped, and every one of its checks fails, with the reason.  The submission file is
read once and never written.
"""

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
import numpy as np

import ksvm
from assignments.checks import MODULES, Outcome, SubmissionError, for_assignment
from assignments.make_student import is_check_cell
from assignments.sandbox import Limits, Stopped, Worker
from assignments.wire import WireError, read_exception, short_text

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"
METADATA_KEY = "ksvm_assignment"
MAX_NOTEBOOK = 20 << 20  # bytes: a larger file is not graded
# What a submission may not read: the reference it is compared with, and the reference solutions.
HIDDEN = (Path(ksvm.__file__).resolve().parent, SOLUTIONS)


def check_name(cell):
    """The first line of a check cell without its ``#``: 'Check 1: ...'."""
    first = cell.source.strip().split("\n", 1)[0]
    return first.lstrip("#").strip() or f"cell {cell.get('id', '?')}"


@dataclass
class CheckResult:
    name: str
    passed: bool
    error: str = ""  # "AssertionError: K is not symmetric", or why the check could not run


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


def assignment_of(nb, path=None):
    """The assignment's name from the notebook metadata, else from the file name; or None."""
    name = nb.metadata.get(METADATA_KEY)
    if isinstance(name, str) and name in MODULES:
        return name
    if path is not None and Path(path).stem in MODULES:
        return Path(path).stem
    return None


def check_cells(nb, reference):
    """Where the check cells of ``reference`` stand in ``nb``, and notes.

    A check cell is matched by its id, else by its first line.  The grader does not run these
    cells: it runs its own check in the place of each.  It notes the ones that were edited, those
    that were deleted (their checks run after the last cell), and that a cell which looks like a
    check but is none runs as an ordinary cell.

    Returns
    -------
    places : dict
        The name of each check cell of ``reference`` ('Check 1: ...') and the index of the cell
        of ``nb`` that stands for it, or None.
    notes : list of str
    """
    notes, places = [], {}
    by_id = {cell.get("id"): i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and cell.get("id")}
    by_name = {check_name(cell): i for i, cell in enumerate(nb.cells) if is_check_cell(cell)}
    for ref in (cell for cell in reference.cells if is_check_cell(cell)):
        index = places[check_name(ref)] = by_id.get(ref.get("id"), by_name.get(check_name(ref)))
        if index is None:
            notes.append(f"'{check_name(ref)}' was missing from the submission; "
                         "the grader ran its own check after the last cell")
        elif nb.cells[index].source != ref.source:
            notes.append(f"'{check_name(ref)}' was edited in the submission; the grader ran its own check there")
    for i, cell in enumerate(nb.cells):
        if is_check_cell(cell) and i not in places.values():
            notes.append(f"'{check_name(cell)}' is not a check of the assignment: run as an ordinary cell")
    return places, notes


def run_check(check, worker, rng, timeout):
    """One check, its calls made by ``worker``, decided here."""

    def invoke(request):
        answer = worker.call(check.function, request.args, request.kwargs, memory=request.memory,
                             what=f"{check.name.split(':')[0]}, a call of {check.function}")
        if answer.interrupted:
            return Outcome(check.function, raised=("TimeoutError",),
                           message=f"{check.function} was interrupted after the timeout of {timeout:g} s")
        return Outcome.from_reply(check.function, answer.reply)

    try:
        check.run(invoke, rng)
    except AssertionError as exc:
        return CheckResult(check.name, False, short_text(f"AssertionError: {exc}"))
    except SubmissionError as exc:
        return CheckResult(check.name, False, short_text(f"{exc.name}: {exc.message}"))
    except (Stopped, KeyboardInterrupt):
        raise
    except Exception as exc:  # the result had a form the check could not use (an array of the wrong shape, ...)
        return CheckResult(check.name, False, short_text(f"{type(exc).__name__}: {exc}"))
    return CheckResult(check.name, True)


def grade_notebook(nb, assignment=None, limits=Limits(), path="", rng=None, isolate=None):
    """Run ``nb`` (a NotebookNode, left unchanged) in a sandbox and grade it.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The submission.
    assignment : str or None
        The assignment's name; None means `assignment_of` the notebook.
    limits : sandbox.Limits
        Time, memory and output allowed to the submission.
    path : str
        The name to report.
    rng : numpy.random.Generator or None
        Draws the checks' inputs; None means fresh ones.
    isolate : bool or None
        Run the worker under a user id of its own; None means whenever possible (root, setpriv).

    Returns
    -------
    result : GradeResult
    """
    name = assignment or assignment_of(nb, path or None)
    module = for_assignment(name) if name else None
    result = GradeResult(path=str(path), assignment=name or "")
    if module is None:
        result.notes.append(f"unknown assignment {name!r}: name it with --assignment, one of {', '.join(MODULES)}")
        return result
    reference = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)
    places, result.notes = check_cells(nb, reference)
    due = {}  # the index of a check cell, or None for after the last cell: the checks that run there
    for k, check in enumerate(module.CHECKS):
        due.setdefault(places.get(check.name), []).append(k)
    rng = np.random.default_rng() if rng is None else rng
    stopped, worker, decided = [], Worker(limits, hide=HIDDEN, isolate=isolate), {}

    def run_checks(place):
        for k in due.pop(place, []):
            decided[k] = run_check(module.CHECKS[k], worker, rng, limits.timeout)

    try:
        worker.start()
        for index, cell in enumerate(nb.cells):
            if index in places.values():  # a check cell: the grader's checks run in its place, not its code
                run_checks(index)
                continue
            if cell.cell_type != "code":
                continue
            answer = worker.cell(cell.source, what=f"cell {index}")
            where = f"cell {index} (not a check, id {cell.get('id', '?')})"
            error = answer.reply.get("error") or answer.reply.get("raised")
            if answer.interrupted:
                result.notes.append(f"{where} was interrupted after the timeout of {limits.timeout:g} s")
            elif error is not None:
                try:
                    names, message = read_exception(error)
                    result.notes.append(f"{where} failed: {names[0]}: {message}")
                except WireError:
                    result.notes.append(f"{where} failed")
        run_checks(None)  # the checks whose cells are missing, after the last cell
        result.checks = [decided[k] for k in range(len(module.CHECKS))]
    except Stopped as exc:
        stopped.append(str(exc))
    finally:
        stopped += worker.close()
    if stopped:
        result.notes += [f"the submission was stopped: {reason}" for reason in stopped]
        result.checks = [CheckResult(check.name, False, f"not graded, the submission was stopped: {stopped[0]}")
                         for check in module.CHECKS]
    return result


def grade_file(path, assignment=None, limits=Limits(), rng=None, isolate=None):
    """Read the submission at ``path`` (never written) and grade it."""
    path = Path(path)
    if path.stat().st_size > MAX_NOTEBOOK:
        return GradeResult(str(path), assignment or "", notes=[f"not graded: larger than {MAX_NOTEBOOK >> 20} MB"])
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # not JSON, not a notebook
        return GradeResult(str(path), assignment or "", notes=[f"not graded: not a notebook ({type(exc).__name__})"])
    return grade_notebook(nb, assignment, limits=limits, path=str(path), rng=rng, isolate=isolate)


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
    parser.add_argument("--assignment", choices=sorted(MODULES),
                        help="the assignment (default: from each notebook's metadata or file name)")
    defaults = Limits()
    parser.add_argument("--timeout", type=float, default=defaults.timeout,
                        help="seconds for one cell or one call (default: %(default)s)")
    parser.add_argument("--time-limit", type=float, default=defaults.time,
                        help="seconds for a whole submission (default: %(default)s)")
    parser.add_argument("--memory", type=int, default=defaults.memory,
                        help="MB of address space for a submission (default: %(default)s)")
    parser.add_argument("--max-output", type=float, default=defaults.output,
                        help="MB that a submission may print (default: %(default)s)")
    parser.add_argument("--seed", type=int, help="draw the checks' inputs from this seed (default: fresh)")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded at once (default: 1)")
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    args = parser.parse_args(argv)

    for path in args.submissions:
        if not path.is_file():
            parser.error(f"{path}: no such file")
    limits = Limits(timeout=args.timeout, time=args.time_limit, memory=args.memory, output=args.max_output)

    def grade(path):
        rng = None if args.seed is None else np.random.default_rng(args.seed)
        return grade_file(path, args.assignment, limits=limits, rng=rng)

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
