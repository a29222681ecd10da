"""Fold in Jupyter the cells that the book hides, so that a chapter opened there reads like
its page.

Jupyter Book reads a cell's tags (``remove-cell``, ``hide-input``, ...); JupyterLab ignores
them and reads ``metadata.jupyter.source_hidden`` and ``metadata.jupyter.outputs_hidden``
instead, showing a folded part as a bar the reader clicks to expand.  This tool writes
those two keys from the tags, for every cell of the given notebooks:

* ``remove-cell``, ``hide-cell``: the source and the outputs folded;
* ``remove-input``, ``hide-input``: the source folded;
* ``remove-output``, ``hide-output``: the outputs folded;
* any other cell: neither key (an empty ``jupyter`` entry is dropped).

It touches nothing else, writes a notebook only if its metadata changes, in the
repository's format (``json.dumps(nb, indent=1, ensure_ascii=False)`` and a newline),
and is idempotent.  Run from the repository root::

    python tools/fold_hidden_cells.py            # every book/*.ipynb
    python tools/fold_hidden_cells.py --check    # list the cells that disagree; exit 1

``tests/test_jupyter_view.py`` fails when a chapter's cells disagree with their tags.
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FOLDS = {
    "remove-cell": ("source_hidden", "outputs_hidden"),
    "hide-cell": ("source_hidden", "outputs_hidden"),
    "remove-input": ("source_hidden",),
    "hide-input": ("source_hidden",),
    "remove-output": ("outputs_hidden",),
    "hide-output": ("outputs_hidden",),
}
KEYS = ("source_hidden", "outputs_hidden")


def folds(tags):
    """The set of ``jupyter`` keys that a cell with ``tags`` should set to true."""
    return {key for tag in tags for key in FOLDS.get(tag, ())}


def folded(cell):
    """The set of ``jupyter`` keys that ``cell`` sets to true."""
    jupyter = cell.get("metadata", {}).get("jupyter", {})
    return {key for key in KEYS if jupyter.get(key)}


def disagreements(nb):
    """``(index, expected, found)`` for every cell whose folding disagrees with its tags
    (expected and found as sets of keys; a key set to false counts as a disagreement)."""
    out = []
    for i, cell in enumerate(nb["cells"]):
        jupyter = cell.get("metadata", {}).get("jupyter", {})
        expected = folds(cell.get("metadata", {}).get("tags", []))
        present = {key for key in KEYS if key in jupyter}
        if folded(cell) != expected or present != expected:
            out.append((i, expected, present))
    return out


def fold(nb):
    """Set every cell's folding from its tags, in place; return how many cells changed."""
    changed = 0
    for cell in nb["cells"]:
        metadata = cell.setdefault("metadata", {})
        before = json.dumps(metadata, sort_keys=True)
        jupyter = dict(metadata.get("jupyter", {}))
        for key in KEYS:
            jupyter.pop(key, None)
        for key in sorted(folds(metadata.get("tags", []))):
            jupyter[key] = True
        if jupyter:
            metadata["jupyter"] = jupyter
        else:
            metadata.pop("jupyter", None)
        changed += json.dumps(metadata, sort_keys=True) != before
    return changed


def dumps(nb):
    """A notebook in the repository's format."""
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: book/*.ipynb")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "book").glob("*.ipynb"))
    status = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        nb = json.loads(text)
        if args.check:
            for i, expected, found in disagreements(nb):
                print(f"{path}: cell {i}: folds {sorted(found)}, its tags ask {sorted(expected)}")
                status = 1
            continue
        changed = fold(nb)
        if changed:
            path.write_text(dumps(nb), encoding="utf-8")
            print(f"{path}: {changed} cells folded or unfolded")
    return status


if __name__ == "__main__":
    sys.exit(main())
