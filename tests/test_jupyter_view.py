"""A chapter opened in Jupyter reads like its page.

JupyterLab ignores the book's cell tags; it folds a cell's source or outputs by
``metadata.jupyter.source_hidden`` / ``outputs_hidden``, which ``tools/fold_hidden_cells.py``
writes from the tags.  And each explorer is one output whose MIME bundle the book and
JupyterLab each render once (``ksvm.book.explore.Explorer.show``).  Reading the
notebooks' JSON only, these tests take well under a second.
"""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _tool():
    spec = importlib.util.spec_from_file_location(
        "fold_hidden_cells", ROOT / "tools" / "fold_hidden_cells.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fold_hidden_cells = _tool()


def _first_line(cell):
    return "".join(cell["source"]).strip().split("\n")[0][:60]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_cells_the_book_hides_are_folded_in_jupyter(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    wrong = [
        f"{path.stem}, cell {i} ({_first_line(nb['cells'][i])!r}): "
        f"jupyter metadata sets {sorted(found) or 'nothing'}, its tags ask for "
        f"{sorted(expected) or 'nothing'}"
        for i, expected, found in fold_hidden_cells.disagreements(nb)
    ]
    assert not wrong, "\n".join(wrong) + "\nrun `python tools/fold_hidden_cells.py` to fold them"


def _previews_a_listing(source):
    """True when a cell's first line calls listing() or getsource: JupyterLab previews the
    first line of a folded cell, so the folded cell would still show the call."""
    first = source.lstrip().split("\n")[0]
    return "listing(" in first or "getsource" in first


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_folded_listing_does_not_preview_its_call(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    wrong = [
        f"{path.stem}, cell {i}: {_first_line(cell)!r}"
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "code" and _previews_a_listing("".join(cell["source"]))
    ]
    assert not wrong, (
        "JupyterLab shows the first line of a folded cell; start these with a comment "
        "that says what the page shows:\n" + "\n".join(wrong)
    )


def test_the_preview_check_sees():
    assert _previews_a_listing("listing(ksvm.smo.smo)")
    assert _previews_a_listing("src = inspect.getsource(f).splitlines()")
    assert not _previews_a_listing("# the source of ksvm.smo.smo\nlisting(ksvm.smo.smo)")


def test_the_rule_folds_what_the_book_hides():
    assert fold_hidden_cells.folds(["remove-cell"]) == {"source_hidden", "outputs_hidden"}
    assert fold_hidden_cells.folds(["hide-cell", "nbval-ignore-output"]) == {
        "source_hidden",
        "outputs_hidden",
    }
    assert fold_hidden_cells.folds(["hide-input"]) == {"source_hidden"}
    assert fold_hidden_cells.folds(["remove-input", "hide-output"]) == {
        "source_hidden",
        "outputs_hidden",
    }
    assert fold_hidden_cells.folds(["nbval-ignore-output"]) == set()


def test_the_tool_is_idempotent_and_touches_only_the_folding():
    cells = [
        {"cell_type": "code", "metadata": {"tags": ["hide-input"], "x": 1}, "source": []},
        {"cell_type": "code", "metadata": {"jupyter": {"source_hidden": True}}, "source": []},
        {"cell_type": "code", "metadata": {"jupyter": {"outputs_hidden": False, "o": 2}}},
        {"cell_type": "markdown", "metadata": {"tags": ["remove-cell"]}, "source": []},
    ]
    nb = {"cells": cells}
    assert len(fold_hidden_cells.disagreements(nb)) == 4
    assert fold_hidden_cells.fold(nb) == 4
    assert [c["metadata"] for c in nb["cells"]] == [
        {"tags": ["hide-input"], "x": 1, "jupyter": {"source_hidden": True}},
        {},
        {"jupyter": {"o": 2}},
        {"tags": ["remove-cell"], "jupyter": {"outputs_hidden": True, "source_hidden": True}},
    ]
    assert fold_hidden_cells.disagreements(nb) == []
    assert fold_hidden_cells.fold(nb) == 0


def _explorer_chapters():
    return [p for p in CHAPTERS if "ksvm-explorer-data" in p.read_text(encoding="utf-8")]


def test_six_chapters_have_explorers():
    assert len(_explorer_chapters()) >= 6


@pytest.mark.parametrize("path", _explorer_chapters(), ids=lambda p: p.stem)
def test_each_explorer_is_one_output_the_book_and_jupyter_each_render_once(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    outputs = [
        (i, out)
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "code"
        for out in cell["outputs"]
        if "ksvm-explorer-data" in "".join(out.get("data", {}).get("text/html", ""))
        or WIDGET_VIEW in out.get("data", {})
    ]
    assert outputs, f"{path.stem}: no explorer output"
    for i, out in outputs:
        data = out["data"]
        cell = nb["cells"][i]
        where = f"{path.stem}, cell {i}"
        # one bundle: the live widget for JupyterLab, the frames for the book
        assert WIDGET_VIEW in data and "ksvm-explorer-data" in "".join(data["text/html"]), (
            f"{where}: an explorer output without both the live widget and the frames; "
            "display it with explorer.show()"
        )
        tags = set(cell["metadata"].get("tags", []))
        assert "remove-input" in tags and not tags & {"remove-cell", "remove-output"}, (
            f"{where}: the explorer's cell must show its output and hide its source"
        )
    assert len({i for i, _ in outputs}) == len(outputs), f"{path.stem}: two explorers in a cell"


def test_the_book_drops_the_widget_view_so_that_it_shows_the_frames():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    overrides = config.get("nb_mime_priority_overrides", [])
    assert ["*", WIDGET_VIEW, None] in [list(o) for o in overrides]
