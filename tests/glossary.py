"""The glossary's terms, and where a chapter uses each one first.

``book/glossary.md`` holds one ``{glossary}`` directive: an entry is one or more term lines
followed by an indented definition.  A chapter links a term with ``{term}`text <term>```
where it first uses it; :func:`occurrences` finds, in a chapter's markdown, every use of
every term in running text (not in math, code, headings, directive lines, links or other
roles), the longest term winning where two overlap ("kernel trick" over "kernel").

``python -m tests.glossary CHAPTER ...`` links the first use of every term in those
chapters; ``tests/test_glossary.py`` checks that every chapter does.
"""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
GLOSSARY = BOOK / "glossary.md"

# Forms a term takes in running text besides the term itself and its plural.
ALIASES = {
    "positive semidefinite": [r"positive[ \t\n-]+semi-?definite"],
    "hyper-parameter": [r"hyper-?parameters?"],
    "KKT conditions": [r"KKT[ \t\n]+conditions?"],
    "Newton's method": [r"Newton's[ \t\n]+method"],
    "Lagrangian SVM": [r"Lagrangian[ \t\n]+SVMs?"],
    "Platt scaling": [r"Platt's[ \t\n]+sigmoid"],
}

# Spans that are not running text: math, code, roles, links, labels, HTML.
NOT_PROSE = re.compile(
    r"\$\$.*?\$\$|\$[^$]+?\$|\\begin\{(\w+\*?)\}.*?\\end\{\1\}"
    r"|\{[\w:-]+\}`[^`]*`|``[^`]*``|`[^`\n]*`"
    r"|!?\[[^\]]*\]\([^)]*\)|<[^>\n]+>|^\([^\n]*\)=[ \t]*$|^#+ [^\n]*$|^[ \t]*:[\w-]+:[^\n]*$",
    re.S | re.M,
)
FENCE = re.compile(r"^[ \t]*(`{3,}|:{3,})(.*)$", re.M)
TERM_ROLE = re.compile(r"\{term\}`(?:[^`<]*<([^>`]+)>|([^`]+))`")


def entries():
    """The glossary's entries, each the list of its terms (the first is the main one)."""
    text = GLOSSARY.read_text()
    body = re.search(r"^```\{glossary\}\n(.*?)^```", text, re.S | re.M).group(1)
    found, current, in_definition = [], [], False
    for line in body.splitlines():
        if not line.strip():
            continue
        if line[0].isspace():
            in_definition = True
            continue
        if in_definition or not current:
            current = []
            found.append(current)
            in_definition = False
        current.append(line.strip())
    return found


def _pattern(term):
    if term.isupper():  # an acronym: its case matters
        return rf"\b{re.escape(term)}s?\b"
    words = [re.escape(w).replace("iz", "i[sz]") for w in re.split(r"[ -]", term)]
    words[-1] += "(?:s|es)?"
    return r"(?i:\b" + r"[ \t\n-]+".join(words) + r"\b)"


def patterns():
    """(entry's main term, compiled pattern of one of its forms), longest form first."""
    forms = []
    for entry in entries():
        for term in entry:
            forms.append((len(term), entry[0], _pattern(term)))
        for alias in ALIASES.get(entry[0], []):
            forms.append((len(entry[0]) + 1, entry[0], rf"(?i:\b{alias}\b)"))
    forms.sort(key=lambda f: -f[0])
    return [(main, re.compile(p)) for _, main, p in forms]


def masked(text):
    """The text with everything that is not running text blanked (offsets kept)."""
    out = list(text)

    def blank(start, end):
        for i in range(start, end):
            if out[i] != "\n":
                out[i] = "\0"

    # A directive's fences are blanked line by line, a code block (a fence that opens no
    # directive) with everything inside it.
    fences = list(FENCE.finditer(text))
    open_directives = []
    i = 0
    while i < len(fences):
        fence = fences[i]
        marker, rest = fence.group(1), fence.group(2).strip()
        blank(fence.start(), fence.end())
        i += 1
        if rest.startswith("{"):
            open_directives.append(marker)
        elif not rest and open_directives and open_directives[-1][0] == marker[0]:
            open_directives.pop()
        elif marker[0] == "`":
            closing = next(
                (
                    j
                    for j in range(i, len(fences))
                    if fences[j].group(1) == marker and not fences[j].group(2).strip()
                ),
                None,
            )
            blank(fence.start(), len(text) if closing is None else fences[closing].end())
            i = len(fences) if closing is None else closing + 1
    for m in NOT_PROSE.finditer(text):
        blank(m.start(), m.end())
    return "".join(out)


def occurrences(cells, forms=None):
    """Every use of a term in running text: (cell, start, end, main term), in reading order."""
    forms = forms or patterns()
    found = []
    for c, text in enumerate(cells):
        free = list(masked(text))
        for main, pattern in forms:
            for m in pattern.finditer("".join(free)):
                found.append((c, m.start(), m.end(), main))
                free[m.start() : m.end()] = "\0" * (m.end() - m.start())
    return sorted(found)


def links(cells):
    """Every {term} link: (cell, start, main term as written in the link), in reading order."""
    return [
        (c, m.start(), (m.group(1) or m.group(2)).strip())
        for c, text in enumerate(cells)
        for m in TERM_ROLE.finditer(text)
    ]


def markdown_cells(nb):
    return ["".join(cell["source"]) for cell in nb["cells"] if cell["cell_type"] == "markdown"]


def unlinked_first_uses(cells):
    """The terms whose first use in these cells comes before any link to them."""
    first_link = {}
    for c, start, term in links(cells):
        first_link.setdefault(term.lower(), (c, start))
    late = []
    seen = set()
    for c, start, _end, main in occurrences(cells):
        if main in seen:
            continue
        seen.add(main)
        if first_link.get(main.lower(), (len(cells), 0)) > (c, start):
            late.append((main, c, start))
    return late


def link_first_uses(path):
    """Link the first use of every term in a notebook that is not linked yet."""
    nb = json.loads(path.read_text())
    md = [cell for cell in nb["cells"] if cell["cell_type"] == "markdown"]
    cells = markdown_cells(nb)
    # A link that comes after an earlier, unlinked use moves to that use.
    late = {term.lower() for term, _, _ in unlinked_first_uses(cells)}

    def unlink(m):
        target = (m.group(1) or m.group(2)).strip()
        if target.lower() not in late:
            return m.group(0)
        return m.group(0)[7:-1].split(" <")[0] if m.group(1) else m.group(2)

    cells = [TERM_ROLE.sub(unlink, text) for text in cells]
    linked = {term.lower() for _, _, term in links(cells)}
    edits = {}
    seen = set()
    for c, start, end, main in occurrences(cells):
        if main in seen:
            continue
        seen.add(main)
        if main.lower() in linked:
            continue
        edits.setdefault(c, []).append((start, end, main))
    for c, text in enumerate(cells):
        for start, end, main in sorted(edits.get(c, []), reverse=True):
            shown = re.sub(r"\s+", " ", text[start:end])
            role = f"{{term}}`{shown}`" if shown == main else f"{{term}}`{shown} <{main}>`"
            text = text[:start] + role + text[end:]
        lines = text.split("\n")
        md[c]["source"] = [line + "\n" for line in lines[:-1]] + [lines[-1]]
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return sum(len(s) for s in edits.values())


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(name, link_first_uses(BOOK / f"{name}.ipynb"))
