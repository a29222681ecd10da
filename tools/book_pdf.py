"""Print the whole book to one PDF, _build/html/ksvm-book.pdf, beside the HTML book.

Run from the repository root after the HTML build (README command one does both):

    python tools/book_pdf.py

It does two things:

1. builds the book as one HTML page (Sphinx's ``singlehtml`` builder, through
   jupyter-book, as strict as the HTML build: ``-W -n --keep-going``) into
   ``_build/singlehtml``; it reuses the doctrees of the HTML build, so it only
   writes;
2. prints that page with headless Chromium, with the network cut as in
   ``tests/test_book_offline.py``, so that the math is typeset by the MathJax
   shipped with the book and nothing is fetched.  The print stylesheet (the
   ``@media print`` block of ``_static/ksvm.css``) hides the sidebars, the
   buttons and the explorers' sliders: an explorer prints its first frame.

The PDF opens on a title page (:func:`title_page`): the book's title and authors from
``_config.yml``, the version from ``pyproject.toml``, the date of the last commit, and
the licence statement that the HTML book shows under every page (``html.extra_footer``).

The PDF lands in ``_build/html`` so that the front page links to it by a plain
relative link.

This module is also a Sphinx extension (``_config.yml``, ``sphinx.local_extensions``):
see :func:`setup`.
"""

import argparse
import datetime
import html
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"

# Headless Chromium that fetches nothing: no name resolves and every proxy is dead,
# so a remote asset would be missing.  The offline tests of the book use the same.
OFFLINE_CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=http://127.0.0.1:9",
]
SINGLE = BUILD / "singlehtml"
PDF = BUILD / "html" / "ksvm-book.pdf"


# --- the Sphinx extension ------------------------------------------------------------


def _give_singlehtml_the_html_handlers(app):
    """Let the singlehtml writer render every node the html writer renders.

    Sphinx looks up an extension's node handlers under the builder's name and only
    falls back to its format ("html") when no extension registered any under that
    name.  sphinx-exercise registers its nodes for ``singlehtml`` by name, so the
    fallback never happens and myst-nb's folded cells (``HideCodeCellNode``) and
    every other html-only node stop the build with "unknown node type"
    (jupyter-book issue 2322).  Copying the html handlers that singlehtml lacks
    restores the fallback.
    """
    handlers = app.registry.translation_handlers
    if app.builder.name != "singlehtml" or "singlehtml" not in handlers:
        return
    for node, visit_depart in handlers.get("html", {}).items():
        handlers["singlehtml"].setdefault(node, visit_depart)


