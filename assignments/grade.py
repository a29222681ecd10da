"""Grade submitted assignment notebooks: run each one in a sandbox, decide every check outside it.

Usage::

    python assignments/grade.py submission.ipynb [more.ipynb ...] [--assignment NAME]
        [--timeout SECONDS] [--time-limit SECONDS] [--memory MB] [--max-output MB]
        [--seed N] [--jobs N] [--json FILE] [--csv FILE] [--feedback DIR] [--id-field KEY]

For each submission the grader

1. finds the assignment: ``--assignment``, else the notebook metadata ``ksvm_assignment``, else
   the file name;
2. starts a worker (``assignments/sandbox.py``): a process of its own, in an empty working
   directory, under limits of time, memory and output, without ``ksvm``;
3. runs the submission's code cells there, from top to bottom, as Jupyter's Restart & Run All
   does, except the assignment's check cells (recognised by cell id or first line): in the place
   of each, the grader runs its own check (step 4), which so sees what the cells above it made
   and nothing that a later cell changes.  A check cell that was edited is noted; one that was
   deleted is noted, and its check runs after the last cell.  Shell commands (``!cmd``,
   ``%pip ...``, ``%%bash`` cells, ...) are not run: each is replaced by ``pass``, with a note,
   and the rest of its cell runs.  A cell that fails or outlasts ``--timeout`` (it is
   interrupted) is noted, and the run goes on;
4. runs each check of the assignment (``assignments/checks``), where step 3 puts it, here in the
   grader's process: the check draws fresh inputs, the worker calls the student's function on
   them and sends back what it returned as plain data, and the check compares that with ksvm's
   answer.  The score is the number of checks passed out of the number of checks;
5. collects the written answers (the Markdown cells where the solution has a marked answer, such
   as the capstone's justification) for the feedback, without marking them.

``--csv`` writes a gradebook (one row a submission, one column a check) and ``--feedback DIR``
one Markdown file a submission with every check's diagnostic (``assignments/gradebook.py``).  A
submission is identified there by its file name, or with ``--id-field KEY`` by that key of its
notebook's metadata (which the student writes: a clash is noted).

Nothing that the submission's process says decides a pass.  A submission that breaks a rule of
the sandbox (starting a process, writing outside its directory, reading ksvm, ...) or outlasts
a limit is stopped, and every one of its checks fails, with the reason.  The submission file is
read once and never written.  The terminal report shows every text that comes from the
submission (messages, cell ids, first lines) with its control and bidi characters escaped and
its lines after the first indented behind ``|``, so that it cannot pass for a line of the
grader's own; ``--json`` writes the texts as they are.
"""

import argparse
import ast
import json
import re
import sys
import unicodedata
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from importlib.machinery import PathFinder
from pathlib import Path

import nbformat
import numpy as np
from IPython.core.alias import default_aliases
from IPython.core.inputtransformer2 import (
    HelpEnd,
    TransformerManager,
    assemble_continued_line,
    make_tokens_by_line,
)
from IPython.core.splitinput import LineInfo

import ksvm
from assignments import gradebook
from assignments.checks import MODULES, Outcome, SubmissionError, for_assignment
from assignments.make_student import BEGIN, is_check_cell
from assignments.sandbox import Limits, SandboxUnavailable, Stopped, Worker
from assignments.wire import WireError, read_exception, short_text

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"
METADATA_KEY = "ksvm_assignment"
MAX_NOTEBOOK = 20 << 20  # bytes: a larger file is not graded
MAX_ANSWER = 20_000  # characters of a written answer kept for the feedback


def _ksvm_directories():
    """Every copy of ksvm that this environment can import: the one imported here, and the others
    that its finders know (an editable install may point to another checkout than this one)."""
    found = {Path(ksvm.__file__).resolve().parent}
    searches = [(finder, None) for finder in sys.meta_path] + [
        (PathFinder, [entry]) for entry in sys.path
    ]
    for finder, path in searches:
        try:
            spec = finder.find_spec("ksvm", path)
        except Exception:  # a finder that cannot search for it
            continue
        if spec is not None and spec.origin:
            found.add(Path(spec.origin).resolve().parent)
    return sorted(found)


