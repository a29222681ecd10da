"""Explorers of the soft margin: C and the kernel's width, and SMO one pair at a time.

Two :class:`ksvm.book.explore.Explorer` objects, for the chapters ``kernel_svm`` and
``soft_margin``:

* :func:`make_soft_margin_explorer` fits the Gaussian-kernel SVM once for each
  point of a grid of ``C`` and ``gamma`` and draws the boundary ``f = 0``, the
  margins ``f = -1, +1``, the support vectors (ringed) and the points with a
  positive slack (crossed); it shows the number of support vectors, of margin
  violators and the training error;
* :func:`make_smo_stepper_explorer` runs SMO from scratch (:func:`smo_path`, ksvm's
  loop with the maximal violating pair, watched step by step) on a small linear problem and
  shows one frame per pair step: the current boundary, the pair that moved, and
  the dual objective and the KKT gap so far.
"""

from dataclasses import dataclass

import numpy as np

from ksvm.smo import GramRows, SoftMarginSVC, dual_objective, kkt_bias, run_smo

from ..explore import Explorer
from ..plotting import CLASS_COLORS, plot_classes, plot_decision

__all__ = [
    "SOFT_MARGIN_C",
    "SOFT_MARGIN_GAMMA",
    "SMOState",
    "SoftMarginFit",
    "fit_soft_margin",
    "make_smo_stepper_explorer",
    "make_soft_margin_explorer",
    "smo_path",
]

#: The grid of the soft-margin explorer: C from 0.01 to 100, about log-spaced, and gamma.
SOFT_MARGIN_C = (0.01, 0.05, 0.2, 1.0, 5.0, 20.0, 100.0)
SOFT_MARGIN_GAMMA = (1.0, 3.0, 10.0, 30.0, 100.0)

#: A slack below this counts as zero: SMO stops with the KKT conditions met to its
#: tolerance, so a point on its margin line has ``y f`` within about ``tol`` of 1.
SLACK_TOL = 1e-3


# -- the soft margin across C and gamma ----------------------------------------------------
@dataclass
class SoftMarginFit:
    """One fit of the Gaussian-kernel SVM and the numbers the explorer shows.

    Attributes
    ----------
    model : SoftMarginSVC
    decision : ndarray of shape (n,)
        ``f(x_i)`` on the training points.
    slack : ndarray of shape (n,)
        ``xi_i = max(0, 1 - y_i f(x_i))``.
    n_support : int
        Number of support vectors (``lambda_i > 0``).
    n_violators : int
        Number of margin violators, the points with ``xi_i > SLACK_TOL``: inside
        the margin or on the wrong side of the boundary.
    train_error : float
        Share of training points with ``sign f(x_i) != y_i``.
    """

    model: SoftMarginSVC
    decision: np.ndarray
    slack: np.ndarray
    n_support: int
    n_violators: int
    train_error: float

    def numbers(self):
        """The numbers the explorer shows, by name."""
        return {
            "support vectors": self.n_support,
            "margin violators": self.n_violators,
            "training error": f"{100 * self.train_error:.1f} %",
        }


