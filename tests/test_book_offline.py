"""The built book reads offline: no remote assets, math typeset by the shipped MathJax.

These tests look at the HTML that `jupyter-book build .` wrote to _build/html
(README command one); they are skipped, saying so, when the book has not been
built.  The rendering test also needs Debian's `chromium` (which `.ci/run`
installs); it runs the browser in an empty network namespace when it may
(`unshare -n`), and otherwise with every host name unresolvable and a dead
proxy, so that any asset fetched from the internet would be missing.
Screenshots are left in _build/screenshots/ for a person to look at.
"""

import functools
import html
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from book_pdf import OFFLINE_CHROMIUM_FLAGS  # noqa: E402  (the PDF is printed by the same browser)

HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"

# Every test here reads the built book, most of them through a browser: seconds each,
# so `pytest -m "not slow"` leaves them out.
pytestmark = pytest.mark.slow

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
def test_every_page_states_the_licences():
    # The footer (html.extra_footer in _config.yml) is what lets a reader reuse a chapter:
    # it must be under every page of the book, naming both licences and linking them.
    pages = [p for p in built_pages() if p.parent.name == "book"]
    assert len(pages) >= len(chapter_pages())
    missing = [
        str(path.relative_to(HTML))
        for path in pages
        if not all(
            needle in path.read_text(errors="replace")
            for needle in (
                'class="ksvm-licence"',
                'href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>',
                "BSD 3-Clause licence",
            )
        )
    ]
    assert not missing, "pages without the licence footer:\n" + "\n".join(missing)


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
    """Run headless Chromium with no network; return its stdout.

    Each run has a profile of its own: pytest-xdist's workers run browsers side by side, and
    two Chromiums on one profile directory fight over its lock (one was seen to die of
    SIGSEGV).  A browser killed by a signal is run once more; a second death, or any exit
    code, fails with what both runs printed.
    """
    unshare = shutil.which("unshare") and (
        subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    )
    failures = []
    for _ in range(2):
        with tempfile.TemporaryDirectory(prefix="ksvm-chromium-") as profile:
            command = [
                shutil.which("chromium"),
                *OFFLINE_CHROMIUM_FLAGS,  # a second lock on the door, after the empty namespace
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                "--virtual-time-budget=15000",
                *args,
                url,
            ]
            if unshare:
                command = ["unshare", "-n", *command]
            result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if result.returncode == 0:
            return result.stdout
        failures.append(f"exit code {result.returncode}:\n{result.stderr[-2000:]}")
        if result.returncode > 0:
            break
    raise AssertionError("\n\n".join(failures))


@needs_build
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
@pytest.mark.parametrize("page", [p.stem for p in chapter_pages()])
def test_chapter_renders_offline_with_math_and_figures(page):
    from PIL import Image, ImageStat

    path = HTML / "book" / f"{page}.html"
    dom = probed_dom(page)

    # every piece of math was typeset by MathJax (CHTML output) ...
    n_math = len(re.findall(r'class="math[ "]', path.read_text()))
    n_typeset = dom.count("<mjx-container")
    assert n_math > 0, "a chapter without math?"
    assert n_typeset >= n_math, f"{n_typeset} typeset of {n_math} math elements"
    untypeset = re.findall(r'class="math[^"]*">\s*(?:\\\(|\\\[|\$)', dom)
    assert not untypeset, f"{len(untypeset)} math elements still hold raw TeX"
    # ... without an error (MathJax shows its message in place of the formula)
    errors = re.findall(r'<mjx-merror[^>]*data-mjx-error="([^"]*)"', dom)
    assert not errors, f"MathJax errors: {errors[:5]}"

    # ... and every image is a local file that decodes as a picture
    sources = re.findall(r'<img\b[^>]*\bsrc="([^"]+)"', dom)
    figures = [s for s in sources if "_images/" in s]
    assert figures or not stores_figures(page), "the notebook stores figures, the page shows none"
    for src in figures:
        image_path = (path.parent / src).resolve()
        assert image_path.is_file(), src
        with Image.open(image_path) as im:
            assert min(im.size) > 50, (src, im.size)

    # a screenshot for people to look at, taken in the same run; it must not be blank
    shot = SHOTS / f"{page}.png"
    with Image.open(io.BytesIO(shot.read_bytes())) as im:
        assert max(ImageStat.Stat(im.convert("L")).stddev) > 10


def dom_with_probe(path, script, *args):
    """The DOM of a built page, with ``script`` added before </body>, after it has run.

    The probe runs in a copy beside the page, so that its relative links to _static/
    still resolve; the copy is removed afterwards.
    """
    SHOTS.mkdir(parents=True, exist_ok=True)
    probe = path.with_name(f"__probe_{path.name}")
    probe.write_text(path.read_text().replace("</body>", script + "</body>", 1))
    try:
        return run_offline_browser(probe.as_uri(), "--dump-dom", *args)
    finally:
        probe.unlink()


