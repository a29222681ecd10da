"""Every chapter has the shape of a textbook chapter, not of a verification report.

The house guide's shape, checked on the notebooks themselves:

* the sections "Key ideas", "Exercises" and "Notes on the sources", in that order;
* every exercise has a title with a difficulty mark (★, ★★ or ★★★) and a kind
  (``:class:`` proof, computation, implementation or open), and each chapter has at
  least one implementation or open exercise;
* no answer in plain view: every solution is a dropdown, and a solution that is
  checked by code is a gated one (``solution-start`` ... ``solution-end``) with
  the code inside it; no code cell follows a plain solution;
* the setup cell is folded, visible code fits the page (at most 90 characters a
  line), and the call that shows the package's source is hidden, so the page shows
  the listing, not ``listing(...)`` or ``inspect.getsource``;

and on the built HTML book (when it has been built by the README's first command):
at most about 3,000 visible words and 15 visible code cells per chapter, counted
outside everything folded.

``python tests/test_chapter_shape.py`` prints those counts for every chapter.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
HTML = ROOT / "_build" / "html" / "book"

# Pages that are not chapters: the preface and the index of exercises.
NOT_CHAPTERS = {"exercise_index", "preface"}
WORD_BUDGET = 3300
CELL_BUDGET = 16
LINE_WIDTH = 90
FOLDED_TAGS = {"hide-input", "remove-input", "hide-cell", "remove-cell"}
KINDS = {"proof", "computation", "implementation", "open"}
MARK = re.compile(r" (★|★★|★★★)$")

ALL_CHAPTERS = sorted(p.stem for p in BOOK.glob("*.ipynb") if p.stem not in NOT_CHAPTERS)


def _cells(name):
    nb = json.loads((BOOK / f"{name}.ipynb").read_text())
    return [(c["cell_type"], "".join(c["source"]), set(c.get("metadata", {}).get("tags", []))) for c in nb["cells"]]


def _directives(text, name):
    """(argument, options) of every ```{name} directive in a markdown text."""
    found = []
    for match in re.finditer(r"^(`{3,}|:{3,})\{" + re.escape(name) + r"\}[ \t]*(.*)$", text, re.M):
        options = {}
        for line in text[match.end() + 1 :].splitlines():
            m = re.match(r"^:(\w[\w-]*):\s*(.*)$", line)
            if not m:
                break
            options[m.group(1)] = m.group(2).strip()
        found.append((match.group(2).strip(), options))
    return found


def test_every_chapter_of_the_book_is_checked():
    assert len(ALL_CHAPTERS) >= 16 and "convex_duality" in ALL_CHAPTERS


@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_sections_in_order(name):
    headings = [
        line[3:].strip()
        for kind, text, _ in _cells(name)
        if kind == "markdown"
        for line in text.splitlines()
        if line.startswith("## ")
    ]
    for section in ("Key ideas", "Exercises", "Notes on the sources"):
        assert section in headings, f"{name} has no section '## {section}'"
    where = [headings.index(s) for s in ("Key ideas", "Exercises", "Notes on the sources")]
    assert where == sorted(where), f"{name}: Key ideas, Exercises, Notes on the sources must come in that order"


@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_exercises_are_marked_and_of_more_than_one_kind(name):
    text = "\n".join(t for kind, t, _ in _cells(name) if kind == "markdown")
    exercises = _directives(text, "exercise")
    assert exercises, f"{name} has no exercise"
    kinds = []
    for title, options in exercises:
        label = options.get("label", title)
        assert MARK.search(title), f"{name}, exercise {label}: the title must end in ★, ★★ or ★★★"
        kind = options.get("class", "")
        assert kind in KINDS, f"{name}, exercise {label}: :class: must be one of {sorted(KINDS)}, got {kind!r}"
        kinds.append(kind)
    assert {"implementation", "open"} & set(kinds), f"{name} needs an implementation or open exercise"


@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_no_answer_in_plain_view(name):
    cells = _cells(name)
    inside_gate = False
    for i, (kind, text, tags) in enumerate(cells):
        if kind == "markdown":
            for directive in ("solution", "solution-start"):
                for _, options in _directives(text, directive):
                    assert "dropdown" in options.get("class", ""), f"{name}, cell {i}: a {directive} must be a dropdown"
            starts = len(_directives(text, "solution-start"))
            for gate in re.findall(r"^(?:`{3,}|:{3,})\{solution-(start|end)\}", text, re.M):
                if gate == "start":
                    assert not inside_gate, f"{name}, cell {i}: solution-start inside an open solution"
                else:
                    assert inside_gate, f"{name}, cell {i}: solution-end without solution-start"
                inside_gate = gate == "start"
            if _directives(text, "solution") and not starts:
                following = cells[i + 1][0] if i + 1 < len(cells) else "markdown"
                assert following != "code" or cells[i + 1][2] & {"remove-cell"}, (
                    f"{name}, cell {i}: code after a plain solution is an answer in plain view; "
                    "use solution-start / solution-end"
                )
    assert not inside_gate, f"{name}: a solution-start is never closed"


@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_visible_code_is_short_and_shows_no_plumbing(name):
    code = [(text, tags) for kind, text, tags in _cells(name) if kind == "code"]
    assert code[0][1] & FOLDED_TAGS, f"{name}: the setup cell (the first code cell) must be folded"
    for text, tags in code:
        if tags & FOLDED_TAGS:
            continue
        for line in text.splitlines():
            assert len(line) <= LINE_WIDTH, f"{name}: a visible line of {len(line)} characters: {line[:60]}..."
        assert "getsource" not in text and "listing(" not in text, (
            f"{name}: the call that shows a listing must be hidden (remove-input): {text[:60]}"
        )


def page_statistics(name):
    """Visible words and visible code cells of a built chapter, outside folded parts."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((HTML / f"{name}.html").read_text(), "html.parser")
    article = soup.find("article") or soup
    for folded in article.select("details, .toggle-hidden, .dropdown, .toggle, .tag_hide-input .cell_input"):
        folded.decompose()
    for hidden in article.select(".tag_hide-cell, .tag_hide-output .cell_output, .tag_remove-cell, script, style"):
        hidden.decompose()
    cells = article.select("div.cell_input")
    for code in article.select("div.cell_input, div.cell_output, .MathJax, .math"):
        code.decompose()
    words = len(re.findall(r"[A-Za-z][A-Za-z'-]*", article.get_text(" ")))
    return words, len(cells)


@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_built_page_fits_one_sitting(name):
    if not (HTML / f"{name}.html").exists():
        pytest.skip("the book is not built (README, command 1)")
    words, cells = page_statistics(name)
    assert words <= WORD_BUDGET, f"{name}: {words} visible words (budget {WORD_BUDGET})"
    assert cells <= CELL_BUDGET, f"{name}: {cells} visible code cells (budget {CELL_BUDGET})"


if __name__ == "__main__":
    for chapter in ALL_CHAPTERS:
        words, cells = page_statistics(chapter)
        print(f"{chapter:26s} {words:5d} words {cells:3d} visible code cells")
