"""The glossary and the index: every chapter links the terms it uses, and the index is full.

A chapter links a glossary term where it first uses it in running text
(``{term}`...```), so a reader who meets a word can look it up from that place; the
back matter holds the glossary and the general index, to which the ``{index}``
directives of the chapters and the glossary's terms contribute.
"""

import json
import re

import pytest

from tests import glossary
from tests.test_chapter_shape import ALL_CHAPTERS, BOOK, ROOT

LINKED_PAGES = [*ALL_CHAPTERS, "preface"]
MIN_TERMS = 40
MIN_LINKS = 5
MIN_INDEX_ENTRIES = 150
INDEX_DIRECTIVE = re.compile(r"^```\{index\}[ \t]+(?:single:[ \t]*)?(.+)$", re.M)


def _cells(name):
    return glossary.markdown_cells(json.loads((BOOK / f"{name}.ipynb").read_text()))


def test_the_glossary_defines_enough_terms_each_once():
    entries = glossary.entries()
    terms = [t.lower() for entry in entries for t in entry]
    assert len(entries) >= MIN_TERMS, f"the glossary has {len(entries)} entries"
    assert len(terms) == len(set(terms)), "a term is defined twice"
    text = glossary.GLOSSARY.read_text()
    for entry in entries:
        definition = re.search(rf"^{re.escape(entry[-1])}\n((?:[ \t]+\S.*\n)+)", text, re.M)
        assert definition and len(definition.group(1).split()) >= 8, (
            f"{entry[0]}: no definition of a sentence or more"
        )


def test_the_term_finder_reads_running_text_only():
    cells = [
        "# The kernel trick\n\nA $kernel$ and `kernel` and {doc}`kernel` stay.\n"
        "```python\nkernel = 1\n```\n",
        ":::{prf:theorem} Kernel\n:label: kernel-x\nThe kernel trick, then a kernel.\n:::\n",
    ]
    found = [(c, cells[c][s:e], term) for c, s, e, term in glossary.occurrences(cells)]
    assert found == [(1, "kernel trick", "kernel trick"), (1, "kernel", "kernel")]
    assert [t for t, _, _ in glossary.unlinked_first_uses(cells)] == ["kernel trick", "kernel"]
    linked = [cells[0], cells[1].replace("The kernel trick", "The {term}`kernel trick`")]
    assert [t for t, _, _ in glossary.unlinked_first_uses(linked)] == ["kernel"]


@pytest.mark.parametrize("name", LINKED_PAGES)
def test_every_chapter_links_the_terms_it_uses(name):
    cells = _cells(name)
    known = {t.lower() for entry in glossary.entries() for t in entry}
    targets = {term.lower() for _, _, term in glossary.links(cells)}
    assert targets <= known, f"{name} links terms the glossary lacks: {sorted(targets - known)}"
    assert len(targets) >= MIN_LINKS, f"{name} links only {len(targets)} glossary terms"
    late = glossary.unlinked_first_uses(cells)
    assert not late, (
        f"{name}: first uses not linked to the glossary (python -m tests.glossary {name}): "
        + ", ".join(f"{term!r} in markdown cell {c}" for term, c, _ in late[:8])
    )


def test_the_index_has_enough_entries_and_a_page():
    entries = set()
    for page in BOOK.glob("*.ipynb"):
        for cell in _cells(page.stem):
            entries.update(m.group(1).strip() for m in INDEX_DIRECTIVE.finditer(cell))
    assert len(entries) >= MIN_INDEX_ENTRIES, f"only {len(entries)} index entries"
    toc = (ROOT / "_toc.yml").read_text()
    assert re.search(r"^\s*- file: genindex$", toc, re.M), "the index page is not in _toc.yml"
    assert re.search(r"^\s*- file: book/glossary$", toc, re.M), "the glossary is not in _toc.yml"
    assert (ROOT / "genindex.md").exists()
