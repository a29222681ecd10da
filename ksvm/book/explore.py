"""Figures a reader can move: live in Jupyter, a slider over precomputed frames in HTML.

An :class:`Explorer` is a drawing function and a grid of parameter values.  It
shows itself two ways, from the same drawing function, so the two cannot disagree:

* :meth:`Explorer.widget` gives ipywidgets controls (one slider per parameter, a
  "step" button for a stepper) that redraw the figure in a running kernel;
* :meth:`Explorer.frames_html` draws every combination of the grid once, when
  the chapter is executed, and returns a self-contained piece of HTML: the frames
  as inline PNG images, one range input per parameter and ten lines of inline
  JavaScript that show the frame the sliders select.  It needs no kernel, no
  network and nothing from a CDN, so it works in the built book and offline.

A chapter displays both at once with :meth:`Explorer.show`: one output whose MIME
bundle holds the live widget's view and the frames' HTML.  JupyterLab renders the
richest type it can, the live widget; the book's configuration (``_config.yml``,
``nb_mime_priority_overrides``) drops the widget's type, so the built book shows
the frames.  A reader therefore sees each explorer once, wherever the chapter is read.

The drawing function takes a matplotlib ``Figure`` and one value per parameter,
draws, and returns the numbers it shows (a dict), which the page prints under the
figure and the tests compare with an independent computation.
"""

import base64
import html
import io
import itertools
import json
import uuid

import numpy as np

__all__ = ["Explorer", "ExplorerView", "FramesHTML"]

# The live picture is drawn at this multiple of the frames' resolution and shown at
# the frames' size, so that it stays sharp on screens of up to this device pixel ratio.
LIVE_PIXEL_RATIO = 2