# What a submission may not read: the reference it is compared with, the solutions, the checks and
# the grader, and the repository's history, which holds them all.  (The sandbox shows no part of
# the repository; these are also refused by the worker's guard, which names them.)
HIDDEN = (*_ksvm_directories(), HERE, HERE.parent / ".git")
WITHOUT_ISOLATION = (
    "graded without isolation (--no-isolation): the submission ran as the grader's user, "
    "and could read what that user can"
)
# Line magics that run a shell command, with IPython's aliases (%ls, %cp, ...), which do too.
SHELL_LINE_MAGICS = frozenset(
    {
        "pip",
        "conda",
        "mamba",
        "micromamba",
        "uv",
        "system",
        "sx",
        "sc",
        "man",
        "less",
        "more",
        "clear",
    }
    | {name for name, _ in default_aliases()}
)
# Cell magics that hand their cell to a shell or another program; and those that run it as
# IPython code.
SHELL_CELL_MAGICS = frozenset(
    {
        "!",
        "system",
        "sx",
        "script",
        "sh",
        "bash",
        "perl",
        "ruby",
        "python",
        "python2",
        "python3",
        "pypy",
    }
)
CODE_CELL_MAGICS = frozenset({"capture", "time", "timeit"})
MAX_SCANNED = (
    100_000  # characters of a cell searched for shell commands; a longer cell runs as it is
)
MAX_SYNTAX = 100  # pieces of IPython syntax in one cell; with more, the cell runs as it is


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
    isolated: bool = True  # graded in a sandbox
    answers: list = field(default_factory=list)  # written answers: {"cell": id, "text": ...}
    identifier: str = ""  # the submission's name in the gradebook (gradebook.identify)
    metadata_id: object = None  # the notebook's metadata field named by --id-field, if any

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
    by_id = {
        cell.get("id"): i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and cell.get("id")
    }
    by_name = {check_name(cell): i for i, cell in enumerate(nb.cells) if is_check_cell(cell)}
    for ref in (cell for cell in reference.cells if is_check_cell(cell)):
        index = places[check_name(ref)] = by_id.get(ref.get("id"), by_name.get(check_name(ref)))
        if index is None:
            notes.append(
                f"'{check_name(ref)}' was missing from the submission; "
                "the grader ran its own check after the last cell"
            )
        elif nb.cells[index].source != ref.source:
            notes.append(
                f"'{check_name(ref)}' was edited in the submission; the grader ran its own check "
                "there"
            )
    for i, cell in enumerate(nb.cells):
        if is_check_cell(cell) and i not in places.values():
            notes.append(
                f"'{check_name(cell)}' is not a check of the assignment: run as an ordinary cell"
            )
    return places, notes


def written_answers(nb, reference, notes):
    """The written answers of ``nb``: its Markdown cells that stand where ``reference`` has a
    marked answer (matched by cell id), as ``{"cell": id, "text": ...}``.  The grader collects
    them for the feedback and does not mark them; a missing one is noted in ``notes``."""
    answers = []
    cells = {c.get("id"): c for c in nb.cells if c.cell_type == "markdown"}
    for ref in reference.cells:
        if ref.cell_type == "markdown" and BEGIN in ref.source:
            cell = cells.get(ref.get("id"))
            if cell is None:
                notes.append(f"the written answer (cell {ref.get('id')}) was missing")
            else:
                answers.append({"cell": ref.get("id"), "text": short_text(cell.source, MAX_ANSWER)})
    return answers


def _indent(line):
    return line[: len(line) - len(line.lstrip(" \t"))]


def _blanked(lines, start, end):
    """``lines`` with its lines ``start`` to ``end`` (included) made into ``pass``, at the
    indentation of the first, and blank lines: a block stays valid and every other line keeps
    its number."""
    return (
        lines[:start]
        + [_indent(lines[start]) + "pass\n"]
        + ["\n"] * (end - start)
        + lines[end + 1 :]
    )


