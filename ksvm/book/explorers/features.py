"""Explorer: random Fourier and Nystroem features, the number of features D against the error.

For each number of features ``D`` and each map (random Fourier features or
Nystroem features of the Gaussian kernel, :mod:`ksvm.features`), the linear
LSVM (Code 2, :func:`ksvm.lsvm.lsvm_linear`) is trained on the ``m x D``
feature matrix ``Phi``.  A frame shows the boundary it draws in the plane and,
beside it, the relative Frobenius error ``||Phi Phi' - K||_F / ||K||_F`` of
the approximate Gram matrix against ``D`` for both maps, the current ``D``
marked.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ksvm.datasets import make_checkerboard
from ksvm.features import NystroemFeatures, RandomFourierFeatures
from ksvm.kernels import rbf_kernel
from ksvm.lsvm import lsvm_linear

from ..explore import Explorer
from ..plotting import plot_classes, plot_decision

__all__ = ["FEATURE_MAPS", "make_features_explorer"]

#: The two maps the explorer offers, by the name its slider shows.
FEATURE_MAPS = {"random Fourier": RandomFourierFeatures, "Nystroem": NystroemFeatures}

_COLORS = {"random Fourier": "tab:purple", "Nystroem": "tab:green"}


def _fit_feature_maps(X, y, Ds, *, gamma, nu, random_state):
    """What every frame shares: for each map and each ``D``, the fitted map, Code 2 on its
    features and the training accuracy (``fitted[name, D]``), and the relative Gram errors
    ``||Phi Phi' - K||_F / ||K||_F`` (``errors[name]``, in the order of ``Ds``)."""
    K = rbf_kernel(X, gamma=gamma)
    norm_K = np.linalg.norm(K)
    fitted, errors = {}, {name: [] for name in FEATURE_MAPS}
    for name, make in FEATURE_MAPS.items():
        for D in Ds:
            fmap = make(n_components=D, gamma=gamma, random_state=random_state).fit(X)
            Phi = fmap.transform(X)
            errors[name].append(float(np.linalg.norm(Phi @ Phi.T - K) / norm_K))
            with warnings.catch_warnings():  # a capped run still draws its boundary
                warnings.simplefilter("ignore", ConvergenceWarning)
                r = lsvm_linear(Phi, y, nu=nu, max_iter=5000)
            accuracy = float(np.mean(np.where(Phi @ r.w + r.b >= 0, 1, -1) == y))
            fitted[name, D] = (fmap, r, accuracy)
    return fitted, errors


def _draw_gram_errors(ax, Ds, errors, D, method):
    """The right panel: the Gram error of both maps against ``D`` (log-log), the current
    ``D`` and ``method`` ringed."""
    floor = 1e-3  # below it the error is drawn on the axis: Nystroem is exact at D = n
    for name, errs in errors.items():
        ax.loglog(Ds, np.maximum(errs, floor), "o-", ms=3, color=_COLORS[name], label=name)
    k = Ds.index(D)
    ax.plot([D], [max(errors[method][k], floor)], "o", ms=10, mfc="none", mec="k", mew=1.5)
    ax.axvline(D, color="k", lw=0.6, ls=":")
    ax.set_ylim(0.7 * floor, 5.0)
    if errors["Nystroem"][-1] < floor:
        ax.annotate(
            "exact",
            (Ds[-1], floor),
            xytext=(-9, -1),
            textcoords="offset points",
            ha="right",
            fontsize=8,
            color=_COLORS["Nystroem"],
        )
    ax.set_xlabel("D (number of features)", fontsize=9)
    ax.set_ylabel(r"$\|\tilde K - K\|_F \,/\, \|K\|_F$", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=8, loc="lower left")


def make_features_explorer(
    X=None,
    y=None,
    *,
    gamma=100.0,
    Ds=(5, 10, 20, 40, 80, 150, 300, 500),
    nu=1.0,
    random_state=0,
    resolution=90,
):
    """An explorer of the number of features ``D`` and the feature map, with Code 2 on top.

    Parameters
    ----------
    X : array of shape (n, 2), optional
        The training points; by default 500 checkerboard points
        (:func:`ksvm.datasets.make_checkerboard`, seed 0).
    y : array of shape (n,), optional
        Their labels in {-1, +1} (required with ``X``).
    gamma : float > 0, default=100.0
        Width of the Gaussian kernel ``exp(-gamma ||x - z||^2)``.
    Ds : sequence of int, default=(5, 10, 20, 40, 80, 150, 300, 500)
        The values of ``D`` on the slider; Nystroem needs ``D <= m``.
    nu : float > 0, default=1.0
        Weight of the squared slacks in Code 2.
    random_state : int, default=0
        Seed of both feature maps (the same ``W``, ``b`` and landmarks as
        scikit-learn's ``RBFSampler`` and ``Nystroem`` with this seed).
    resolution : int, default=90
        Grid points per axis of the drawn boundary.

    Returns
    -------
    explorer : ksvm.book.explore.Explorer
        Parameters ``D`` and ``method``; its frames show the numbers ``D``,
        ``method``, ``Gram error`` (relative Frobenius) and ``training accuracy``.

    Raises
    ------
    ValueError
        If only one of ``X`` and ``y`` is given, or a ``D`` exceeds the number
        of points.

    Examples
    --------
    >>> ex = make_features_explorer(Ds=(10, 100))
    >>> ex.params["method"]
    ['random Fourier', 'Nystroem']
    >>> round(ex.gram_error("Nystroem", 100), 2) < round(ex.gram_error("random Fourier", 100), 2)
    True
    """
    if (X is None) != (y is None):
        raise ValueError("give both X and y, or neither (the default checkerboard).")
    if X is None:
        X, y = make_checkerboard(500, seed=0)
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    Ds = [int(D) for D in Ds]
    if max(Ds) > len(y):
        raise ValueError(f"D = {max(Ds)} exceeds the {len(y)} points (Nystroem needs D <= n).")
    fitted, errors = _fit_feature_maps(X, y, Ds, gamma=gamma, nu=nu, random_state=random_state)

    def draw(fig, D, method):
        fmap, r, accuracy = fitted[method, D]
        ax, ax_err = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.0, 1.1]})
        plot_decision(ax, lambda Z: fmap.transform(Z) @ r.w + r.b, X, resolution=resolution)
        plot_classes(ax, X, y, size=5, legend=False)
        ax.set_title(f"Code 2 on {D} {method} features", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_aspect("equal")
        _draw_gram_errors(ax_err, Ds, errors, D, method)
        fig.tight_layout()
        return {
            "D": D,
            "method": method,
            "Gram error": round(errors[method][Ds.index(D)], 4),
            "training accuracy": round(accuracy, 4),
        }

    explorer = Explorer(
        draw,
        {"D": Ds, "method": list(FEATURE_MAPS)},
        start={"D": Ds[min(2, len(Ds) - 1)], "method": "random Fourier"},
        caption="Move D: the boundary sharpens into the checkerboard as the Gram error falls, "
        "much sooner with Nystroem features, which are exact at D = n.",
    )
    explorer.gram_error = lambda method, D: errors[method][Ds.index(D)]
    explorer.fitted = fitted
    return explorer
