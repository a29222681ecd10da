"""The built book reads offline: no remote assets, math typeset by the shipped MathJax.

These tests look at the HTML that `jupyter-book build .` wrote to _build/html
(README command one); they are skipped, saying so, when the book has not been
built.  The rendering test also needs Debian's `chromium` (which `.ci/run`
installs); it runs the browser in an empty network namespace when it may
(`unshare -n`), and otherwise with every host name unresolvable and a dead
proxy, so that any asset fetched from the internet would be missing.
Screenshots are left in _build/screenshots/ for a person to look at.
"""

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"

needs_build = pytest.mark.skipif(
    not (HTML / "index.html").exists(),
    reason="the book is not built; run README command one (jupyter-book build) first",
)

# Anything the browser would fetch by itself: scripts, stylesheets, images,
# fonts, frames.  Plain links (<a href="https://...">) are fine: a reader clicks them.
REMOTE_ASSET = re.compile(
    r"""<(?:script|img|iframe|source|embed)\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?//"""
    r"""|<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?//"""
    r"""|url\(\s*["']?(?:https?:)?//""",
    re.IGNORECASE,
)


def built_pages():
    return sorted(p for p in HTML.rglob("*.html") if "_static" not in p.parts)


def chapter_pages():
    """The pages made from notebooks in book/ (they hold the math and the figures)."""
    return [HTML / "book" / f"{nb.stem}.html" for nb in sorted((ROOT / "book").glob("*.ipynb"))]


def stores_figures(page):
    """Whether the notebook behind a page has image outputs (the exercise index has none)."""
    text = (ROOT / "book" / f"{page}.ipynb").read_text()
    return '"image/png"' in text or '"image/svg+xml"' in text


@needs_build
def test_no_page_or_stylesheet_fetches_a_remote_asset():
    offenders = []
    for path in built_pages() + sorted(HTML.rglob("*.css")):
        for match in REMOTE_ASSET.finditer(path.read_text(errors="replace")):
            offenders.append(f"{path.relative_to(HTML)}: {match.group(0)[:120]}")
    assert not offenders, "remote assets:\n" + "\n".join(offenders)


@needs_build
def test_mathjax_is_shipped_with_the_book():
    assert (HTML / "_static" / "mathjax" / "tex-chtml.js").stat().st_size > 100_000
    fonts = list((HTML / "_static" / "mathjax" / "output" / "chtml" / "fonts").rglob("*.woff"))
    assert len(fonts) > 10
    for page in chapter_pages():
        text = page.read_text()
        if 'class="math' in text:
            assert "_static/mathjax/tex-chtml.js" in text, page.name


def run_offline_browser(url, *args):
    """Run headless Chromium with no network; return its stdout."""
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={SHOTS / 'profile'}",
        "--virtual-time-budget=15000",
        # a second lock on the door: no name resolves and every proxy is dead
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        *args,
        url,
    ]
    command = [shutil.which("chromium"), *flags]
    if shutil.which("unshare") and subprocess.run(
        ["unshare", "-n", "true"], capture_output=True
    ).returncode == 0:
        command = ["unshare", "-n", *command]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@needs_build
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
@pytest.mark.parametrize("page", [p.stem for p in chapter_pages()])
def test_chapter_renders_offline_with_math_and_figures(page):
    from PIL import Image, ImageStat

    path = HTML / "book" / f"{page}.html"
    SHOTS.mkdir(parents=True, exist_ok=True)
    dom = run_offline_browser(path.as_uri(), "--dump-dom")

    # every piece of math was typeset by MathJax (CHTML output) ...
    n_math = len(re.findall(r'class="math[ "]', path.read_text()))
    n_typeset = dom.count("<mjx-container")
    assert n_math > 0, "a chapter without math?"
    assert n_typeset >= n_math, f"{n_typeset} typeset of {n_math} math elements"
    untypeset = re.findall(r'class="math[^"]*">\s*(?:\\\(|\\\[|\$)', dom)
    assert not untypeset, f"{len(untypeset)} math elements still hold raw TeX"

    # ... and every image is a local file that decodes as a picture
    sources = re.findall(r'<img\b[^>]*\bsrc="([^"]+)"', dom)
    figures = [s for s in sources if "_images/" in s]
    assert figures or not stores_figures(page), "the notebook stores figures, the page shows none"
    for src in figures:
        image_path = (path.parent / src).resolve()
        assert image_path.is_file(), src
        with Image.open(image_path) as im:
            assert min(im.size) > 50, (src, im.size)

    # a screenshot for people to look at; it must not be blank
    shot = SHOTS / f"{page}.png"
    run_offline_browser(path.as_uri(), f"--screenshot={shot}", "--window-size=1200,1600")
    with Image.open(io.BytesIO(shot.read_bytes())) as im:
        assert max(ImageStat.Stat(im.convert("L")).stddev) > 10


def explorer_pages():
    """The chapters whose stored outputs hold an explorer's HTML slider."""
    return [nb.stem for nb in sorted((ROOT / "book").glob("*.ipynb")) if "ksvm-explorer-data" in nb.read_text()]


def test_the_book_has_six_explorers():
    count = sum((ROOT / "book" / f"{p}.ipynb").read_text().count("ksvm-explorer-data") for p in explorer_pages())
    assert count >= 6, f"{count} explorers in the chapters"


@needs_build
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
@pytest.mark.parametrize("page", explorer_pages())
def test_every_explorer_slider_moves_its_picture_offline(page):
    # The page's own script, asked by the URL's fragment, moves every slider of every
    # explorer to its end and marks whether the picture changed; the browser has no network.
    path = HTML / "book" / f"{page}.html"
    expected = path.read_text().count('class="ksvm-explorer"')
    assert expected >= 1, "the notebook holds an explorer, the page shows none"
    dom = run_offline_browser(path.as_uri() + "#ksvm-explorer-selftest", "--dump-dom")
    changed, unchanged = dom.count('data-selftest="changed"'), dom.count('data-selftest="unchanged"')
    assert changed == expected, (
        f"{changed} of {expected} explorers changed their picture; {unchanged} did not"
    )
