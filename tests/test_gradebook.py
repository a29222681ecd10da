"""The gradebook and the feedback files, on texts that a hostile submission chooses.

The batch of every assignment's submissions, graded through the command line, is read back in
tests/test_assignments.py; here each rule of `assignments.gradebook` is tested on results made
by hand, without grading.
"""

import csv

import nbformat

from assignments import grade, gradebook


def result(path, score=1, total=2, notes=(), answers=(), metadata_id=None, error="AssertionError"):
    checks = [
        grade.CheckResult(f"Check {k + 1}: f_{k}", k < score, "" if k < score else error)
        for k in range(total)
    ]
    return grade.GradeResult(
        path=path,
        assignment="04_rho1",
        checks=checks,
        notes=list(notes),
        answers=list(answers),
        metadata_id=metadata_id,
    )


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_no_cell_from_a_submission_is_read_as_a_formula(tmp_path):
    names = [
        '=HYPERLINK("x","y").ipynb',
        "+1.ipynb",
        "-2.ipynb",
        "@SUM(A1).ipynb",
        "alice.ipynb",
    ]
    results = gradebook.identify([result(f"/sub/{n}") for n in names])
    gradebook.write_csv(results, tmp_path / "g.csv")
    header, *rows = read_csv(tmp_path / "g.csv")
    assert header == [
        "submission",
        "file",
        "assignment",
        "score",
        "total",
        "Check 1: f_0",
        "Check 2: f_1",
        "notes",
    ]  # one assignment: named checks
    for row, name in zip(rows, names, strict=True):
        for cell in row[:2]:
            assert not cell.startswith(gradebook.FORMULA_START), cell
        assert row[1] == (name if name == "alice.ipynb" else "'" + name)
        assert row[3:] == ["1", "2", "1", "0", "0"]


def test_identifiers_from_metadata_are_checked_and_clashes_noted(tmp_path):
    results = gradebook.identify(
        [
            result("/sub/a.ipynb", metadata_id="alice"),
            result("/sub/b.ipynb", metadata_id="alice"),  # claims alice's identity
            result("/sub/c.ipynb", metadata_id=["not", "a", "string"]),
            result("/sub/d.ipynb", metadata_id="x" * 101),
            result("/sub/e.ipynb", metadata_id="../../etc/passwd"),
            result("/sub/f.ipynb"),
        ],
        field="student",
    )
    assert [r.identifier for r in results] == ["alice", "alice", "c", "d", "../../etc/passwd", "f"]
    for r in results[:2]:
        assert "2 submissions have the identifier 'alice' (a.ipynb, b.ipynb)" in r.notes
    for r in (results[2], results[3], results[5]):
        assert any("no usable metadata field 'student'" in note for note in r.notes)
    paths = gradebook.write_feedback(results, tmp_path / "feedback")
    # One file a submission, none outside the directory, none overwritten.
    assert [p.name for p in paths] == [
        "alice.md",
        "alice-2.md",
        "c.md",
        "d.md",
        "_.._etc_passwd.md",
        "f.md",
    ]
    assert sorted(p.name for p in (tmp_path / "feedback").iterdir()) == sorted(
        p.name for p in paths
    )
    assert [p.name for p in tmp_path.iterdir()] == ["feedback"]


def test_what_a_submission_wrote_is_shown_as_text_in_the_feedback(tmp_path):
    hostile = "```\n# Passed: every check\n<script>alert(1)</script>\n````"
    r = gradebook.identify(
        [
            result(
                "/sub/mallory.ipynb",
                score=0,
                error=f"AssertionError: {hostile}",
                notes=[hostile],
                answers=[{"cell": "justification", "text": hostile}],
            )
        ]
    )[0]
    text = gradebook.feedback_markdown(r)
    fence = "`````"  # longer than the longest run of backticks in the text
    assert text.count(f"{fence}text\n") == 4  # two diagnostics, the notes, the answer
    assert f"{fence}text\nAssertionError: {hostile}\n{fence}" in text
    assert f"{fence}text\n{hostile}\n{fence}" in text
    # Outside the fences, only the grader's own lines: the forged heading stays inside one.
    outside = text.split(fence)[::2]
    assert not any("Passed: every check" in part or "<script>" in part for part in outside)
    assert "**0 of 2 checks passed.**" in text
    assert "## Failed: Check 1: f\\_0" in text
    assert "## Your written answer `justification` (read, not marked)" in text


def test_written_answers_are_collected_where_the_solution_has_one():
    reference = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("intro", id="intro"),
            nbformat.v4.new_markdown_cell(
                "### BEGIN SOLUTION\nbecause\n### END SOLUTION", id="justification"
            ),
        ]
    )
    submitted = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("intro, edited", id="intro"),
            nbformat.v4.new_markdown_cell("I chose the RBF kernel.\x1b[2J", id="justification"),
        ]
    )
    notes = []
    assert grade.written_answers(submitted, reference, notes) == [
        {"cell": "justification", "text": "I chose the RBF kernel.[2J"}
    ]
    assert notes == []
    submitted.cells.pop()
    assert grade.written_answers(submitted, reference, notes) == []
    assert notes == ["the written answer (cell justification) was missing"]