class Explorer:
    """A figure driven by parameters, shown live (Jupyter) or as frames (HTML).

    Parameters
    ----------
    draw : callable ``draw(fig, **values) -> dict``
        Draws on an empty figure for one value of each parameter; returns the
        numbers it shows (names to floats, ints or short strings).
    params : dict of name -> sequence
        The values each parameter takes, in slider order (at least one value each).
    start : dict of name -> value, optional
        The values shown first; by default the middle of each grid.
    caption : str
        One line that says what to watch.
    figsize : (float, float), default=(6.4, 4.0)
    dpi : int, default=72
        Resolution of the HTML frames (the page weight grows with its square).
    stepper : str, optional
        The name of a parameter that counts steps: the widget gets a "step" button
        that advances it by one.
    palette : bool, default=False
        Store the HTML frames as 256-colour PNGs (no dithering): a third of the size
        of matplotlib's RGBA PNGs for a figure of many antialiased markers, with no
        visible change.  The live widget is unchanged.

    Raises
    ------
    ValueError
        If a parameter has no values or a start value is not on its grid.
    """

    def __init__(
        self,
        draw,
        params,
        *,
        caption,
        start=None,
        figsize=(6.4, 4.0),
        dpi=72,
        stepper=None,
        palette=False,
    ):
        if not callable(draw):
            raise ValueError("draw must be a function draw(fig, **values) -> dict.")
        if not params:
            raise ValueError("an explorer needs at least one parameter.")
        self.params = {name: list(values) for name, values in params.items()}
        for name, values in self.params.items():
            if not values:
                raise ValueError(f"the parameter {name!r} has no values.")
        start = dict(start or {})
        unknown = set(start) - set(self.params)
        if unknown:
            raise ValueError(
                f"start names parameters the explorer does not have: {sorted(unknown)}."
            )
        for name, value in start.items():
            if value not in self.params[name]:
                raise ValueError(f"the start value {value!r} of {name!r} is not one of its values.")
        if stepper is not None and stepper not in self.params:
            raise ValueError(f"the stepper {stepper!r} is not a parameter.")
        self.start = {
            name: start.get(name, values[len(values) // 2]) for name, values in self.params.items()
        }
        self.draw, self.caption, self.figsize, self.dpi, self.stepper = (
            draw,
            caption,
            figsize,
            dpi,
            stepper,
        )
        self.palette = palette
        self.shown = None  # the numbers of the last drawing

    # -- one drawing -------------------------------------------------------------------
    def render(self, **values):
        """Draw for ``values`` (missing ones take their start value).

        Returns
        -------
        fig : matplotlib Figure (not shown; the caller closes it)
        numbers : dict, what ``draw`` returned
        """
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=self.figsize)
        return fig, self._draw_on(fig, values)

    def _draw_on(self, fig, values):
        """Call ``draw`` on the empty figure ``fig``; return its numbers (closing ``fig`` on
        an error)."""
        import matplotlib.pyplot as plt

        values = {**self.start, **values}
        unknown = [name for name in values if name not in self.params]
        if unknown:
            plt.close(fig)
            raise ValueError(
                f"unknown parameter {unknown[0]!r}; the parameters are {list(self.params)}."
            )
        numbers = self.draw(fig, **values)
        if not isinstance(numbers, dict):
            plt.close(fig)
            raise ValueError("draw must return a dict of the numbers it shows.")
        self.shown = numbers
        return numbers

    @staticmethod
    def describe(numbers):
        """The numbers as one line of text: ``name = value`` joined by commas."""
        return ",  ".join(f"{k} = {_format(v)}" for k, v in numbers.items())

    # -- Jupyter -----------------------------------------------------------------------
    def widget(self):
        """ipywidgets controls and an output area that redraws on every change.

        Returns
        -------
        box : ipywidgets.VBox
            With attributes ``sliders`` (name -> SelectionSlider), ``picture``
            (an Image widget holding the figure as PNG), ``numbers`` (an HTML line
            of the numbers shown) and ``button`` (the step button of a stepper, or None).
        """
        import ipywidgets as widgets
        import matplotlib.pyplot as plt

        sliders = {
            name: widgets.SelectionSlider(
                options=[(_format(v), v) for v in values],
                value=self.start[name],
                description=name,
                continuous_update=False,
                style={"description_width": "initial"},
                layout=widgets.Layout(width="420px"),
            )
            for name, values in self.params.items()
        }
        # The picture's CSS width is fixed to the figure's size at ``dpi``: left free, the
        # VBox stretches the image to the width of the output area (about twice that in
        # JupyterLab) and the browser enlarges it, blurred.  It is drawn at
        # LIVE_PIXEL_RATIO times that size, so that each CSS pixel has that many pixels.
        width = int(self.figsize[0] * self.dpi)  # as matplotlib rounds the frames' width
        picture = widgets.Image(
            format="png", layout=widgets.Layout(width=f"{width}px", max_width="100%")
        )
        numbers = widgets.HTML()

        def redraw(_change=None):
            fig, shown = self.render(**{name: s.value for name, s in sliders.items()})
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=self.dpi * LIVE_PIXEL_RATIO)
            plt.close(fig)
            picture.value = buffer.getvalue()
            numbers.value = html.escape(self.describe(shown))

        for slider in sliders.values():
            slider.observe(redraw, names="value")
        controls = list(sliders.values())
        button = None
        if self.stepper is not None:
            button = widgets.Button(description="step", tooltip="one step forward")

            def step(_button):
                slider = sliders[self.stepper]
                k = self.params[self.stepper].index(slider.value)
                if k + 1 < len(self.params[self.stepper]):
                    slider.value = self.params[self.stepper][k + 1]

            button.on_click(step)
            controls.append(button)
        box = widgets.VBox([*controls, numbers, picture])
        box.sliders, box.picture, box.numbers, box.button = sliders, picture, numbers, button
        redraw()
        return box

    # -- both ------------------------------------------------------------------------
    def show(self, live=None):
        """The explorer as one output: the live widget where a kernel runs, and the frames.

        Parameters
        ----------
        live : bool, optional
            Whether to build the live widget.  By default, when ipywidgets can be
            imported and the code runs in a Jupyter kernel (which carries the widget's
            messages); otherwise the view holds the frames alone.

        Returns
        -------
        view : ExplorerView
            Displayed by IPython as one MIME bundle with the widget's view (if any),
            the frames' HTML and a line of text.
        """
        frames = self.frames_html()
        if live is None:
            live = _in_a_kernel_with_widgets()
        return ExplorerView(frames, self.widget() if live else None)

    # -- HTML --------------------------------------------------------------------------
    def frames(self):
        """Every combination of the grid drawn once: (values, PNG bytes, numbers) per frame.

        The frames are in row-major order of the grid (the last parameter varies fastest).
        """
        import matplotlib.pyplot as plt

        names = list(self.params)
        out = []
        # One figure, cleared between frames: its renderer, and the renderer's cache of
        # typeset math, serve every frame (a new figure typesets each label again).
        fig = plt.figure(figsize=self.figsize)
        try:
            for combo in itertools.product(*(self.params[n] for n in names)):
                values = dict(zip(names, combo, strict=True))
                fig.clear()
                numbers = self._draw_on(fig, values)
                buffer = io.BytesIO()
                fig.savefig(buffer, format="png", dpi=self.dpi)
                png = _palette_png(buffer.getvalue()) if self.palette else buffer.getvalue()
                out.append((values, png, numbers))
        finally:
            plt.close(fig)
        return out

    def frames_html(self):
        """A self-contained slider over the precomputed frames, as an HTML string.

        Returns
        -------
        page : FramesHTML
            Displays as HTML in Jupyter and in the built book; ``page.n_frames``
            and ``page.n_bytes`` say how many frames it holds and how large it is.
        """
        names = list(self.params)
        frames = self.frames()
        key = (
            "ksvm-explorer-"
            + uuid.uuid5(uuid.NAMESPACE_URL, self.caption + repr(self.params)).hex[:12]
        )
        images = [
            "data:image/png;base64," + base64.b64encode(png).decode("ascii") for _, png, _ in frames
        ]
        texts = [html.escape(self.describe(numbers)) for _, _, numbers in frames]
        sizes = [len(self.params[n]) for n in names]
        start = [self.params[n].index(self.start[n]) for n in names]
        first = int(np.ravel_multi_index(start, sizes))
        rows = []
        for i, name in enumerate(names):
            labels = json.dumps([_format(v) for v in self.params[name]])
            rows.append(
                f'<label style="display:block;margin:2px 0">{html.escape(name)} '
                f'<input type="range" min="0" max="{sizes[i] - 1}" step="1" value="{start[i]}" '
                f"data-labels='{html.escape(labels)}' style=\"width:60%;vertical-align:middle\"> "
                f"<output>{html.escape(_format(self.start[name]))}</output></label>"
            )
        page = (
            f'<figure class="ksvm-explorer" id="{key}" style="margin:1em 0">'
            f'<img src="{images[first]}" alt="{html.escape(self.caption)}" style="max-width:100%">'
            '<div class="ksvm-explorer-numbers" style="font-family:monospace;font-size:0.85em">'
            f"{texts[first]}</div>"
            + "".join(rows)
            + '<figcaption style="font-size:0.9em;color:#555">'
            f"{html.escape(self.caption)}</figcaption>"
            f'<script type="application/json" class="ksvm-explorer-data">'
            f"{json.dumps({'images': images, 'texts': texts, 'sizes': sizes})}</script>"
            "<script>(function(){"
            f'var root=document.getElementById("{key}");'
            'var data=JSON.parse(root.querySelector(".ksvm-explorer-data").textContent);'
            'var inputs=root.querySelectorAll("input[type=range]");'
            "function show(){var k=0;"
            "inputs.forEach(function(s,i){k=k*data.sizes[i]+Number(s.value);"
            "s.nextElementSibling.textContent=JSON.parse(s.dataset.labels)[Number(s.value)];});"
            'root.querySelector("img").src=data.images[k];'
            'root.querySelector(".ksvm-explorer-numbers").innerHTML=data.texts[k];}'
            'inputs.forEach(function(s){s.addEventListener("input",show);});'
            # a page opened with #ksvm-explorer-selftest moves every slider to its end and
            # records whether the picture changed: the book's browser test reads it
            'if(location.hash==="#ksvm-explorer-selftest"){var img=root.querySelector("img");'
            "var before=img.src;inputs.forEach(function(s){s.value=s.max;"
            's.dispatchEvent(new Event("input"));});'
            'root.dataset.selftest=img.src!==before?"changed":"unchanged";}'
            "})();</script></figure>"
        )
        return FramesHTML(page, len(frames), self.caption)


