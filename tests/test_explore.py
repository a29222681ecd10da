"""ksvm.book.explore: the live widget and the HTML frames show what the drawing function draws."""

import base64
import io
import json
import re
import shutil
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest

from ksvm.book.explore import Explorer

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def draw_line(fig, slope, shift):
    ax = fig.add_subplot()
    x = np.linspace(-1, 1, 5)
    ax.plot(x, slope * x + shift)
    ax.set_ylim(-4, 4)
    return {"slope": slope, "value at 1": slope + shift}


@pytest.fixture
def explorer():
    return Explorer(draw_line, {"slope": [-1.0, 0.0, 2.0], "shift": [0, 1]}, caption="a line")


def test_render_draws_and_returns_the_numbers(explorer):
    import matplotlib.pyplot as plt

    fig, numbers = explorer.render(slope=2.0, shift=1)
    assert numbers == {"slope": 2.0, "value at 1": 3.0}
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), 2.0 * np.linspace(-1, 1, 5) + 1)
    plt.close(fig)
    assert explorer.start == {"slope": 0.0, "shift": 1}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(params={}), "at least one parameter"),
        (dict(params={"a": []}), "has no values"),
        (dict(params={"a": [1, 2]}, start={"a": 3}), "not one of its values"),
        (dict(params={"a": [1, 2]}, start={"b": 1}), "does not have"),
        (dict(params={"a": [1, 2]}, stepper="k"), "is not a parameter"),
    ],
)
def test_bad_explorers_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Explorer(draw_line, caption="x", **kwargs)


def test_the_widget_redraws_when_a_slider_moves(explorer):
    box = explorer.widget()
    first = box.picture.value
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert "slope = 0" in box.numbers.value
    box.sliders["slope"].value = 2.0
    assert box.numbers.value == "slope = 2,  value at 1 = 3"
    assert box.picture.value != first


def test_the_step_button_advances_the_stepper():
    ex = Explorer(
        lambda fig, k: {"k": k}, {"k": list(range(4))}, start={"k": 0}, caption="steps", stepper="k"
    )
    box = ex.widget()
    for expected in (1, 2, 3, 3):  # stops at the last step
        box.button.click()
        assert box.sliders["k"].value == expected
    assert box.numbers.value == "k = 3"


def test_the_html_frames_are_the_drawings_in_the_order_the_sliders_select(explorer):
    page = explorer.frames_html()
    assert page.n_frames == 6 and page.n_bytes == len(page.page)
    data = json.loads(re.search(r'class="ksvm-explorer-data">(.*?)</script>', page.page).group(1))
    assert data["sizes"] == [3, 2]
    for i, slope in enumerate([-1.0, 0.0, 2.0]):
        for j, shift in enumerate([0, 1]):
            k = i * 2 + j  # what the page's script computes from the two sliders
            assert data["texts"][k] == Explorer.describe(
                {"slope": slope, "value at 1": slope + shift}
            )
            png = base64.b64decode(data["images"][k].split(",", 1)[1])
            assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(set(data["images"])) == 6, "every frame is a different picture"
    assert not re.findall(r'(?:src|href)="(?!data:)', page.page), "nothing is fetched"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_a_browser_moving_the_sliders_sees_the_picture_change(explorer, tmp_path):
    still = Explorer(draw_line, {"slope": [1.0], "shift": [0]}, caption="one frame")
    page = tmp_path / "page.html"
    page.write_text(
        f"<html><body>{explorer.frames_html().page}{still.frames_html().page}</body></html>"
    )
    command = [
        "chromium",
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=5000",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        "--dump-dom",
        page.as_uri() + "#ksvm-explorer-selftest",
    ]
    dom = subprocess.run(command, capture_output=True, text=True, timeout=120).stdout
    assert dom.count('data-selftest="changed"') == 1  # the explorer with six frames
    assert dom.count('data-selftest="unchanged"') == 1  # the one with a single frame


def test_the_live_picture_is_drawn_at_twice_the_size_it_is_shown(explorer):
    # Left to the VBox, JupyterLab stretched the picture to the output area's width and
    # blurred it; its CSS width is the figure's size at the frames' dpi, and it holds
    # LIVE_PIXEL_RATIO times as many pixels.
    from PIL import Image

    from ksvm.book.explore import LIVE_PIXEL_RATIO

    box = explorer.widget()
    shown = int(explorer.figsize[0] * explorer.dpi)  # the frames' width, 460 px
    assert box.picture.layout.width == f"{shown}px"
    width, height = Image.open(io.BytesIO(box.picture.value)).size
    assert abs(width - LIVE_PIXEL_RATIO * shown) <= 1  # matplotlib truncates 921.6 to 921
    assert abs(height - LIVE_PIXEL_RATIO * explorer.figsize[1] * explorer.dpi) <= 1
    assert LIVE_PIXEL_RATIO >= 2


def test_show_is_one_output_with_the_live_widget_and_the_frames(explorer):
    view = explorer.show(live=True)
    bundle = view._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", WIDGET_VIEW}
    assert bundle["text/html"] == explorer.frames_html().page
    assert bundle[WIDGET_VIEW]["model_id"] == view.widget.model_id
    assert view.widget.picture.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert bundle["text/plain"].startswith("<explorer: 6 frames")
    # IPython's formatter, which a kernel uses, sends exactly this bundle
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(view)
    assert data[WIDGET_VIEW] == bundle[WIDGET_VIEW] and data["text/html"] == bundle["text/html"]


def test_without_a_kernel_show_holds_the_frames_alone(explorer, monkeypatch):
    # pytest runs no Jupyter kernel: by default the view has no widget to display
    view = explorer.show()
    assert view.widget is None
    assert set(view._repr_mimebundle_()) == {"text/plain", "text/html"}
    # nor where ipywidgets is missing, even in a kernel
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    assert explorer.show().widget is None


def test_a_closed_widget_leaves_the_frames():
    ex = Explorer(draw_line, {"slope": [1.0, 2.0], "shift": [0]}, caption="closed")
    view = ex.show(live=True)
    view.widget.close()
    assert WIDGET_VIEW not in view._repr_mimebundle_()
