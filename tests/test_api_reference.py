"""Every public name of ksvm has an entry in the book's API reference.

A public name is one listed in the ``__all__`` of ``ksvm`` or of one of its public
submodules (a module whose dotted name has no part starting with ``_``).  The
reference is the pages ``book/api*.md``: their ``autofunction``, ``autoclass`` and
``autodata`` directives are read from the source, each resolved to the object it
documents, and a public name has an entry when its own object is documented,
under its own path or under another public path (``ksvm.SoftMarginSVC`` is
documented as ``ksvm.smo.SoftMarginSVC``).  A constant (a number, a string) is
matched by its path only, since two constants may be the same object by chance.

When the book is built, its inventory (``_build/html/objects.inv``) is checked the
same way, so a directive that Sphinx could not document also fails.

``python tests/test_api_reference.py`` prints the public names that have no entry.
"""

import contextlib
import importlib
import inspect
import json
import pkgutil
import re
from pathlib import Path

import pytest

import ksvm

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "book").glob("api*.md"))
INVENTORY = ROOT / "_build" / "html" / "objects.inv"

DIRECTIVE = re.compile(
    r"^\.\. (py:module|py:currentmodule|autofunction|autoclass|autodata)::\s*(\S+)"
)


def public_modules():
    """``ksvm`` and every submodule of it whose dotted name has no private part."""
    names = ["ksvm"]
    for info in pkgutil.walk_packages(ksvm.__path__, "ksvm."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return [importlib.import_module(name) for name in names]


def public_names():
    """``{dotted path: object}`` of every name in a public module's ``__all__``."""
    names = {}
    for module in public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not inspect.ismodule(obj):
                names[f"{module.__name__}.{name}"] = obj
    return names


def resolve(path):
    """The object at a dotted path, importing the longest module prefix."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(path)


def entries(text):
    """The dotted paths that the directives of one reference page document."""
    found, module = [], None
    for line in text.splitlines():
        match = DIRECTIVE.match(line.strip())
        if not match:
            continue
        directive, name = match.groups()
        if directive in ("py:module", "py:currentmodule"):
            module = name
        else:
            found.append(name if name.startswith("ksvm.") else f"{module}.{name}")
    return found


def _is_constant(obj):
    return isinstance(obj, (bool, int, float, complex, str, bytes, tuple, type(None)))


def missing(public, documented):
    """The public paths whose object no documented path gives.

    ``public`` and ``documented`` map dotted paths to objects.
    """
    by_identity = {id(obj) for obj in documented.values()}
    return sorted(
        path
        for path, obj in public.items()
        if path not in documented and (_is_constant(obj) or id(obj) not in by_identity)
    )


def documented_in_pages(pages=PAGES):
    return {path: resolve(path) for page in pages for path in entries(page.read_text())}


def test_the_reference_has_pages_and_entries():
    assert PAGES, "no book/api*.md"
    assert len(documented_in_pages()) >= 100


def test_every_entry_is_documented_once():
    paths = [path for page in PAGES for path in entries(page.read_text())]
    twice = sorted({path for path in paths if paths.count(path) > 1})
    assert not twice, f"documented twice (Sphinx would warn): {twice}"


def test_every_public_name_has_an_entry():
    absent = missing(public_names(), documented_in_pages())
    assert not absent, "public names with no entry in book/api*.md:\n" + "\n".join(absent)


@pytest.mark.skipif(not INVENTORY.exists(), reason="the book is not built (README command one)")
def test_every_public_name_is_in_the_built_inventory():
    from sphinx.util.inventory import InventoryFile

    with INVENTORY.open("rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    paths = {
        name
        for role in ("py:function", "py:class", "py:data", "py:method")
        for name in inventory.get(role, {})
        if name.startswith("ksvm.")
    }
    documented = {}
    for path in paths:
        with contextlib.suppress(ImportError, AttributeError):
            documented[path] = resolve(path)
    absent = missing(public_names(), documented)
    assert not absent, "public names not in _build/html/objects.inv:\n" + "\n".join(absent)


def test_the_check_sees_a_name_with_no_entry():
    """The check is not vacuous: a page without one entry, or a new name, is caught."""
    public = public_names()
    documented = documented_in_pages()
    del documented["ksvm.smo.smo"]
    assert "ksvm.smo.smo" in missing(public, documented)
    public["ksvm.smo.smo_new"] = lambda: None
    assert "ksvm.smo.smo_new" in missing(public, documented_in_pages())
    # an alias is accepted through its object, a constant only through its own path
    assert "ksvm.SoftMarginSVC" not in missing(public, documented_in_pages())
    assert missing({"ksvm.x.ONE": 1.5}, {"ksvm.y.ONE": 1.5}) == ["ksvm.x.ONE"]


if __name__ == "__main__":
    absent = missing(public_names(), documented_in_pages())
    print("\n".join(absent) or "every public name has an entry")


# The chapters link the package's names to their entries: in every chapter, the first
# mention of a documented class or function of ksvm in a Markdown cell is a role
# ({py:class}`~ksvm.smo.SoftMarginSVC`), not plain code (`SoftMarginSVC`).  Headings,
# directive lines (an exercise's title) and math are left alone.

# any role, so that {doc}`weighted_ascent` (a chapter) is not read as the function
CODE_SPAN = re.compile(r"(\{[\w:.-]+\})?`([^`\n]+)`")
ROLE_TARGET = re.compile(r"^~?(?:[^<]*<)?([\w.]+)>?$")
SKIPPED_LINE = ("#", "```", ":::", ":")


def _documented_paths():
    """``{id(object): documented path}`` of the classes, functions and modules."""
    paths = {id(obj): path for path, obj in documented_in_pages().items()}
    for module in public_modules():
        paths[id(module)] = module.__name__
    return paths


def _library_names():
    """``{short or dotted name: object}`` that a chapter may write in backticks."""
    names = {}
    for path, obj in sorted(public_names().items(), key=lambda item: -len(item[0])):
        if path.startswith("ksvm.book") or _is_constant(obj) or not callable(obj):
            continue
        names[path] = obj
        # a short name means the plain library's object, not the Dask module's one
        if "dask" not in path:
            names[path.rsplit(".", 1)[1]] = obj
    for module in public_modules()[1:]:  # not ksvm itself, which every chapter names
        if not module.__name__.startswith("ksvm.book"):
            names[module.__name__] = module
    return names


def markdown_mentions(nb, names):
    """``(cell, line, start, end, text, object, linked)`` of each mention, in order."""
    for c, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        in_math = False
        for i, line in enumerate(cell["source"]):
            if line.count("$$") % 2:
                in_math = not in_math
            if in_math or "$$" in line or line.lstrip().startswith(SKIPPED_LINE):
                continue
            for match in CODE_SPAN.finditer(line):
                if line[: match.start()].count("$") % 2:
                    continue  # inside inline math
                role, text = match.groups()
                if role and not role.startswith("{py:"):
                    continue  # a chapter, a glossary term, a citation: not a name of ksvm
                if role:
                    target = ROLE_TARGET.match(text)
                    name = target.group(1) if target else None
                else:
                    name = text.removesuffix("()")
                if name in names:
                    yield c, i, match.start(), match.end(), text, names[name], bool(role)


def unlinked_first_mentions(nb, names):
    """The names whose first mention in a chapter is plain code, not a role."""
    seen, unlinked = set(), []
    for *_, text, obj, linked in markdown_mentions(nb, names):
        if id(obj) not in seen:
            seen.add(id(obj))
            if not linked:
                unlinked.append(text)
    return unlinked


CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_links_its_first_mention_of_a_name(path):
    nb = json.loads(path.read_text())
    unlinked = unlinked_first_mentions(nb, _library_names())
    assert not unlinked, f"first mentioned as plain code, not linked to the API page: {unlinked}"


def test_the_link_check_sees_a_plain_first_mention():
    names = _library_names()
    cell = {"cell_type": "markdown", "source": []}
    cell["source"] = ["`SoftMarginSVC` fits, as {py:class}`~ksvm.smo.SoftMarginSVC` says.\n"]
    assert unlinked_first_mentions({"cells": [cell]}, names) == ["SoftMarginSVC"]
    cell["source"] = ["{py:class}`~ksvm.smo.SoftMarginSVC` fits; `ksvm.SoftMarginSVC` too.\n"]
    assert unlinked_first_mentions({"cells": [cell]}, names) == []
    cell["source"] = ["## `smo` in a heading\n", "$x$ and `smo(K, y)` are not a name\n"]
    assert unlinked_first_mentions({"cells": [cell]}, names) == []
    # a chapter named like a function is a chapter; the function's first mention follows
    cell["source"] = ["{doc}`weighted_ascent` runs `weighted_ascent`.\n"]
    assert unlinked_first_mentions({"cells": [cell]}, names) == ["weighted_ascent"]