def setup(app):
    app.connect("builder-inited", _give_singlehtml_the_html_handlers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# --- the PDF ---------------------------------------------------------------------------


def build_single_page():
    # the jupyter-book installed beside this Python (the book's virtual environment)
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    command = [
        str(jupyter_book) if jupyter_book.exists() else "jupyter-book",
        "build",
        ".",
        "--builder",
        "singlehtml",
        "-W",
        "-n",
        "--keep-going",
    ]
    print("+ jupyter-book", " ".join(command[1:]), flush=True)
    result = subprocess.run(command, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(f"the single-page build failed (exit status {result.returncode}); see above")
    return page_at_the_root()


def page_at_the_root():
    """The single page, written where its links expect it to be.

    The book's root document is book/preface, so Sphinx writes the single page to
    _build/singlehtml/book/preface.html, but writes its links as if the page sat at
    the top of _build/singlehtml (``_static/...``, ``_images/...``,
    ``book/preface.html#anchor``).  A copy at the top, with the links to itself made
    in-page anchors, loads its stylesheets, MathJax and figures, and its
    cross-references become links inside the PDF.
    """
    written = SINGLE / "book" / "preface.html"
    if not written.is_file():
        sys.exit(f"{written.relative_to(ROOT)} is missing: build the single page first")
    text = re.sub(r'href="book/preface\.html(?=[#"])', 'href="', written.read_text())
    text = with_title_page(text)
    page = SINGLE / "ksvm-book.html"
    page.write_text(text)
    return page


# The title page fills the first sheet alone.  The theme prints the first page's title
# as a header of its own (#jb-print-docs-body) and hides the title in the page itself;
# with a title page that header goes and the preface's title is shown again.
TITLE_PAGE_STYLE = """
<style>
  .ksvm-title-page { display: none; }
  @page :first {
    @bottom-center { content: none; }
  }
  @media print {
    #jb-print-docs-body { display: none !important; }
    .bd-main .bd-content .bd-article h1:first-of-type { display: block; }
    .ksvm-title-page {
      display: block;
      break-after: page;
      padding-top: 60mm;
      text-align: center;
      color: #000;
    }
    .ksvm-title-page .ksvm-book-title { font-size: 2.6em; font-weight: 500; margin: 0 0 12mm; }
    .ksvm-title-page .ksvm-book-authors { font-size: 1.5em; margin: 0 0 6mm; }
    .ksvm-title-page .ksvm-book-version { font-size: 1.1em; margin: 0 0 70mm; }
    .ksvm-title-page .ksvm-licence { font-size: 0.95em; text-align: left; margin: 0 0 3mm; }
    .ksvm-title-page .ksvm-cite { font-size: 0.95em; text-align: left; }
  }
</style>
"""


def release_date():
    """The date of the last commit (so that the PDF of one commit is the same on every
    build), or today's where the book is not a git checkout."""
    result = subprocess.run(
        ["git", "log", "-1", "--format=%cs"], cwd=ROOT, capture_output=True, text=True
    )
    if result.returncode == 0 and result.stdout.strip():
        return datetime.date.fromisoformat(result.stdout.strip())
    return datetime.date.today()


def title_page():
    """The HTML of the PDF's first page: title, authors, version and date, licences."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    date = release_date()
    return (
        '<section class="ksvm-title-page">\n'
        f'<p class="ksvm-book-title">{html.escape(config["title"])}</p>\n'
        f'<p class="ksvm-book-authors">{html.escape(config["author"])}</p>\n'
        f'<p class="ksvm-book-version">Version {html.escape(version)}, '
        f"{date.day} {date:%B %Y}</p>\n"
        f"{config['html']['extra_footer']}\n"
        f'<p class="ksvm-licence">Copyright {html.escape(str(config["copyright"]))}, '
        f"{html.escape(config['author'])}.</p>\n"
        '<p class="ksvm-cite">To cite the book or the package, see <code>CITATION.cff</code>; '
        "the licences are <code>LICENSE-TEXT</code> (CC BY 4.0) and <code>LICENSE</code> "
        "(BSD 3-Clause) in the repository.</p>\n"
        "</section>\n"
    )


def with_title_page(text):
    """The single page with a title page before the preface."""
    article = '<article class="bd-article">'
    if text.count(article) != 1 or text.count("</head>") != 1:
        sys.exit("the single page does not have the theme's layout: no place for a title page")
    text = text.replace("</head>", TITLE_PAGE_STYLE + "</head>")
    return text.replace(article, article + "\n" + title_page())


def chromium_command(page, pdf, budget_ms):
    """Headless Chromium printing page to pdf, with no network (as the offline test)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit(
            "tools/book_pdf.py prints the book with headless Chromium, which is not installed.\n"
            "Install Debian's chromium (apt-get install chromium) and run it again;\n"
            "the HTML book in _build/html is built and complete without it."
        )
    command = [
        chromium,
        *OFFLINE_CHROMIUM_FLAGS,
        f"--user-data-dir={BUILD / 'chromium-profile'}",
        # time for MathJax to typeset every formula before the page is printed
        f"--virtual-time-budget={budget_ms}",
        "--run-all-compositor-stages-before-draw",
        "--no-pdf-header-footer",
        # bookmarks from the headings: chapters and sections in the reader's outline
        "--generate-pdf-document-outline",
        f"--print-to-pdf={pdf}",
        page.as_uri(),
    ]
    # and, where we may, an empty network namespace
    if (
        shutil.which("unshare")
        and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    ):
        command = ["unshare", "-n", *command]
    return command


def print_to_pdf(page, pdf, budget_ms):
    pdf.parent.mkdir(parents=True, exist_ok=True)
    partial = pdf.with_suffix(".partial.pdf")
    partial.unlink(missing_ok=True)
    command = chromium_command(page, partial, budget_ms)
    print("+ chromium --headless --print-to-pdf", partial.relative_to(ROOT), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0 or not partial.is_file() or partial.stat().st_size == 0:
        sys.exit(
            f"Chromium did not print the book (exit status {result.returncode}):\n"
            + result.stderr[-3000:]
        )
    partial.replace(pdf)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--skip-build",
        action="store_true",
        help="print the existing _build/singlehtml without rebuilding it",
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=60_000,
        help="Chromium's virtual time budget in ms (default: %(default)s)",
    )
    args = parser.parse_args(argv)

    start = time.perf_counter()
    page = page_at_the_root() if args.skip_build else build_single_page()
    built = time.perf_counter()
    print_to_pdf(page, PDF, args.budget)
    done = time.perf_counter()
    print(
        f"The book as a PDF: {PDF.relative_to(ROOT)} ({PDF.stat().st_size / 1e6:.1f} MB; "
        f"single page {built - start:.0f} s, printing {done - built:.0f} s)"
    )


if __name__ == "__main__":
    main()
