"""The letters a chapter writes in its math, as the notation table names them.

``book/notation.yml`` gives every letter of the book one meaning.  This module reads
a chapter's markdown up to its "Notes on the sources" (where the sources' own letters
belong), finds its math (``$...$``, ``$$...$$`` and amsmath environments) and reduces
each formula to its letters: Greek letters, Latin letters, and calligraphic and
blackboard capitals.  Words set with ``\\text``, ``\\mathrm`` or ``\\operatorname``
are not letters; decorations (``\\hat``, ``\\bar``, ``\\tilde``), bold type, subscripts
and superscripts do not make a new letter.

``python tests/notation.py`` prints, for every chapter, the letters it uses that the
table does not allow there.
"""

import json
import re
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
TABLE = BOOK / "notation.yml"

GREEK = set(
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "varepsilon",
        "zeta",
        "eta",
        "theta",
        "vartheta",
        "iota",
        "kappa",
        "lambda",
        "mu",
        "nu",
        "xi",
        "omicron",
        "pi",
        "varpi",
        "rho",
        "varrho",
        "sigma",
        "varsigma",
        "tau",
        "upsilon",
        "phi",
        "varphi",
        "chi",
        "psi",
        "omega",
        "Gamma",
        "Delta",
        "Theta",
        "Lambda",
        "Xi",
        "Pi",
        "Sigma",
        "Upsilon",
        "Phi",
        "Psi",
        "Omega",
        "ell",
    ]
)
# Two spellings of one letter: the table writes the first.
VARIANTS = {
    r"\phi": r"\varphi",
    r"\epsilon": r"\varepsilon",
    r"\vartheta": r"\theta",
    r"\varrho": r"\rho",
    r"\varsigma": r"\sigma",
    r"\varpi": r"\pi",
}
# Commands whose argument is a word, not letters.
WORDS = r"text|mathrm|operatorname|textrm|mbox|textbf|textit|texttt|mathtt|label|tag|mathsf"
NOTES = re.compile(r"^## Notes on the sources", re.M)

# Notations the book does not use, with what it writes instead.
BANNED = [
    (
        re.compile(
            r"(?<=[A-Za-z\]}])\^\s*\{?\s*[tT]\s*\}?(?![A-Za-z])|\)\^\s*\{?\s*T\s*\}?(?![A-Za-z])"
        ),
        r"a transpose is written ^\top, not ^t or ^T",
    ),
    (
        re.compile(r"(?<![\\A-Za-z])[A-Za-z]'\s*(?:[A-Za-z]|\\(?!prime|quad|qquad|,|;))"),
        r"a transpose is written ^\top, not with a prime (w'x); a second point is z",
    ),
    (re.compile(r"\\mathbf\s*\{\s*e\s*\}"), r"the vector of ones is \mathbf{1}"),
]


def load_table(path=TABLE):
    """The notation table: {symbol: entry}, and the list of entries in order."""
    data = yaml.safe_load(Path(path).read_text())
    entries = data["symbols"]
    return {e["symbol"]: e for e in entries}, entries


def markdown_cells(path):
    return [
        "".join(c["source"])
        for c in json.loads(Path(path).read_text())["cells"]
        if c["cell_type"] == "markdown"
    ]


def main_text(path):
    """A chapter's markdown up to its "Notes on the sources"."""
    text = "\n\n".join(markdown_cells(path))
    found = NOTES.search(text)
    return text[: found.start()] if found else text


FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(.*)$")


def without_code(text):
    """A markdown text without its code fences, and the bodies of its ``{math}`` directives.

    A fence that opens a directive (```` ```{prf:proof} ````, ``:::{note}``) keeps its body,
    which is markdown; a fence that opens code (```` ```python ````, a bare ```` ``` ````)
    drops it. A fence closes on a bare fence of the same character and at least its length.
    """
    kept, display, stack = [], [], []  # stack: (fence, kind) with kind "code", "math" or "markdown"
    for line in text.splitlines():
        m = FENCE.match(line)
        if m:
            fence, info = m.groups()
            top = stack[-1] if stack else None
            if top and not info and fence[0] == top[0][0] and len(fence) >= len(top[0]):
                stack.pop()
                continue
            if not (top and top[1] in ("code", "math")):
                directive = re.match(r"\{([\w:-]+)\}", info)
                kind = "markdown" if directive else "code"
                if directive and directive.group(1) == "math":
                    kind = "math"
                stack.append((fence, kind))
                continue
        kinds = {kind for _, kind in stack}
        if "code" in kinds:
            continue
        if "math" in kinds:
            if not line.lstrip().startswith(":"):  # a directive's options are not math
                display.append(line)
            continue
        kept.append(line)
    return "\n".join(kept), "\n".join(display)


