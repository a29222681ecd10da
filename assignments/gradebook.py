"""What the grader hands on: a gradebook (CSV) and one feedback file a submission (Markdown).

The gradebook has one row a submission and one column a check, in the shape that learning-
management systems import (Moodle's grading worksheet, Canvas's gradebook, a spreadsheet): the
submission's identifier, its file name, the assignment, the score and the number of checks, then
1 or 0 for each check, then the number of notes.  The feedback file of a submission holds its
score, every check with its diagnostic, the grader's notes, and the written answers that the
grader collects but does not mark (the capstone's justification), for the instructor to read and
hand back.

Every text in them that comes from a submission (its file name, a metadata field, an exception
message, a written answer) is data, never markup or a formula: in the CSV a cell that a
spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, a tab or a carriage return first)
is prefixed with ``'``, as OWASP recommends; in the Markdown file such a text stands in a fenced
block whose fence is longer than any run of backticks in it, so no renderer reads it as Markdown
or HTML.  File names are made from the identifier with only letters, digits, ``.``, ``_`` and
``-``, never a path, and made unique.
"""

import csv
import re
from pathlib import Path

__all__ = ["feedback_markdown", "identify", "safe_name", "write_csv", "write_feedback"]

MAX_ID = 100  # characters of an identifier taken from the notebook's metadata
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def identify(results, field=None):
    """Give each result its identifier: the submission's file name without ``.ipynb``, or, with
    ``field``, the string of that key of the notebook's metadata (``result.metadata_id``).

    A metadata identifier is written by the student, so it is checked: a missing, empty, too long
    or non-printable one falls back to the file name, and identifiers claimed by more than one
    submission are each noted, so that no row silently stands for another student.
    """
    for result in results:
        name = Path(result.path).name
        identifier = name[: -len(".ipynb")] if name.endswith(".ipynb") else name
        if field is not None:
            claimed = result.metadata_id
            if isinstance(claimed, str) and 0 < len(claimed) <= MAX_ID and claimed.isprintable():
                identifier = claimed.strip() or identifier
            else:
                result.notes.append(
                    f"no usable metadata field {field!r} (a printable string of at most "
                    f"{MAX_ID} characters): identified by its file name"
                )
        result.identifier = identifier
    seen = {}
    for result in results:
        seen.setdefault(result.identifier, []).append(result)
    for identifier, claimants in seen.items():
        if len(claimants) > 1:
            files = ", ".join(Path(r.path).name for r in claimants)
            for result in claimants:
                result.notes.append(
                    f"{len(claimants)} submissions have the identifier {identifier!r} ({files})"
                )
    return results


def _cell(text):
    """A text as a CSV cell that no spreadsheet evaluates."""
    text = str(text)
    return "'" + text if text.startswith(FORMULA_START) else text


def write_csv(results, path):
    """Write the gradebook of ``results`` (identified by `identify`) to ``path``.

    The check columns are named after the checks when every result is of one assignment
    (``Check 1: gaussian_gram against ...``), else ``Check 1``, ``Check 2``, ...; a submission
    with fewer checks leaves the others empty.
    """
    width = max((r.total for r in results), default=0)
    assignments = {r.assignment for r in results}
    names = next((r.checks for r in results if r.checks), [])
    if len(assignments) == 1 and len(names) == width:
        columns = [c.name for c in names]
    else:
        columns = [f"Check {k + 1}" for k in range(width)]
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["submission", "file", "assignment", "score", "total", *columns, "notes"])
        for r in results:
            marks = [int(c.passed) for c in r.checks] + [""] * (width - r.total)
            writer.writerow(
                [
                    _cell(r.identifier),
                    _cell(Path(r.path).name),
                    _cell(r.assignment),
                    r.score,
                    r.total,
                    *marks,
                    len(r.notes),
                ]
            )


def fenced(text):
    """``text`` in a fenced block that shows it as it is, whatever it holds."""
    text = str(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def feedback_markdown(result):
    """The feedback of one submission, as Markdown."""
    lines = [
        f"# Feedback on {safe_name(result.identifier)}",
        "",
        f"Assignment `{safe_name(result.assignment) or 'unknown'}`: "
        f"**{result.score} of {result.total} checks passed.**",
        "",
        "Each check ran your functions on fresh random data and compared what they returned "
        "with a reference; a failed check says what was wrong in the case where it failed.",
    ]
    for check in result.checks:
        lines += ["", f"## {'Passed' if check.passed else 'Failed'}: {_title(check.name)}"]
        if not check.passed:
            lines += ["", fenced(check.error)]
    if result.notes:
        lines += ["", "## Notes from the grader", ""]
        lines += [fenced("\n".join(f"- {note}" for note in result.notes))]
    for answer in result.answers:
        lines += [
            "",
            f"## Your written answer `{safe_name(answer['cell'])}` (read, not marked)",
            "",
        ]
        lines += [fenced(answer["text"])]
    return "\n".join(lines) + "\n"


def _title(name):
    """A check's name (the grader's own text), its characters that Markdown would read escaped."""
    return re.sub(r"([\\`*_<>\[\]|#])", r"\\\1", name)


def safe_name(text):
    """``text`` with only letters, digits, ``.``, ``_`` and ``-``, not starting with ``.``:
    usable as a file name and inside Markdown."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).lstrip(".")
    return name[:MAX_ID] or "submission"


def write_feedback(results, directory):
    """Write ``<identifier>.md`` for each result into ``directory`` (made if missing); return the
    paths, one a result, in order.  Identifiers that make the same file name get ``-2``,
    ``-3``, ..."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths, taken = [], set()
    for result in results:
        stem, k = safe_name(result.identifier), 1
        while (stem if k == 1 else f"{stem}-{k}").lower() in taken:
            k += 1
        stem = stem if k == 1 else f"{stem}-{k}"
        taken.add(stem.lower())
        path = directory / f"{stem}.md"
        path.write_text(feedback_markdown(result), encoding="utf-8")
        paths.append(path)
    return paths
