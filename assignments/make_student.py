"""Generate the student version of every assignment from its solution notebook.

The solution notebooks in ``assignments/solutions/`` are the source of truth:
they hold the reference code between nbgrader's markers

    ### BEGIN SOLUTION
    ...
    ### END SOLUTION

and are stored with their outputs (``pytest`` runs them under nbval).  The
student version of each is the same notebook with every marked region replaced
by nbgrader's stub, indented like the BEGIN line,

    # YOUR CODE HERE
    raise NotImplementedError("<function>: write your code here")

(in a Markdown cell the region becomes ``YOUR ANSWER HERE``), and with every
output and execution count removed.  Everything else (the check cells, cell ids,
tags, metadata) is kept, so the result depends only on the solution notebook:
the same solution always gives the same bytes.

Usage::

    python assignments/make_student.py           # (re)write assignments/student/*.ipynb
    python assignments/make_student.py --check   # exit 1 if a stored student version is stale

A marker that is malformed (BEGIN without END, END without BEGIN, nested
BEGIN, a misspelt marker line) is an error that names the notebook, the cell
and the line.
"""

import argparse
import copy
import re
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"
STUDENT = HERE / "student"

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
CHECK_TAG = "check"
CODE_STUB = ["# YOUR CODE HERE", 'raise NotImplementedError("{name}write your code here")']
TEXT_STUB = ["YOUR ANSWER HERE"]

_CHECK_COMMENT = re.compile(r"#\s*check\s+\d", re.IGNORECASE)
_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(")


class MarkerError(ValueError):
    """A solution notebook whose markers cannot be turned into a student version."""


def _enclosing_function(lines, indent):
    """The name of the innermost ``def`` above the marker whose body holds it, or None."""
    for line in reversed(lines):
        match = _DEF.match(line)
        if match and len(match.group(1)) < len(indent):
            return match.group(2)
    return None


def clear_solutions(source, cell_type="code", where="cell"):
    """Replace every marked region of one cell's source by the stub.

    Parameters
    ----------
    source : str
        The cell's source.
    cell_type : {'code', 'markdown'}
    where : str
        How to name the cell in an error message.

    Returns
    -------
    new_source : str
    n_regions : int
        The number of regions replaced.

    Raises
    ------
    MarkerError
        On a marker line that is not exactly ``### BEGIN SOLUTION`` or
        ``### END SOLUTION`` (leading and trailing spaces aside), an END without
        a BEGIN, a BEGIN inside a region, or a BEGIN without an END.
    """
    lines = source.split("\n")
    out = []
    begin_line = None
    n_regions = 0
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if "BEGIN SOLUTION" in text.upper():
            if text != BEGIN:
                raise MarkerError(
                    f"{where}, line {number}: malformed marker {text!r}; write exactly {BEGIN!r} "
                    "on a line of its own"
                )
            if begin_line is not None:
                raise MarkerError(
                    f"{where}, line {number}: {BEGIN!r} inside the region opened on line "
                    f"{begin_line}; close it with {END!r} first"
                )
            begin_line = number
            n_regions += 1
            indent = line[: len(line) - len(line.lstrip())]
            if cell_type == "code":
                name = _enclosing_function(out, indent)
                stub = [s.format(name=f"{name}: " if name else "") for s in CODE_STUB]
            else:
                stub = TEXT_STUB
            out.extend(indent + s for s in stub)
        elif "END SOLUTION" in text.upper():
            if text != END:
                raise MarkerError(
                    f"{where}, line {number}: malformed marker {text!r}; write exactly {END!r} on "
                    "a line of its own"
                )
            if begin_line is None:
                raise MarkerError(f"{where}, line {number}: {END!r} without a {BEGIN!r} before it")
            begin_line = None
        elif begin_line is None:
            out.append(line)
    if begin_line is not None:
        raise MarkerError(f"{where}, line {begin_line}: {BEGIN!r} without a matching {END!r}")
    return "\n".join(out), n_regions


def is_check_cell(cell):
    """A code cell tagged ``check``, or whose first line starts with ``# Check <number>``
    (grade.py uses this one)."""
    if cell.cell_type != "code":
        return False
    if CHECK_TAG in cell.get("metadata", {}).get("tags", []):
        return True
    return _CHECK_COMMENT.match(cell.source.lstrip()) is not None


def student_notebook(solution, name="notebook"):
    """The student version of a solution notebook (a new notebook; the input is not changed).

    Raises
    ------
    MarkerError
        On malformed markers, on a marker inside a check cell (checks must stay
        visible), or on a notebook without any marked region or check cell.
    """
    nb = copy.deepcopy(solution)
    n_regions = 0
    for index, cell in enumerate(nb.cells):
        where = f"{name}: cell {index} (id {cell.get('id', '?')})"
        if cell.cell_type in ("code", "markdown"):
            source, found = clear_solutions(cell.source, cell.cell_type, where)
            if found and is_check_cell(cell):
                raise MarkerError(
                    f"{where} is a check cell with solution markers; checks must stay visible"
                )
            cell.source = source
            n_regions += found
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.get("metadata", {}).pop("execution", None)  # timings recorded by nbclient
    if n_regions == 0:
        raise MarkerError(
            f"{name}: no {BEGIN!r} region, so the student version would hold the solution"
        )
    if not any(is_check_cell(cell) for cell in nb.cells):
        raise MarkerError(
            f"{name}: no cell tagged {CHECK_TAG!r}, so nothing checks the student's work"
        )
    nbformat.validate(nb)
    return nb


def student_text(solution_path):
    """The exact text of the student version of the notebook at ``solution_path``."""
    path = Path(solution_path)
    solution = nbformat.read(path, as_version=4)
    return nbformat.writes(student_notebook(solution, path.name)) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a stored student version differs from the generated one",
    )
    parser.add_argument("--solutions", type=Path, default=SOLUTIONS, help="default: %(default)s")
    parser.add_argument("--student", type=Path, default=STUDENT, help="default: %(default)s")
    args = parser.parse_args(argv)

    solutions = sorted(args.solutions.glob("*.ipynb"))
    if not solutions:
        print(f"no solution notebooks in {args.solutions}", file=sys.stderr)
        return 2
    stale = []
    for path in solutions:
        try:
            text = student_text(path)
        except MarkerError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        target = args.student / path.name
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current == text:
            continue
        stale.append(target)
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            print(f"wrote {target}")
    orphans = sorted(set(args.student.glob("*.ipynb")) - {args.student / p.name for p in solutions})
    for path in orphans:
        print(f"{path} has no solution notebook in {args.solutions}; remove it", file=sys.stderr)
    if args.check:
        for target in stale:
            print(
                f"{target} is not what {Path(__file__).name} generates from its solution; "
                f"run python {Path(__file__).name} and commit the result",
                file=sys.stderr,
            )
        if stale or orphans:
            return 1
        print(f"{len(solutions)} student notebooks are up to date")
    elif not stale:
        print(f"{len(solutions)} student notebooks already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