def fit_soft_margin(X, y, C, gamma, *, tol=1e-5):
    """Fit ``SoftMarginSVC(kernel='rbf')`` and count what the soft-margin explorer shows.

    Parameters
    ----------
    X : array of shape (n, 2)
    y : array of shape (n,), labels in {-1, +1}
    C : float > 0
    gamma : float > 0
        Width of the Gaussian kernel ``exp(-gamma ||x - z||^2)``.
    tol : float > 0, default=1e-5
        SMO's tolerance; well below ``SLACK_TOL``, so that a point on its margin
        line is not counted as a violator.

    Returns
    -------
    fit : SoftMarginFit

    Raises
    ------
    ValueError
        If the labels are not -1 and +1 (or as ``SoftMarginSVC`` refuses the input).

    Examples
    --------
    >>> from ksvm.datasets import make_noisy_2d
    >>> X, y = make_noisy_2d(40, seed=0)
    >>> fit = fit_soft_margin(X, y, C=1.0, gamma=10.0)
    >>> fit.n_violators <= fit.n_support <= 40
    True
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if not np.all(np.isin(y, (-1, 1))):
        raise ValueError("the labels must be -1 and +1 (ksvm.datasets returns them so).")
    model = SoftMarginSVC(kernel="rbf", C=C, gamma=gamma, tol=tol).fit(X, y)
    f = model.decision_function(X)
    slack = np.maximum(0.0, 1.0 - y * f)
    return SoftMarginFit(
        model=model,
        decision=f,
        slack=slack,
        n_support=int(model.support_.size),
        n_violators=int(np.sum(slack > SLACK_TOL)),
        train_error=float(np.mean(np.where(f >= 0, 1, -1) != y)),
    )


def _levels_reached(f, box, resolution):
    """The levels -1, 0, +1 that ``f`` crosses on the grid ``plot_decision`` draws."""
    g = [np.linspace(box[0, k], box[1, k], resolution) for k in range(2)]
    g0, g1 = np.meshgrid(*g)
    values = f(np.column_stack([g0.ravel(), g1.ravel()]))
    return [v for v in (-1.0, 0.0, 1.0) if values.min() < v < values.max()], float(np.mean(values))


def _legend_handles(extra=()):
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], color="k", lw=1.3, label="$f = 0$"),
        Line2D([], [], color="k", lw=0.9, ls="--", label="$f = \\pm 1$"),
        Line2D([], [], ls="", marker="o", color=CLASS_COLORS[1], label="$y = +1$"),
        Line2D([], [], ls="", marker="s", color=CLASS_COLORS[-1], label="$y = -1$"),
        Line2D([], [], ls="", marker="o", ms=9, mfc="none", mec="k", label="support vector"),
    ]
    return handles + list(extra)


def _draw_plane(ax, f, X, y, box, support, resolution, size=10):
    """Levels of ``f``, the points and the rings, on the box; a constant f only shades."""
    levels, mean = _levels_reached(f, box, resolution)
    if levels:
        plot_decision(ax, f, box, levels=levels, resolution=resolution, pad=0.0)
    else:  # f keeps one sign (or is constant): shade the side it predicts
        if mean != 0:  # (f = 0 everywhere, as at lambda = 0 with b = 0, predicts neither side)
            ax.set_facecolor("#f6dcd9" if mean > 0 else "#dde7f3")
    plot_classes(ax, X, y, support=support, size=size, legend=False)
    ax.set(
        xlim=(box[0, 0], box[1, 0]),
        ylim=(box[0, 1], box[1, 1]),
        aspect="equal",
        xticks=[],
        yticks=[],
    )


def make_soft_margin_explorer(
    X,
    y,
    *,
    Cs=SOFT_MARGIN_C,
    gammas=SOFT_MARGIN_GAMMA,
    start=None,
    truth=None,
    resolution=100,
    caption="Watch the margin narrow and the support vectors and margin violators thin out as C "
    "grows; as gamma grows the boundary bends around single points.",
):
    """An explorer of the Gaussian-kernel soft margin over a grid of C and gamma.

    Each frame shows the decision regions, the boundary ``f = 0`` (solid), the
    margins ``f = -1, +1`` (dashed), the support vectors (ringed) and the points
    with a positive slack (crossed), and prints the number of support vectors,
    the number of margin violators and the training error.  Each grid point is
    fitted once, the first time it is drawn, and kept.

    Parameters
    ----------
    X : array of shape (n, 2)
    y : array of shape (n,), labels in {-1, +1}
    Cs, gammas : sequences of floats > 0
        The slider values (at most about 60 combinations for the HTML page).
    start : dict, optional
        The values shown first, e.g. ``{"C": 1.0, "gamma": 10.0}``.
    truth : callable, optional
        ``x_2 = truth(x_1)``, the true boundary, drawn dotted green.
    resolution : int, default=100
        Grid points per axis of the contour plot.
    caption : str
        The line that says what to watch.

    Returns
    -------
    explorer : Explorer
        Parameters ``C`` and ``gamma``; its attribute ``fits`` maps ``(C, gamma)``
        to the :class:`SoftMarginFit` of each grid point drawn so far.

    Raises
    ------
    ValueError
        If X is not a set of points in the plane or the labels are not -1 and +1.

    Examples
    --------
    >>> from ksvm.datasets import make_noisy_2d
    >>> X, y = make_noisy_2d(40, seed=0)
    >>> ex = make_soft_margin_explorer(X, y, Cs=[1.0, 10.0], gammas=[10.0])
    >>> fig, shown = ex.render(C=10.0)
    >>> sorted(shown)
    ['margin violators', 'support vectors', 'training error']
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X must have shape (n, 2) with one label per point, got {X.shape} and {y.shape}."
        )
    if not np.all(np.isin(y, (-1, 1))):
        raise ValueError("the labels must be -1 and +1 (ksvm.datasets returns them so).")
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.03 * (hi - lo)
    box = np.array([lo - pad, hi + pad])
    fits = {}

    def draw(fig, C, gamma):
        if (C, gamma) not in fits:
            fits[C, gamma] = fit_soft_margin(X, y, C, gamma)
        fit = fits[C, gamma]
        ax = fig.add_axes([0.02, 0.04, 0.6, 0.86])
        _draw_plane(ax, fit.model.decision_function, X, y, box, fit.model.support_, resolution)
        if truth is not None:
            x1 = np.linspace(box[0, 0], box[1, 0], 200)
            ax.plot(x1, truth(x1), color="tab:green", lw=1.2, ls=":")
        hit = fit.slack > SLACK_TOL
        crosses = ax.scatter(
            X[hit, 0], X[hit, 1], s=22, marker="x", c="k", linewidths=0.9, label="slack $\\xi > 0$"
        )
        ax.set_title(f"C = {C:g},  $\\gamma$ = {gamma:g}", fontsize=10)
        fig.legend(
            handles=_legend_handles([crosses]),
            loc="center left",
            bbox_to_anchor=(0.63, 0.5),
            fontsize=9,
            frameon=False,
        )
        return fit.numbers()

    if start is None:  # C = 1, gamma = 10 where the grid has them, else the middle
        start = {
            "C": 1.0 if 1.0 in Cs else list(Cs)[len(Cs) // 2],
            "gamma": 10.0 if 10.0 in gammas else list(gammas)[len(gammas) // 2],
        }
    explorer = Explorer(
        draw, {"C": list(Cs), "gamma": list(gammas)}, start=start, caption=caption, palette=True
    )
    explorer.fits = fits
    return explorer


# -- SMO, one pair at a time ----------------------------------------------------------------
@dataclass
class SMOState:
    """The multipliers after ``k`` pair steps of :func:`smo_path`.

    Attributes
    ----------
    k : int
        Number of steps taken.
    alpha : ndarray of shape (n,)
    b : float
        The bias from the KKT conditions (:func:`ksvm.smo.kkt_bias`).
    objective : float
        ``Theta(alpha)``.
    gap : float
        The KKT violation ``max_{I_up} F - min_{I_low} F`` (at most ``tol`` at the end).
    pair : tuple (i, j) or None
        The pair that step ``k`` moved (None for ``k = 0``).
    box : tuple (L, H) or None
        The interval that step ``k`` allowed for ``alpha_j``.
    """

    k: int
    alpha: np.ndarray
    b: float
    objective: float
    gap: float
    pair: tuple = None
    box: tuple = None


def smo_path(K, y, C, *, tol=1e-10, max_steps=40):
    """SMO from scratch with the maximal violating pair, keeping every step.

    The loop of the chapter ``soft_margin``: at ``alpha`` take ``i = argmax F``
    over ``I_up`` and ``j = argmin F`` over ``I_low`` (``F = y - K (alpha * y)``),
    stop if ``F_i - F_j <= tol``, otherwise maximise the dual along
    ``alpha_i += y_i t``, ``alpha_j -= y_j t`` with both multipliers kept in the box.
    The steps are ksvm's own (:func:`ksvm.smo.smo`'s loop, without shrinking), watched
    through its callback; each state's ``F``, gap, bias and objective are computed
    afresh from ``K``.

    Parameters
    ----------
    K : array of shape (n, n)
        Gram matrix.
    y : array of shape (n,), labels in {-1, +1}
    C : float > 0
    tol : float > 0, default=1e-10
    max_steps : int >= 0, default=40

    Returns
    -------
    path : list of SMOState
        ``path[k]`` after ``k`` steps; the last one has ``gap <= tol`` unless
        ``max_steps`` steps were taken first.

    Raises
    ------
    ValueError
        If the shapes do not match, the labels are not -1 and +1, or C, tol or
        max_steps are out of range.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> path = smo_path(X @ X.T + 1.0, [-1, -1, 1, 1], C=10.0)
    >>> np.round(path[-1].alpha, 6), round(path[-1].b, 6), path[1].pair
    (array([0. , 0.5, 0.5, 0. ]), -2.0, (2, 0))
    """
    K = np.asarray(K, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    if K.shape != (n, n):
        raise ValueError(f"K must be n x n for n = {n} labels, got shape {K.shape}.")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("the labels must be -1 and +1.")
    if not (C > 0 and tol > 0):
        raise ValueError(f"C and tol must be positive, got C={C!r}, tol={tol!r}.")
    if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 0:
        raise ValueError(f"max_steps must be a non-negative integer, got {max_steps!r}.")

    def state(k, lam, pair=None, box=None):
        F = y - K @ (lam * y)
        up = np.where(y > 0, lam < C, lam > 0)
        low = np.where(y > 0, lam > 0, lam < C)
        gap = float(np.max(F[up]) - np.min(F[low]))
        return SMOState(
            k, lam, kkt_bias(lam, F, C, up, low), dual_objective(lam, K, y), gap, pair, box
        )

    path = [state(0, np.zeros(n))]

    def record(step):
        i, j = step.i, step.j
        lam = path[-1].alpha.copy()
        if y[i] != y[j]:  # lam_i - lam_j is fixed: the box of alpha_j
            L, H = max(0.0, lam[j] - lam[i]), min(C, C + lam[j] - lam[i])
        else:  # lam_i + lam_j is fixed
            L, H = max(0.0, lam[i] + lam[j] - C), min(C, lam[i] + lam[j])
        lam[i], lam[j] = step.alpha_i, step.alpha_j
        path.append(state(step.n_iter, lam, (i, j), (float(L), float(H))))

    run_smo(
        GramRows(K),
        y,
        C,
        tol=tol,
        max_iter=max_steps,
        second_order=False,
        shrinking=False,
        callback=record,
    )
    return path


def _span(values):
    """Fixed axis limits over all the steps, so that the frames are comparable."""
    lo, hi = float(np.min(values)), float(np.max(values))
    margin = 0.06 * (hi - lo) if hi > lo else 1.0
    return lo - margin, hi + margin


def _mark_pair_step(ax, X, path, k):
    """Ring the pair that step ``k`` of ``path`` moved and title the panel with the move
    (at ``k = 0``, no pair: the start)."""
    state = path[k]
    if state.pair is None:
        ax.set_title("t = 0: all $\\alpha_i = 0$", fontsize=10)
        return
    i, j = state.pair
    ax.scatter(
        X[[i, j], 0],
        X[[i, j], 1],
        s=150,
        facecolors="none",
        edgecolors="gold",
        linewidths=2.2,
    )
    for m, name in ((i, "i"), (j, "j")):
        ax.annotate(
            name,
            X[m],
            xytext=(6, 4),
            textcoords="offset points",
            fontsize=11,
            weight="bold",
        )
    before = path[k - 1].alpha
    ax.set_title(
        f"step {k}: $\\alpha_i$ {before[i]:.3g}$\\to${state.alpha[i]:.3g}, "
        f"$\\alpha_j$ {before[j]:.3g}$\\to${state.alpha[j]:.3g}\n"
        f"box for $\\alpha_j$: [{state.box[0]:.3g}, {state.box[1]:.3g}]",
        fontsize=9,
    )


def _draw_smo_progress(fig, steps, objective, gap, k):
    """The right-hand panels: the dual objective (top) and the KKT gap (bottom) up to step
    ``k``, on axes fixed over all the steps."""
    top = fig.add_axes([0.62, 0.56, 0.36, 0.34])
    bottom = fig.add_axes([0.62, 0.12, 0.36, 0.34], sharex=top)
    top.plot(steps[: k + 1], objective[: k + 1], "o-", color="tab:green", ms=3)
    top.axhline(objective[-1], color="k", lw=0.7, ls=":")
    top.set_ylim(*_span(objective))
    top.set_ylabel("$-\\Psi(\\alpha)$", fontsize=9)
    top.tick_params(labelbottom=False, labelsize=8)
    bottom.plot(steps[: k + 1], gap[: k + 1], "o-", color="tab:purple", ms=3)
    bottom.axhline(0.0, color="k", lw=0.7, ls=":")
    bottom.set_ylim(*_span(np.append(gap, 0.0)))
    bottom.set_ylabel("KKT gap", fontsize=9)
    bottom.set_xlabel("step $t$", fontsize=9)
    bottom.tick_params(labelsize=8)
    bottom.set_xlim(-0.5, steps[-1] + 0.5)


def make_smo_stepper_explorer(
    X,
    y,
    C=1.0,
    *,
    tol=1e-10,
    max_steps=40,
    resolution=80,
    caption="Step by step: the pair (i, j) that moved is ringed in gold; the dual objective climbs "
    "at every step, the KKT gap falls only on the whole, to 0 at the optimum.",
):
    """A stepper through SMO on a small linear problem: one frame per pair step.

    Left: the points, the boundary ``f = w'x + b = 0`` and the margins of the
    current multipliers (``w = sum_i alpha_i y_i x_i``, ``b`` from the KKT
    conditions), the support vectors ringed and the pair of the last step
    highlighted.  Right: the dual objective and the KKT gap against the step,
    up to the current one.  The steps come from :func:`smo_path`.

    Parameters
    ----------
    X : array of shape (n, 2)
    y : array of shape (n,), labels in {-1, +1}
    C : float > 0, default=1.0
    tol : float > 0, default=1e-10
        The loop stops at a KKT gap of at most ``tol``.
    max_steps : int, default=40
        The most steps shown (the slider runs from 0 to the last step taken).
    resolution : int, default=80
    caption : str

    Returns
    -------
    explorer : Explorer
        One parameter ``k`` with a step button; its attribute ``path`` is the
        list of :class:`SMOState`.

    Raises
    ------
    ValueError
        As :func:`smo_path`, or if X is not a set of points in the plane.

    Examples
    --------
    >>> from ksvm.datasets import make_noisy_2d
    >>> X, y = make_noisy_2d(12, seed=3)
    >>> ex = make_smo_stepper_explorer(X, y, C=1.0)
    >>> fig, shown = ex.render(k=1)
    >>> shown["k"], shown["gap"] >= 0
    (1, True)
    """
    import matplotlib.pyplot as plt  # noqa: F401  (the figure's backend)

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"the stepper draws points in the plane: X must have shape (n, 2), got {X.shape}."
        )
    path = smo_path(X @ X.T, y, C, tol=tol, max_steps=max_steps)
    yf = y.astype(np.float64)
    steps = np.arange(len(path))
    objective = np.array([s.objective for s in path])
    gap = np.array([s.gap for s in path])
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * (hi - lo)
    box = np.array([lo - pad, hi + pad])

    def draw(fig, k):
        state = path[k]
        w = X.T @ (state.alpha * yf)
        ax = fig.add_axes([0.01, 0.08, 0.5, 0.8])
        _draw_plane(ax, lambda Z: Z @ w + state.b, X, y, box, state.alpha > 0, resolution, size=22)
        _mark_pair_step(ax, X, path, k)
        _draw_smo_progress(fig, steps, objective, gap, k)
        i, j = state.pair if state.pair is not None else ("-", "-")
        return {"k": k, "i": i, "j": j, "objective": state.objective, "gap": state.gap}

    explorer = Explorer(
        draw,
        {"k": list(steps.tolist())},
        start={"k": 0},
        caption=caption,
        stepper="k",
        palette=True,
    )
    explorer.path = path
    return explorer