@functools.cache
def probed_dom(page):
    """The DOM of a chapter after one offline load with every probe of this file: MathJax's
    output, the widths (WIDTH_PROBE) and, on a page with an explorer, its sliders moved
    (SLIDER_PROBE), with a screenshot of the page left in SHOTS.  One browser run serves every
    test of the page (each run costs seconds)."""
    probes = WIDTH_PROBE + (SLIDER_PROBE if page in explorer_pages() else "")
    (SHOTS / f"{page}.png").unlink(missing_ok=True)  # not last run's
    shot = f"--screenshot={SHOTS / f'{page}.png'}"
    return dom_with_probe(HTML / "book" / f"{page}.html", probes, WIDTH_PROBE_WINDOW, shot)


@functools.cache
def explorer_pages():
    """The chapters whose stored outputs hold an explorer's HTML slider (read once: every
    chapter's probe asks)."""
    return tuple(
        nb.stem
        for nb in sorted((ROOT / "book").glob("*.ipynb"))
        if "ksvm-explorer-data" in nb.read_text()
    )


def test_the_book_has_six_explorers():
    count = sum(
        (ROOT / "book" / f"{p}.ipynb").read_text().count("ksvm-explorer-data")
        for p in explorer_pages()
    )
    assert count >= 6, f"{count} explorers in the chapters"


# Measures, once MathJax has typeset the page, every display equation, code cell
# and printed output of the article; one that is wider than its box scrolls
# sideways or is cut off.  Folded parts (dropdowns, toggled cells) are reported
# apart: the reader opens those on purpose.
WIDTH_PROBE = """<script>
window.addEventListener("load", function () {
  var measure = function () {
    var out = [];
    document.querySelectorAll(
      "article mjx-container[display='true'], article div.cell_input pre, article .cell_output pre"
    ).forEach(function (el) {
      var folded = el.closest("details, .toggle-hidden, .dropdown") !== null;
      var w = el.scrollWidth;
      var c = el.tagName === "PRE" ? el.clientWidth : el.parentElement.clientWidth;
      if (w > c + 2) out.push({folded: folded, tag: el.tagName, width: w, box: c,
                               text: el.textContent.slice(0, 70).replace(/\\s+/g, " ")});
    });
    document.body.setAttribute("data-too-wide", JSON.stringify(out));
  };
  if (window.MathJax && MathJax.startup && MathJax.startup.promise)
    MathJax.startup.promise.then(function () { setTimeout(measure, 500); });
  else setTimeout(measure, 3000);
});
</script>"""

# A 1280-pixel window less a classic 15-pixel scrollbar, which --hide-scrollbars
# would otherwise give back to the article column.
WIDTH_PROBE_WINDOW = "--window-size=1265,1000"


@needs_build
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
@pytest.mark.parametrize("page", explorer_pages())
def test_every_explorer_slider_moves_its_picture_offline(page):
    # A script added to a copy of the page moves each slider of each explorer on its
    # own, through the page's own handlers, and records whether the picture changed;
    # the browser has no network.
    path = HTML / "book" / f"{page}.html"
    expected = path.read_text().count('class="ksvm-explorer"')
    assert expected >= 1, "the notebook holds an explorer, the page shows none"
    dom = probed_dom(page)
    match = re.search(r'data-sliders="([^"]*)"', dom)
    assert match, "the slider probe did not report"
    moved = json.loads(html.unescape(match.group(1)))
    assert len(moved) == expected, f"{len(moved)} of {expected} explorers found"
    still = [
        f"explorer {i}, slider {name}"
        for i, row in enumerate(moved)
        for name, ok in row.items()
        if not ok
    ]
    assert all(moved) and not still, f"sliders that did not change the picture: {still}"


SLIDER_PROBE = """<script>
window.addEventListener("load", function () {
  var report = [];
  document.querySelectorAll(".ksvm-explorer").forEach(function (root) {
    var img = root.querySelector("img"), row = {};
    root.querySelectorAll("input[type=range]").forEach(function (s) {
      var start = s.value, before = img.src;
      s.value = Number(start) === Number(s.max) ? s.min : s.max;
      s.dispatchEvent(new Event("input"));
      row[s.parentElement.firstChild.textContent.trim()] = img.src !== before;
      s.value = start;
      s.dispatchEvent(new Event("input"));
    });
    report.push(row);
  });
  document.body.setAttribute("data-sliders", JSON.stringify(report));
});
</script>"""


@needs_build
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
@pytest.mark.parametrize("page", [p.stem for p in chapter_pages()])
def test_no_visible_equation_code_or_output_is_wider_than_the_page(page):
    dom = probed_dom(page)
    match = re.search(r'data-too-wide="([^"]*)"', dom)
    assert match, "the width probe did not report (MathJax never finished?)"
    visible = [e for e in json.loads(html.unescape(match.group(1))) if not e["folded"]]
    assert not visible, f"{len(visible)} visible element(s) wider than the article:\n" + "\n".join(
        f"  {e['tag']} {e['width']}px in {e['box']}px: {e['text']}" for e in visible
    )
