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

The main path teaches and the engineering lives in the back matter, so, on the built
book, a chapter's visible text (outside its folds) also keeps to:

* sentences of at most 22 words on average and none over 45 (an inline formula counts
  as one word);
* no printed output longer than 15 lines (a longer table becomes a figure or folds);
* at most three listings of ``ksvm``, and no name of ``ksvm`` that starts with an
  underscore anywhere in the chapter, shown, imported or used as an attribute (a listing
  of a public function whose body calls a private helper shows that helper);
* no talk of how the book is tested or measured (nbval, the test suite, ignored cells,
  the build machine, benchmark scripts): that is the back matter's subject;
* the sources cited where they are followed, not narrated: at most a few mentions of
  "the paper", "the lecture", "the authors" or a source's author on the main path;
* at least one three-star exercise.

``python tests/test_chapter_shape.py`` prints those counts for every chapter.
"""

import ast
import functools
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
HTML = ROOT / "_build" / "html" / "book"

# Pages that are not chapters: the preface, the notation, the index of exercises and the
# back matter on speed.
NOT_CHAPTERS = {"exercise_index", "preface", "notation"}


def is_chapter(stem):
    return stem not in NOT_CHAPTERS and not stem.startswith("performance")


WORD_BUDGET = 3300
CELL_BUDGET = 16
LINE_WIDTH = 90
FOLDED_TAGS = {"hide-input", "remove-input", "hide-cell", "remove-cell"}
KINDS = {"proof", "computation", "implementation", "open"}
MARK = re.compile(r" (★|★★|★★★)$")

ALL_CHAPTERS = sorted(p.stem for p in BOOK.glob("*.ipynb") if is_chapter(p.stem))
ALL_PAGES = sorted(p.stem for p in BOOK.glob("*.ipynb"))
MEAN_SENTENCE = 22
LONGEST_SENTENCE = 45
OUTPUT_LINES = 15
LISTINGS = 3
SOURCE_MENTIONS = 6
MACHINERY = re.compile(
    r"nbval|test[- ]suite|ignored (?:cell|output)|cells? (?:that|which) nbval|not compared when"
    r"|build machine|benchmark script|benchmarks/|folded cell",
    re.I,
)
SOURCE_NAMES = re.compile(
    r"\bthe lecture\b|\blecture notes\b|\bthe paper\b|\bthe authors\b|\bMangasarian\b|\bRennie\b"
    r"|\bCocianu\b",
    re.I,
)
PRIVATE_ATTRIBUTE = re.compile(r"\bksvm(?:\.\w+)*\._(?!_)\w+")
PRIVATE_IN_TEXT = re.compile(r"`(?:[\w.]+\.)?_[A-Za-z]\w*(?:\(\))?`")
PRIVATE_IN_CODE = re.compile(r"(?<![\w])\.?_[A-Za-z]\w*")


def _cells(name):
    nb = json.loads((BOOK / f"{name}.ipynb").read_text())
    return [
        (c["cell_type"], "".join(c["source"]), set(c.get("metadata", {}).get("tags", [])))
        for c in nb["cells"]
    ]


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
    assert where == sorted(where), (
        f"{name}: Key ideas, Exercises, Notes on the sources must come in that order"
    )


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
        assert kind in KINDS, (
            f"{name}, exercise {label}: :class: must be one of {sorted(KINDS)}, got {kind!r}"
        )
        kinds.append(kind)
    assert {"implementation", "open"} & set(kinds), (
        f"{name} needs an implementation or open exercise"
    )


@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_no_answer_in_plain_view(name):
    cells = _cells(name)
    inside_gate = False
    for i, (kind, text, _tags) in enumerate(cells):
        if kind == "markdown":
            for directive in ("solution", "solution-start"):
                for _, options in _directives(text, directive):
                    assert "dropdown" in options.get("class", ""), (
                        f"{name}, cell {i}: a {directive} must be a dropdown"
                    )
            starts = len(_directives(text, "solution-start"))
            for gate in re.findall(r"^(?:`{3,}|:{3,})\{solution-(start|end)\}", text, re.M):
                if gate == "start":
                    assert not inside_gate, (
                        f"{name}, cell {i}: solution-start inside an open solution"
                    )
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
            assert len(line) <= LINE_WIDTH, (
                f"{name}: a visible line of {len(line)} characters: {line[:60]}..."
            )
        assert "getsource" not in text and "listing(" not in text, (
            f"{name}: the call that shows a listing must be hidden (remove-input): {text[:60]}"
        )


DRAWS = re.compile(r"\bmatplotlib\b|\bksvm\.book\.(?:plotting|explorers)\b")


def _selects_inline_backend(code):
    """True when the first code cell's first line is ``%matplotlib inline``."""
    return bool(code) and code[0].splitlines()[:1] == ["%matplotlib inline"]