class FramesHTML:
    """The HTML of :meth:`Explorer.frames_html`, displayed as HTML by IPython."""

    def __init__(self, page, n_frames, caption):
        self.page, self.n_frames, self.caption = page, n_frames, caption
        self.n_bytes = len(page.encode("utf-8"))

    def _repr_html_(self):
        return self.page

    def __repr__(self):
        return f"<explorer: {self.n_frames} frames, {self.n_bytes / 1e3:.0f} kB: {self.caption}>"


class ExplorerView:
    """What :meth:`Explorer.show` returns: the frames and, optionally, the live widget.

    IPython displays it as one output whose MIME bundle holds
    ``application/vnd.jupyter.widget-view+json`` (the live widget, when there is one),
    ``text/html`` (the frames, exactly :meth:`Explorer.frames_html`'s page) and
    ``text/plain``.  A front end shows the richest type it can render: JupyterLab the
    widget, the built book (which drops the widget's type) the frames.

    Attributes
    ----------
    frames : FramesHTML
    widget : ipywidgets.VBox or None
        As :meth:`Explorer.widget` returns it, or None without a kernel.
    """

    WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

    def __init__(self, frames, widget=None):
        self.frames, self.widget = frames, widget

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": repr(self.frames), "text/html": self.frames.page}
        # ipywidgets replaces a closed widget's _repr_mimebundle_ by None
        widget_bundle = getattr(self.widget, "_repr_mimebundle_", None)
        view = (widget_bundle() or {}).get(self.WIDGET_VIEW) if callable(widget_bundle) else None
        if view is not None:
            bundle[self.WIDGET_VIEW] = view
        return bundle

    def __repr__(self):
        return repr(self.frames)


def _in_a_kernel_with_widgets():
    """Whether ipywidgets is importable and this code runs in a Jupyter kernel."""
    try:
        import ipywidgets  # noqa: F401
        from IPython import get_ipython
    except ImportError:
        return False
    return getattr(get_ipython(), "kernel", None) is not None


def _palette_png(png):
    """``png`` re-encoded with a 256-colour palette, without dithering."""
    from PIL import Image  # Pillow, a dependency of matplotlib

    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=256, dither=Image.Dither.NONE).save(out, format="png", optimize=True)
    return out.getvalue()


def _format(value):
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}"
    return str(value)
