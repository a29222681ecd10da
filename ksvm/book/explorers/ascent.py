"""Explorer: the weighted ascent of Cocianu & State, its learning rate rho and its iterations.

For each learning rate ``rho`` the weighted gradient ascent
(:func:`ksvm.ascent.weighted_ascent`) is run once to its stopping rule, keeping
``Q`` after every iteration.  A frame shows that trace up to the iteration
chosen, against the optimum ``Q*`` of SMO (dashed), and the multipliers
``alpha`` at that iteration as the sizes of the markers on the data.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ksvm.ascent import weighted_ascent
from ksvm.datasets import make_cocianu_state
from ksvm.kernels import rbf_kernel
from ksvm.primal import is_linearly_separable
from ksvm.smo import smo

from ..explore import Explorer
from ..plotting import CLASS_COLORS, plot_classes

__all__ = ["make_ascent_explorer"]


def _quiet_ascent(K, y, **kwargs):
    # a run stopped by max_iter is what the explorer shows: its warning says nothing new
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return weighted_ascent(K, y, **kwargs)


def _ascent_runs(K, y, rhos, iterations, weight):
    """What every frame shares: one full run per ``rho`` (with its trace of ``Q``), and
    ``alpha`` after ``k`` iterations for each ``(rho, k)`` (the run's end if it ends first)."""
    runs = {rho: _quiet_ascent(K, y, rho=rho, weight=weight, return_history=True) for rho in rhos}
    alphas = {}
    for rho, run in runs.items():
        for k in iterations:
            if k >= run.n_iter:
                alphas[rho, k] = run.alpha
            else:
                alphas[rho, k] = _quiet_ascent(
                    K, y, rho=rho, weight=weight, max_iter=k, check_separable=False
                ).alpha
    return runs, alphas


def _draw_trace(ax, run, rho, shown, q_star, *, xlim, ylim):
    """The left panel: ``Q`` along the run (faint) and up to iteration ``shown``, against
    the optimum ``q_star``, on a log scale of iterations."""
    q = run.history[shown]
    steps = np.arange(len(run.history))
    ax.plot(steps + 1, run.history, color="0.8", lw=1)  # the whole run, faint
    ax.plot(steps[: shown + 1] + 1, run.history[: shown + 1], color="tab:blue", lw=1.5)
    ax.plot([shown + 1], [q], "o", color="tab:blue", ms=5)
    ax.axhline(q_star, color="k", ls="--", lw=1, label=f"$-\\Psi^* = {q_star:.3f}$ (SMO)")
    ax.set_xscale("log")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xlabel("iteration $t$ + 1", fontsize=9)
    ax.set_ylabel(r"$-\Psi(\alpha^{(t)})$", fontsize=9)
    ax.set_title(rf"$\eta = {rho:g}$: {run.n_iter} iterations, stop '{run.stop}'", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=8, loc="lower right")


def _draw_multipliers(ax, X, y, alpha, scale, shown):
    """The right panel: the data, each point with ``alpha_i > 0`` ringed by a circle of area
    ``scale * alpha_i``."""
    plot_classes(ax, X, y, size=4, legend=False)
    on = alpha > 0
    ax.scatter(
        X[on, 0],
        X[on, 1],
        s=scale * alpha[on],
        facecolors="none",
        edgecolors=[CLASS_COLORS[int(c)] for c in y[on]],
        linewidths=1.2,
    )
    ax.set_title(rf"$\alpha$ after {shown} iterations (circle area)", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])