@pytest.mark.parametrize("name", ALL_PAGES)
def test_a_page_that_draws_selects_the_inline_backend(name):
    # Under MPLBACKEND=Agg, as many CI setups set it, a figure cell of a kernel that is left
    # to its default backend shows nothing, and nbval finds its stored figure missing.
    code = [text for kind, text, _ in _cells(name) if kind == "code"]
    if any(DRAWS.search(text) for text in code):
        assert _selects_inline_backend(code), (
            f"{name} draws: its setup cell must start with %matplotlib inline"
        )


def test_the_backend_check_sees():
    assert _selects_inline_backend(["%matplotlib inline\nimport numpy as np"])
    assert not _selects_inline_backend(["import numpy as np\n%matplotlib inline"])
    assert not _selects_inline_backend(["%matplotlib agg"])
    assert not _selects_inline_backend([])
    assert DRAWS.search("from ksvm.book.plotting import plot_classes")


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def private_names_in(nb):
    """The private names that a notebook shows, imports or uses: names of ksvm that start
    with an underscore, and any attribute that does (``smo._ActiveSet``, ``model._x``),
    however the module was imported."""
    found = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            shown = "".join(output.get("data", {}).get("text/markdown", ""))
            found += PRIVATE_ATTRIBUTE.findall(shown)
            if shown.startswith(
                "**Listing**"
            ):  # the body of a listed function names no private helper
                found += [
                    f"{shown.split('`')[1]} uses {name}" for name in PRIVATE_IN_CODE.findall(shown)
                ]
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            found += PRIVATE_IN_TEXT.findall(text)
            continue
        found += PRIVATE_ATTRIBUTE.findall(text)
        code = "\n".join(
            line for line in text.splitlines() if not line.lstrip().startswith(("%", "!"))
        )
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ksvm"):
                found += [f"{node.module}.{a.name}" for a in node.names if _private(a.name)]
            elif (isinstance(node, ast.Attribute) and _private(node.attr)) or (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr", "setattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and _private(str(node.args[1].value))
            ):
                found.append(ast.unparse(node))
    return found


def private_names(name):
    """The private names that the page ``name`` shows, imports or uses."""
    return private_names_in(json.loads((BOOK / f"{name}.ipynb").read_text()))


def three_star_exercises(name):
    text = "\n".join(t for kind, t, _ in _cells(name) if kind == "markdown")
    return [title for title, _ in _directives(text, "exercise") if title.endswith("★★★")]