def without_shell_commands(source, depth=0):
    """``source`` (a code cell) without its shell commands, and those commands, as IPython would
    run them.

    IPython's own input transformation finds them, as the worker's shell will: the lines ``!cmd``,
    ``!!cmd`` and ``var = !cmd``, the line magics that run a shell command (``%pip``, ``%conda``,
    ``%system``, ``%sx``, an alias such as ``%ls``, also written without ``%`` in a cell of one
    line, where IPython's automagic runs them), and the cell magics that hand the cell to a shell or
    another program (``%%bash``, ``%%sh``, ``%%script``, ``%%system``, ...).  Each such line becomes
    ``pass`` at its indentation, so that a block stays valid and the other lines keep their
    numbers; a shell cell magic leaves ``pass`` alone.  ``%%capture``, ``%%time`` and ``%%timeit``
    run their cell as IPython code, whose shell commands are found in the same way.  A call of
    ``get_ipython().system(...)`` written in Python is not IPython's syntax: it stays, and the
    worker stops the submission when it runs.  A cell that IPython cannot transform, or too long
    to search, is returned as it is.

    Returns
    -------
    source : str
        ``source`` itself if it holds no shell command.
    commands : list of str
        The commands taken out, each on one line, as written.
    """
    if not isinstance(source, str) or len(source) > MAX_SCANNED or depth > 2:
        return source, []
    try:
        with warnings.catch_warnings():  # that a line ends in U+2028 or the like: IPython copes
            warnings.filterwarnings("ignore", "`make_tokens_by_line` received", UserWarning)
            return _without_shell_commands(source, depth)
    except Exception:  # what IPython cannot transform fails in the worker as it would in Jupyter
        return source, []


def _without_shell_commands(source, depth):
    manager = TransformerManager()
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"  # as IPython does
    work = lines
    for (
        transform
    ) in manager.cleanup_transforms:  # blank lines first, indentation, prompts: as IPython does
        work = transform(work)
    work = list(work)
    skip = len(lines) - len(work)  # the blank lines at the top, which IPython drops

    if work and work[0].startswith("%%") and not re.match(r"%%\w+\?", work[0]):
        magic = work[0][2:].rstrip().partition(" ")[0]
        if magic in SHELL_CELL_MAGICS:
            return "pass\n", [lines[skip].strip()]
        if magic in CODE_CELL_MAGICS:
            body, commands = without_shell_commands("".join(lines[skip + 1 :]), depth + 1)
            return ("".join(lines[: skip + 1]) + body, commands) if commands else (source, [])
        return source, []

    out, commands, found = list(lines), [], False
    for _ in range(MAX_SYNTAX):
        tokens = make_tokens_by_line(work)
        candidates = [cls.find(tokens) for cls in manager.token_transformers]
        for candidate in sorted((c for c in candidates if c), key=lambda c: c.sortby()):
            try:  # the first that IPython can transform is the one it transforms
                transformed = candidate.transform(work)
            except SyntaxError:
                continue
            break
        else:
            break
        found = True
        start = candidate.start_line
        end = start + len(work) - len(transformed)  # a command continued with backslashes is one
        text = assemble_continued_line(work, (start, candidate.start_col), end)
        shell = not isinstance(candidate, HelpEnd) and (
            text.startswith("!")
            or (text.startswith("%") and text[1:].partition(" ")[0] in SHELL_LINE_MAGICS)
        )
        work = _blanked(work, start, end)  # to find the next piece of IPython syntax after this one
        if shell:
            commands.append(" ".join(line.strip() for line in out[skip + start : skip + end + 1]))
            out = _blanked(out, skip + start, skip + end)
    else:
        return source, []

    if (
        not found and len("".join(work).splitlines()) == 1
    ):  # IPython's automagic: `pip install numpy`
        line = work[0].strip()
        info = LineInfo(line)
        if info.ifun in SHELL_LINE_MAGICS and (
            not info.the_rest or info.the_rest.startswith("-") or not _is_python(line)
        ):
            commands.append(line)
            out = _blanked(out, skip, len(out) - 1)
    return ("".join(out), commands) if commands else (source, [])


def _is_python(line):
    try:
        ast.parse(line)
    except Exception:  # SyntaxError, or a line too deeply nested for the parser
        return False
    return True


def run_check(check, worker, rng, timeout):
    """One check, its calls made by ``worker``, decided here."""

    def invoke(request):
        answer = worker.call(
            check.function,
            request.args,
            request.kwargs,
            memory=request.memory,
            what=f"{check.name.split(':')[0]}, a call of {check.function}",
        )
        if answer.interrupted:
            return Outcome(
                check.function,
                raised=("TimeoutError",),
                message=f"{check.function} was interrupted after the timeout of {timeout:g} s",
            )
        return Outcome.from_reply(check.function, answer.reply)

    try:
        check.run(invoke, rng)
    except AssertionError as exc:
        return CheckResult(check.name, False, short_text(f"AssertionError: {exc}"))
    except SubmissionError as exc:
        return CheckResult(check.name, False, short_text(f"{exc.name}: {exc.message}"))
    except (Stopped, KeyboardInterrupt):
        raise
    except (
        Exception
    ) as exc:  # the result had a form the check could not use (an array of the wrong shape, ...)
        return CheckResult(check.name, False, short_text(f"{type(exc).__name__}: {exc}"))
    return CheckResult(check.name, True)


