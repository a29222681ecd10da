"""One notation for the whole book: every letter has one meaning, in every chapter.

The table is ``book/notation.yml``; the notation page prints it.  A chapter's math,
up to its "Notes on the sources", may use only the letters of the table, a letter
whose scope names chapters only in those, and none of the notations the book does
not use (a transpose written ``^t`` or with a prime, the LSVM paper's ``e`` for the
vector of ones); each entry's ``not`` patterns catch the second meanings that the
sources give its letter (the LSVM paper's gamma as the offset, say).
"""

import json
import re

import pytest

from tests.notation import (
    BANNED,
    BOOK,
    TABLE,
    banned_notations,
    chapter_letters,
    letters,
    load_table,
    main_text,
    math_segments,
    misused,
    pages,
)

TABLE_BY_SYMBOL, ENTRIES = load_table()
PAGES = [p.stem for p in pages()]


def test_every_letter_has_one_entry():
    symbols = [e["symbol"] for e in ENTRIES]
    twice = sorted({s for s in symbols if symbols.count(s) > 1})
    assert not twice, f"letters with more than one entry in {TABLE.name}: {twice}"


def test_entries_are_complete_and_scopes_name_chapters():
    import yaml

    groups = {next(iter(g)) for g in yaml.safe_load(TABLE.read_text())["groups"]}
    for entry in ENTRIES:
        assert entry.get("meaning"), f"{entry['symbol']} has no meaning"
        assert entry.get("group") in groups, (
            f"{entry['symbol']}: unknown group {entry.get('group')!r}"
        )
        scope = entry.get("scope")
        assert scope == "book" or (isinstance(scope, list) and scope), (
            f"{entry['symbol']}: scope {scope!r}"
        )
        if scope != "book":
            unknown = set(scope) - set(PAGES)
            assert not unknown, f"{entry['symbol']}: scope names no chapter {sorted(unknown)}"
        assert letters(entry["symbol"]) == [entry["symbol"]], (
            f"{entry['symbol']!r} is not written as the checker reads a letter "
            f"({letters(entry['symbol'])})"
        )
        for pattern, _ in entry.get("not", []):
            re.compile(pattern)


def test_the_checker_finds_letters_and_second_meanings():
    # Decorations, bold type and words do not make letters; \phi is \varphi.
    assert letters(r"\hat{\mathbf{x}}_i^\top \boldsymbol\alpha + \text{tol}\,\phi(z)") == [
        "x",
        "i",
        r"\alpha",
        r"\varphi",
        "z",
    ]
    assert letters(r"\mathcal{H}, \mathbb{R}^{d}") == [r"\mathcal{H}", r"\mathbb{R}", "d"]
    assert math_segments("a $x$ and $$\\alpha$$ and `$K$` and\n```python\n$y$\n```\n") == [
        r"\alpha",
        "x",
    ]
    # A directive's closing fence ends it; the markdown after it is read, a code fence is not.
    assert math_segments("```{prf:proof}\n$a$\n```\n```python\n$y$\n```\n$x$") == ["a", "x"]
    # A transpose written ^t is caught, a power of ten with exponent t is not.
    (transpose, _), *_ = BANNED
    assert (
        transpose.search("x^t z")
        and transpose.search(r"(2, 1)^T")
        and not transpose.search("10^{t}")
    )
    assert not transpose.search("(1 - a)^t")
    # The LSVM paper's offset gamma is caught by the gamma entry's pattern.
    ((pattern, _),) = TABLE_BY_SYMBOL[r"\gamma"]["not"]
    assert re.search(pattern, r"D(Aw - \mathbf{1}\gamma)") and not re.search(
        pattern, r"e^{-\gamma\lVert x\rVert^2}"
    )


@pytest.mark.parametrize("name", PAGES)
def test_chapter_uses_only_the_book_notation(name):
    wrong = misused(name, chapter_letters(BOOK / f"{name}.ipynb"), TABLE_BY_SYMBOL)
    assert not wrong, (
        f"{name}: letters outside the notation table or out of their scope: "
        + "; ".join(f"{k}: {v}" for k, v in sorted(wrong.items()))
    )


@pytest.mark.parametrize("name", PAGES)
def test_chapter_writes_no_banned_notation(name):
    found = banned_notations(BOOK / f"{name}.ipynb")
    assert not found, f"{name}: " + "; ".join(f"...{w}... ({why})" for w, why in found[:10])


@pytest.mark.parametrize("name", PAGES)
def test_no_letter_in_a_second_meaning(name):
    formulas = math_segments(main_text(BOOK / f"{name}.ipynb"))
    found = []
    for entry in ENTRIES:
        for pattern, why in entry.get("not", []):
            for formula in formulas:
                m = re.search(pattern, formula)
                if m:
                    found.append(
                        f"{entry['symbol']} in "
                        f"...{formula[max(0, m.start() - 20) : m.end() + 20]}... ({why})"
                    )
    assert not found, f"{name}: " + "; ".join(found[:10])


def test_the_notation_page_prints_every_letter():
    cells = json.loads((BOOK / "notation.ipynb").read_text())["cells"]
    shown = "".join(
        "".join(out.get("data", {}).get("text/markdown", ""))
        for cell in cells
        if cell["cell_type"] == "code"
        for out in cell.get("outputs", [])
    )
    missing = [e["symbol"] for e in ENTRIES if f"${e['symbol']}$" not in shown]
    assert not missing, (
        f"the notation page does not print {missing}: re-execute book/notation.ipynb"
    )