def _visible_article(name):
    """The article of a built page with everything folded or removed taken out."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((HTML / f"{name}.html").read_text(), "html.parser")
    article = soup.find("article") or soup
    for folded in article.select(
        "details, .toggle-hidden, .dropdown, .toggle, .tag_hide-input .cell_input"
    ):
        folded.decompose()
    for hidden in article.select(
        ".tag_hide-cell, .tag_hide-output .cell_output, .tag_remove-cell, script, style"
    ):
        hidden.decompose()
    return article


ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|et al|cf|vs|Fig|Eq|Sec|Ch|No|approx|resp)\.", re.I)
SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”)]*\s+(?=[A-Z0-9(\"'“`]|MATH)")


def sentences_of(article):
    """The sentences of the prose of an article: paragraphs and list items, outside
    tables, headings, code and outputs, with each formula as the one word MATH."""
    import copy

    article = copy.copy(article)
    for junk in article.select(
        "div.cell, table, h1, h2, h3, h4, h5, h6, .caption-number, a.headerlink"
    ):
        junk.decompose()
    for math in article.select(".math"):
        math.replace_with(" MATH ")
    units = []
    for block in article.find_all(["p", "li", "dd", "dt"]):
        if block.name == "li" and block.find(["p", "ul", "ol"]):
            continue  # its paragraphs or its own list items are units of their own
        if block.find_parent("li") and block.name == "p":
            pass
        text = " ".join(block.get_text(" ").split())
        if text:
            units.append(text)
    sentences = []
    for unit in units:
        protected = ABBREVIATIONS.sub(lambda m: m.group(0).replace(".", "§"), unit)
        for sentence in SENTENCE_END.split(protected):
            words = [w for w in sentence.split() if re.search(r"[A-Za-z0-9]", w)]
            if words:
                sentences.append((len(words), sentence.replace("§", ".")))
    return sentences


def output_lines(article):
    """Lines of text of every visible output cell, in page order; a listing of the package's
    source is shown code, not printed output, and is counted among the listings instead."""
    counts = []
    for output in article.select("div.cell_output"):
        if any(b.get_text().strip() == "Listing" for b in output.find_all("strong")):
            continue
        text = "\n".join(pre.get_text() for pre in output.select("pre"))
        counts.append(len(text.strip("\n").splitlines()) if text.strip() else 0)
    return counts


def main_path_text(article):
    """The visible text of an article up to its "Notes on the sources"."""
    text = article.get_text(" ")
    cut = text.find("Notes on the sources")
    return text[:cut] if cut >= 0 else text


def page_statistics(article):
    """Visible words and visible code cells of a built chapter's ``article`` (as
    :func:`_visible_article` leaves it), outside folded parts."""
    cells = article.select("div.cell_input")
    text_only = __import__("copy").copy(article)
    for code in text_only.select("div.cell_input, div.cell_output, .MathJax, .math"):
        code.decompose()
    words = len(re.findall(r"[A-Za-z][A-Za-z'-]*", text_only.get_text(" ")))
    return words, len(cells)


@functools.cache
def prose_statistics(name):
    """Everything the shape tests measure on a built page, as a dict (parsed once: a page
    with an explorer's frames is megabytes of HTML)."""
    article = _visible_article(name)
    words, cells = page_statistics(article)
    sentences = sentences_of(article)
    lengths = [n for n, _ in sentences]
    outputs = output_lines(article)
    text = article.get_text(" ")
    return {
        "words": words,
        "cells": cells,
        "sentences": len(sentences),
        "mean": sum(lengths) / len(lengths) if lengths else 0.0,
        "longest": max(lengths, default=0),
        "long": [s for n, s in sentences if n > LONGEST_SENTENCE],
        "output": max(outputs, default=0),
        "long_outputs": sum(n > OUTPUT_LINES for n in outputs),
        "listings": sum(1 for b in article.find_all("strong") if b.get_text().strip() == "Listing"),
        "machinery": sorted({m.group(0).lower() for m in MACHINERY.finditer(text)}),
        "mentions": len(SOURCE_NAMES.findall(main_path_text(article))),
    }


def _built(name):
    if not (HTML / f"{name}.html").exists():
        pytest.skip("the book is not built (README, command 1)")


# The tests of the built pages parse megabytes of HTML (a second a page): like the other
# tests of the built book they are left out of the edit-test loop, `pytest -m "not slow"`.
built_page = pytest.mark.slow


@built_page
@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_built_page_fits_one_sitting(name):
    if not (HTML / f"{name}.html").exists():
        pytest.skip("the book is not built (README, command 1)")
    stats = prose_statistics(name)
    words, cells = stats["words"], stats["cells"]
    assert words <= WORD_BUDGET, f"{name}: {words} visible words (budget {WORD_BUDGET})"
    assert cells <= CELL_BUDGET, f"{name}: {cells} visible code cells (budget {CELL_BUDGET})"


@built_page
@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_sentences_are_short(name):
    _built(name)
    stats = prose_statistics(name)
    assert stats["mean"] <= MEAN_SENTENCE, (
        f"{name}: {stats['mean']:.1f} words a sentence on average"
    )
    assert not stats["long"], f"{name}: sentences over {LONGEST_SENTENCE} words: " + " | ".join(
        s[:120] for s in stats["long"][:5]
    )


@built_page
@pytest.mark.parametrize("name", ALL_PAGES)
def test_no_long_printed_output(name):
    _built(name)
    stats = prose_statistics(name)
    assert stats["long_outputs"] == 0, (
        f"{name}: {stats['long_outputs']} visible outputs over {OUTPUT_LINES} lines (the longest "
        f"has {stats['output']}): make the table a figure, or fold it"
    )


@built_page
@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_main_path_teaches(name):
    _built(name)
    stats = prose_statistics(name)
    assert not stats["machinery"], (
        f"{name} speaks of {stats['machinery']}: that belongs to the back matter"
    )
    assert stats["listings"] <= LISTINGS, (
        f"{name} shows {stats['listings']} listings (at most {LISTINGS})"
    )
    assert stats["mentions"] <= SOURCE_MENTIONS, (
        f"{name} names its sources {stats['mentions']} times on its main path (at most "
        f"{SOURCE_MENTIONS}): cite where a source is followed, and teach the method"
    )


@pytest.mark.parametrize("name", ALL_PAGES)
def test_no_private_name_of_ksvm(name):
    found = private_names(name)
    assert not found, f"{name} shows, imports or uses private names: {sorted(set(found))}"


@pytest.mark.parametrize(
    "code",
    [
        "from ksvm._validation import encode_binary_labels",
        "import ksvm._validation as v",
        "from ksvm import _validation",
        "from ksvm.smo import _ActiveSet",
        "listing(ksvm.smo._ActiveSet)",
        "from ksvm import smo\nlisting(smo._ActiveSet)",
        "points = model._kernel_points(X)",
        "getattr(smo, '_ActiveSet')",
    ],
)
def test_the_private_name_check_sees(code):
    cell = {"cell_type": "code", "source": code.splitlines(keepends=True), "outputs": []}
    assert private_names_in({"cells": [cell]})


def test_the_private_name_check_passes_public_and_special_names():
    code = (
        "import ksvm\nfrom ksvm.smo import smo\n"
        "print(ksvm.__version__, smo.__doc__, ksvm.smo.kkt_bias)"
    )
    cell = {"cell_type": "code", "source": code.splitlines(keepends=True), "outputs": []}
    assert private_names_in({"cells": [cell]}) == []


@pytest.mark.parametrize("name", ALL_CHAPTERS)
def test_a_three_star_exercise(name):
    assert three_star_exercises(name), f"{name} has no three-star (★★★) exercise"


def report(names=None):
    """The table that ``python tests/test_chapter_shape.py`` prints."""
    names = names or [n for n in ALL_PAGES if (HTML / f"{n}.html").exists()]
    header = (
        f"{'page':26s} {'words':>5s} {'cells':>5s} {'sent':>5s} {'mean':>5s} {'max':>4s} "
        f"{'>45':>4s} {'out':>4s} {'>15':>4s} {'list':>4s} {'src':>4s} {'3*':>3s} {'priv':>4s}  "
        "machinery"
    )
    lines = [header]
    for name in names:
        st = prose_statistics(name)
        lines.append(
            f"{name:26s} {st['words']:5d} {st['cells']:5d} {st['sentences']:5d} {st['mean']:5.1f} "
            f"{st['longest']:4d} {len(st['long']):4d} {st['output']:4d} {st['long_outputs']:4d} "
            f"{st['listings']:4d} {st['mentions']:4d} {len(three_star_exercises(name)):3d} "
            f"{len(private_names(name)):4d}  {', '.join(st['machinery'])}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(report(sys.argv[1:] or None))