def grade_notebook(
    nb, assignment=None, limits=Limits(), path="", rng=None, isolate=True, id_field=None
):
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
    isolate : bool
        Run the submission in a sandbox (`sandbox.Worker`); False runs it without one, and marks
        the result as graded without isolation.
    id_field : str or None
        The key of the notebook's metadata that identifies the submission in the gradebook
        (see `gradebook.identify`); None identifies it by its file name.

    Returns
    -------
    result : GradeResult

    Raises
    ------
    sandbox.SandboxUnavailable
        If ``isolate`` and no sandbox can be made on this machine.
    """
    name = assignment or assignment_of(nb, path or None)
    module = for_assignment(name) if name else None
    result = GradeResult(path=str(path), assignment=name or "", isolated=bool(isolate))
    if module is None:
        result.notes.append(
            f"unknown assignment {name!r}: name it with --assignment, one of {', '.join(MODULES)}"
        )
        return result
    reference = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)
    places, result.notes = check_cells(nb, reference)
    result.answers = written_answers(nb, reference, result.notes)
    if id_field is not None:
        result.metadata_id = nb.metadata.get(id_field)
    # the index of a check cell, or None for after the last cell: the checks that run there
    due = {}
    for k, check in enumerate(module.CHECKS):
        due.setdefault(places.get(check.name), []).append(k)
    if not isolate:
        result.notes.insert(0, WITHOUT_ISOLATION)
    rng = np.random.default_rng() if rng is None else rng
    forbid = getattr(module, "FORBIDDEN", ())
    stopped, worker, decided = [], Worker(limits, hide=HIDDEN, isolate=isolate, forbid=forbid), {}

    def run_checks(place):
        for k in due.pop(place, []):
            decided[k] = run_check(module.CHECKS[k], worker, rng, limits.timeout)

    try:
        worker.start()
        for index, cell in enumerate(nb.cells):
            if (
                index in places.values()
            ):  # a check cell: the grader's checks run in its place, not its code
                run_checks(index)
                continue
            if cell.cell_type != "code":
                continue
            source, commands = without_shell_commands(cell.source)
            for command in commands:
                result.notes.append(
                    f"cell {index}: the shell command `{command[:200]}` was skipped: "
                    "the grader runs no shell commands"
                )
            answer = worker.cell(source, what=f"cell {index}")
            where = f"cell {index} (not a check, id {cell.get('id', '?')})"
            error = answer.reply.get("error") or answer.reply.get("raised")
            if answer.interrupted:
                result.notes.append(
                    f"{where} was interrupted after the timeout of {limits.timeout:g} s"
                )
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
        result.checks = [
            CheckResult(check.name, False, f"not graded, the submission was stopped: {stopped[0]}")
            for check in module.CHECKS
        ]
    return result


def grade_file(path, assignment=None, limits=Limits(), rng=None, isolate=True, id_field=None):
    """Read the submission at ``path`` (never written) and grade it."""
    path = Path(path)
    if path.stat().st_size > MAX_NOTEBOOK:
        return GradeResult(
            str(path), assignment or "", notes=[f"not graded: larger than {MAX_NOTEBOOK >> 20} MB"]
        )
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # not JSON, not a notebook
        return GradeResult(
            str(path),
            assignment or "",
            notes=[f"not graded: not a notebook ({type(exc).__name__})"],
        )
    return grade_notebook(
        nb, assignment, limits=limits, path=str(path), rng=rng, isolate=isolate, id_field=id_field
    )


# What the terminal report shows as escapes: control characters (C0, DEL, C1), format characters
# (bidi controls such as U+202E, zero-width ones such as U+200B), the line and paragraph separators,
# surrogates and unassigned code points.
ESCAPED = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Cn"})
CONTINUED = (
    "\n        | "  # how a line after the first of a text goes on, under the grader's own text
)


def shown(text):
    """``text``, which may come from the submission, as the terminal report shows it.

    Every character that could move the cursor, change the terminal, reorder or hide text is
    shown as an escape (``\\x1b``, ``\\u202e``), and each line after the first goes on under the
    report's entry behind ``|``: no line of ``text`` can start where the grader prints
    ``PASS``, ``FAIL``, ``note`` or ``score:``.  The JSON results keep the text as it is.
    """
    out = []
    for ch in str(text):
        if ch == "\n":
            out.append(CONTINUED)
        elif unicodedata.category(ch) in ESCAPED:
            code = ord(ch)
            out.append(
                f"\\x{code:02x}"
                if code < 0x100
                else f"\\u{code:04x}"
                if code < 0x10000
                else f"\\U{code:08x}"
            )
        else:
            out.append(ch)
    return "".join(out)


def format_result(result):
    """The terminal report of one submission; every text in it goes through `shown`."""
    lines = [f"{shown(result.path)}  [{shown(result.assignment) or 'unknown assignment'}]"]
    for note in result.notes:
        lines.append(f"  note  {shown(note)}")
    for check in result.checks:
        lines.append(f"  {'PASS' if check.passed else 'FAIL'}  {shown(check.name)}")
        if not check.passed:
            lines.append(f"        {shown(check.error)}")
    lines.append(f"  score: {result.score}/{result.total}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="+", type=Path, help="notebooks to grade")
    parser.add_argument(
        "--assignment",
        choices=sorted(MODULES),
        help="the assignment (default: from each notebook's metadata or file name)",
    )
    defaults = Limits()
    parser.add_argument(
        "--timeout",
        type=float,
        default=defaults.timeout,
        help="seconds for one cell or one call (default: %(default)s)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=defaults.time,
        help="seconds for a whole submission (default: %(default)s)",
    )
    parser.add_argument(
        "--memory",
        type=int,
        default=defaults.memory,
        help="MB of address space for a submission (default: %(default)s)",
    )
    parser.add_argument(
        "--max-output",
        type=float,
        default=defaults.output,
        help="MB that a submission may print (default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, help="draw the checks' inputs from this seed (default: fresh)"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="submissions graded at once (default: 1)"
    )
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    parser.add_argument(
        "--csv",
        type=Path,
        help="also write a gradebook: one row a submission, one column a check",
    )
    parser.add_argument(
        "--feedback",
        type=Path,
        metavar="DIR",
        help="also write one Markdown feedback file a submission into DIR",
    )
    parser.add_argument(
        "--id-field",
        metavar="KEY",
        help="identify each submission by this key of its notebook metadata "
        "(default: by its file name)",
    )
    parser.add_argument(
        "--no-isolation",
        action="store_true",
        help="grade without a sandbox where none can be made; every report says so",
    )
    args = parser.parse_args(argv)

    for path in args.submissions:
        if not path.is_file():
            parser.error(f"{path}: no such file")
    limits = Limits(
        timeout=args.timeout, time=args.time_limit, memory=args.memory, output=args.max_output
    )

    def grade(path):
        rng = None if args.seed is None else np.random.default_rng(args.seed)
        return grade_file(
            path,
            args.assignment,
            limits=limits,
            rng=rng,
            isolate=not args.no_isolation,
            id_field=args.id_field,
        )

    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(grade, args.submissions))
    except SandboxUnavailable as exc:
        print(
            f"grade.py: {exc}.\nNothing was graded. Install bubblewrap or allow user namespaces, "
            "or run with --no-isolation to grade without a sandbox (each report will say so).",
            file=sys.stderr,
        )
        return 2
    gradebook.identify(results, args.id_field)
    for result in results:
        print(format_result(result))
    if len(results) > 1:
        print(
            f"total: {sum(r.score for r in results)}/{sum(r.total for r in results)} checks passed "
            f"in {len(results)} notebooks"
        )
    if args.json:
        args.json.write_text(
            json.dumps([r.as_dict() for r in results], indent=2) + "\n", encoding="utf-8"
        )
    if args.csv:
        gradebook.write_csv(results, args.csv)
    if args.feedback:
        gradebook.write_feedback(results, args.feedback)
    return 0


if __name__ == "__main__":
    sys.exit(main())