def math_segments(text):
    """The formulas of a markdown text, without code spans and code fences."""
    text, display = without_code(text)
    text = re.sub(r"``[^`]+``|`[^`\n]+`", " ", text)
    segments = [display] if display.strip() else []

    def take(match):
        segments.append(match.group(match.lastindex))
        return " "

    text = re.sub(r"\$\$(.+?)\$\$", take, text, flags=re.S)
    text = re.sub(
        r"\\begin\{(align\*?|equation\*?|gather\*?|multline\*?)\}(.+?)\\end\{\1\}",
        take,
        text,
        flags=re.S,
    )
    re.sub(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$", take, text, flags=re.S)
    return segments


def letters(formula):
    """The letters of one formula, each as the table writes it."""
    s = re.sub(r"\\(?:" + WORDS + r")\s*\{[^{}]*\}", " ", formula)
    s = re.sub(r"\\(?:begin|end)\s*\{[^}]*\}", " ", s)
    s = re.sub(r"\\(?:mathcal|mathscr)\s*\{?\s*([A-Za-z])\s*\}?", r" CAL\1 ", s)
    s = re.sub(r"\\mathbb\s*\{?\s*([A-Za-z])\s*\}?", r" BB\1 ", s)
    found = []
    for m in re.finditer(r"\\([A-Za-z]+)|CAL([A-Za-z])|BB([A-Za-z])|([A-Za-z])", s):
        command, cal, bb, plain = m.groups()
        if command:
            if command in GREEK:
                name = "\\" + command
                found.append(VARIANTS.get(name, name))
        elif cal:
            found.append(r"\mathcal{" + cal + "}")
        elif bb:
            found.append(r"\mathbb{" + bb + "}")
        else:
            found.append(plain)
    return found


def chapter_letters(path):
    """Counter of the letters of a chapter's main text."""
    counts = Counter()
    for formula in math_segments(main_text(path)):
        counts.update(letters(formula))
    return counts


def banned_notations(path):
    """(notation, reason) for every banned notation in a chapter's main text."""
    found = []
    for formula in math_segments(main_text(path)):
        # a Greek letter to a power t (Gamma^t) is not a transpose
        formula = re.sub(
            r"\\(?:" + "|".join(sorted(GREEK, key=len, reverse=True)) + r")(?![A-Za-z])",
            "§",
            formula,
        )
        for pattern, reason in BANNED:
            for m in pattern.finditer(formula):
                found.append(
                    (formula[max(0, m.start() - 15) : m.end() + 15].replace("\n", " "), reason)
                )
    return found


def misused(name, counts, table):
    """The letters of chapter ``name`` that the table does not allow there."""
    wrong = {}
    for letter, count in counts.items():
        entry = table.get(letter)
        if entry is None:
            wrong[letter] = f"not in book/notation.yml ({count} uses)"
        elif entry["scope"] != "book" and name not in entry["scope"]:
            wrong[letter] = (
                f"reserved for {', '.join(entry['scope'])}: {entry['meaning']} ({count} uses)"
            )
    return wrong


def pages():
    """The notebooks of the book whose math is checked (all but the notation page)."""
    return sorted(p for p in BOOK.glob("*.ipynb") if p.stem != "notation")


if __name__ == "__main__":
    table, _ = load_table()
    for path in pages():
        wrong = misused(path.stem, chapter_letters(path), table)
        banned = banned_notations(path)
        print(
            f"{path.stem}: {len(wrong)} letters outside the table, {len(banned)} banned notations"
        )
        for letter, why in sorted(wrong.items()):
            print(f"    {letter:14s} {why}")
        for where, why in banned[:8]:
            print(f"    ...{where}...  ({why})")