def make_ascent_explorer(
    X=None,
    y=None,
    *,
    gamma=1.0,
    rhos=(0.01, 0.03, 0.1, 0.3, 1.0, 2.0),
    iterations=(10, 30, 100, 1000, 10000),
    weight="rho1",
):
    """An explorer of the learning rate ``rho`` of the weighted ascent and of its iterations.

    Parameters
    ----------
    X : array of shape (N, 2), optional
        The training points; by default the chapter's running example, 60 + 70
        separable points of Cocianu & State's classes
        (:func:`ksvm.datasets.make_cocianu_state`, seed 0).
    y : array of shape (N,), optional
        Their labels in {-1, +1} (required with ``X``).
    gamma : float > 0, default=1.0
        Width of the Gaussian kernel.
    rhos : sequence of float, default=(0.01, 0.03, 0.1, 0.3, 1.0, 2.0)
        The learning rates on the slider, within ``(0, 2]``: for the Gaussian
        kernel ``eta <= 2``, so ``rho eta < 4`` and every pair with ``s != 0``
        can still ascend (the paper's own range ends at ``1e-2``).
    iterations : sequence of int, default=(10, 30, 100, 1000, 10000)
        The iteration counts shown; a count past the end of a run shows its end.
    weight : {'rho1', 'equal'} or float, default='rho1'
        The weight ``rho_1`` of (14), as in :func:`ksvm.ascent.weighted_ascent`.

    Returns
    -------
    explorer : ksvm.book.explore.Explorer
        Parameters ``rho`` and ``k`` (a stepper); its frames show the numbers
        ``rho``, ``iterations`` (those drawn), ``run ends at``, ``Q`` and
        ``gap to Q*`` (``Q* - Q``, with ``Q*`` from :func:`ksvm.smo.smo`).

    Raises
    ------
    ValueError
        If only one of ``X`` and ``y`` is given, a ``rho`` is outside ``(0, 2]``,
        or the classes are not separable in the feature space.

    Examples
    --------
    >>> ex = make_ascent_explorer(rhos=(0.1, 1.0), iterations=(10, 10000))
    >>> ex.runs[1.0].stop, ex.runs[1.0].n_iter < ex.runs[0.1].n_iter
    ('small change', True)
    """
    if (X is None) != (y is None):
        raise ValueError("give both X and y, or neither (the chapter's running example).")
    if X is None:
        X, y = make_cocianu_state(60, 70, accept=is_linearly_separable, seed=0)
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    rhos, iterations = [float(r) for r in rhos], [int(k) for k in iterations]
    if not all(0.0 < r <= 2.0 for r in rhos):
        raise ValueError(
            f"every rho must lie in (0, 2] (rho eta < 4 for the Gaussian kernel), got {rhos}."
        )
    K = rbf_kernel(X, gamma=gamma)
    optimum = smo(K, y, np.inf, tol=1e-9)
    q_star = float(optimum.objective)

    runs, alphas = _ascent_runs(K, y, rhos, iterations, weight)
    scale = 250.0 / optimum.alpha.max()  # marker area per unit of alpha, the same in every frame
    top = max(q_star, max(float(r.history.max()) for r in runs.values()))
    xlim, ylim = (1, 1.2 * (max(iterations) + 1)), (0, 1.08 * top)  # the same in every frame

    def draw(fig, rho, k):
        run = runs[rho]
        shown = min(k, run.n_iter)
        q = run.history[shown]
        ax, ax_data = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1.0]})
        _draw_trace(ax, run, rho, shown, q_star, xlim=xlim, ylim=ylim)
        _draw_multipliers(ax_data, X, y, alphas[rho, k], scale, shown)
        fig.tight_layout()
        return {
            "rho": rho,
            "iterations": shown,
            "run ends at": run.n_iter,
            "Q": round(float(q), 4),
            "gap to Q*": float(f"{q_star - q:.2g}"),
        }

    explorer = Explorer(
        draw,
        {"rho": rhos, "k": iterations},
        start={"rho": rhos[0], "k": iterations[0]},
        stepper="k",
        caption="Move rho, the learning rate eta: a larger step reaches the optimum (dashed) in "
        "fewer iterations, until at eta = 2 the run stops short of it; step through k to watch "
        "alpha gather on a few support vectors.",
    )
    explorer.runs, explorer.q_star, explorer.alphas = runs, q_star, alphas
    return explorer
