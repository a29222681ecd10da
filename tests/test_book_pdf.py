"""The PDF of the whole book (_build/html/ksvm-book.pdf) holds the book, typeset.

README command one makes it (tools/book_pdf.py prints the single-page HTML with
headless Chromium).  These tests read it with Debian's poppler-utils (pdfinfo,
pdftotext, pdfimages, pdftoppm); they are skipped, saying why, when the PDF has
not been made or the tools are missing.  Rendered pages are left in
_build/screenshots/pdf/ for a person to look at.
"""

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "_build" / "html" / "ksvm-book.pdf"
SHOTS = ROOT / "_build" / "screenshots" / "pdf"

pytestmark = [
    pytest.mark.slow,  # reads and renders a 19 MB PDF: left out by `pytest -m "not slow"`
    pytest.mark.skipif(
        not PDF.is_file(),
        reason="the PDF is not made; run README command one (it ends with tools/book_pdf.py)",
    ),
    pytest.mark.skipif(
        any(
            shutil.which(tool) is None for tool in ("pdfinfo", "pdftotext", "pdfimages", "pdftoppm")
        ),
        reason="Debian's poppler-utils (pdftotext, pdftoppm) is not installed",
    ),
]

# TeX that the text of a typeset page must not show: math delimiters (a formula
# MathJax never saw) and the names of math commands (a formula it failed on, or a
# title whose math lost its delimiters on the way into a link).  Backslashes in code
# ("\n", "\s") are not math commands.
TEX = re.compile(
    r"\\[()\[\]]|\$\$|\\begin\{|\\end\{"
    r"|\\(?:frac|sum|sqrt|mathbf|mathrm|mathbb|boldsymbol|left|right|top|cdot|le|ge|leq|geq"
    r"|alpha|beta|gamma|delta|epsilon|varepsilon|lambda|mu|nu|xi|rho|sigma|tau|phi|Phi"
    r"|psi|omega|Omega|Lambda|Sigma|Gamma|tag|label|text|operatorname|lVert|rVert|langle"
    r"|rangle|infty|partial|nabla|in|notin|times|quad|qquad|hat|tilde|bar|mathcal)\b"
)

# Raw TeX that the HTML book shows too, so it is not the printing's doing; each is
# for the chapter that holds it to fix, and then to leave this list.
# Text that looks like TeX but is not math left untypeset (none at present).
KNOWN_RAW_TEX = set()


def poppler(*args):
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=300).stdout


@pytest.fixture(scope="module")
def pages():
    """The text of each page."""
    return poppler("pdftotext", "-enc", "UTF-8", str(PDF), "-").split("\f")[:-1]


def chapters():
    """The documents of the table of contents, in order, with their titles."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for p in toc["parts"] for c in p["chapters"]]
    # The general index is a page that Sphinx generates for the HTML book only (its
    # entries link to places in the HTML pages); the PDF has its outline instead.
    files = [f for f in files if f != "genindex"]
    titles = []
    for file in files:
        path = ROOT / f"{file}.ipynb"
        if path.exists():
            cells = json.loads(path.read_text())["cells"]
            text = "".join(
                "".join(c["source"]) + "\n" for c in cells if c["cell_type"] == "markdown"
            )
        else:
            text = (ROOT / f"{file}.md").read_text()
        title = re.search(r"^# (.+)$", text, re.MULTILINE).group(1)
        titles.append((file, title))
    return titles


def test_the_pdf_is_a_whole_book_of_a4_pages(pages):
    info = poppler("pdfinfo", str(PDF))
    n_pages = int(re.search(r"^Pages:\s+(\d+)", info, re.MULTILINE).group(1))
    assert len(pages) == n_pages
    # every chapter opens a page of its own and runs to several pages: far fewer
    # pages means chapters are missing, far more that the print stylesheet is not used
    assert 8 * len(chapters()) <= n_pages <= 1200, n_pages
    width, height = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info).groups())
    assert (round(width), round(height)) == (595, 842), "the print stylesheet asks for A4"


def test_the_pdf_opens_on_a_title_page(pages):
    """Page one: the title, the authors, the version and the licences; then the preface."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    first = " ".join(pages[0].split())
    for shown in (
        " ".join(config["title"].split()),
        config["author"],
        f"Version {version}, ",
        "licensed under CC BY 4.0",
        "under the BSD 3-Clause licence",
        "CITATION.cff",
    ):
        assert shown in first, f"the first page does not show {shown!r}: {first[:300]!r}"
    assert "Preface" not in first
    assert pages[1].lstrip().startswith("Preface"), pages[1][:200]


def test_every_chapter_is_in_the_pdf_in_order(pages):
    """Each chapter's title opens a page (after the table of contents), in the book's order."""
    text_pages = [" ".join(p.replace("\u2019", "'").split()) for p in pages]
    last = 0
    for file, title in chapters()[1:]:
        words = " ".join(re.sub(r"\$[^$]*\$", "", title).split()[:3])
        found = [i for i, p in enumerate(text_pages) if i > last and words in p[:200]]
        assert found, f"{file}: no page after page {last + 1} opens with {words!r}"
        last = found[0]


def test_no_raw_tex_in_the_text(pages):
    unknown = []
    for number, page in enumerate(pages, start=1):
        for line in page.splitlines():
            if TEX.search(line) and not any(known in line for known in KNOWN_RAW_TEX):
                unknown.append(f"page {number}: {line.strip()[:120]}")
    assert not unknown, "raw TeX in the PDF's text:\n" + "\n".join(unknown[:30])


def test_the_figures_are_in_the_pdf_and_render(pages):
    from PIL import Image, ImageStat

    listing = poppler("pdfimages", "-list", str(PDF)).splitlines()[2:]
    with_images = sorted({int(row.split()[0]) for row in listing})
    # a caption starts a line with its label; a reference in the text rarely does
    captions = re.compile(r"^Fig\. \d+\.\d+ [A-Z]", re.MULTILINE)
    figure_pages = [i for i, p in enumerate(pages, start=1) if captions.search(p)]
    assert len(listing) >= 30, f"only {len(listing)} images in the PDF"
    # a page whose text has a figure caption holds that figure (or the one before it)
    missing = [n for n in figure_pages if n not in with_images and n - 1 not in with_images]
    assert not missing, f"pages with a caption and no picture: {missing[:20]}"

    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in SHOTS.glob("page-*.png"):
        old.unlink()
    step = max(1, len(with_images) // 6)
    for number in [1, *with_images[::step]]:
        prefix = SHOTS / f"page-{number:03d}"
        poppler(
            "pdftoppm",
            "-png",
            "-r",
            "50",
            "-singlefile",
            "-f",
            str(number),
            "-l",
            str(number),
            str(PDF),
            str(prefix),
        )
        with Image.open(f"{prefix}.png") as im:
            grey = im.convert("L")
            assert max(ImageStat.Stat(grey).stddev) > 10, f"page {number} renders blank"
            # the sidebars are gone: the left fifth of the page is white but for figures
            # and text that start at the margin, never a full-height column
            left = grey.crop((0, 0, grey.width // 12, grey.height))
            assert ImageStat.Stat(left).mean[0] > 240, (
                f"page {number} has something down its left edge"
            )
