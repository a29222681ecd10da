"""Pictures of two-class problems in the plane, drawn the same way in every chapter.

Two functions, on a matplotlib ``Axes`` the caller owns:

* :func:`plot_classes` draws the points of the two classes (and rings the
  support vectors, if given);
* :func:`plot_decision` draws the level sets of a decision function
  f(x) = 0 (the boundary) and f(x) = -1, +1 (the margins) over the points' box,
  and shades the side each point is assigned to.
"""

import numpy as np

__all__ = ["CLASS_COLORS", "plot_classes", "plot_decision"]

# The class +1 is drawn red, the class -1 blue, everywhere in the book.
CLASS_COLORS = {1: "tab:red", -1: "tab:blue"}
_MARKERS = {1: "o", -1: "s"}


def _check_plane(X, y=None):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] == 0:
        raise ValueError(
            f"the pictures are of points in the plane: X must have shape (n, 2), got {X.shape}."
        )
    if y is None:
        return X, None
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have one label per point, shape ({X.shape[0]},), got {y.shape}.")
    if not np.all(np.isin(y, (-1, 1))):
        raise ValueError("the labels must be -1 and +1 (ksvm.datasets returns them so).")
    return X, y


def plot_classes(ax, X, y, *, support=None, size=18, legend=True):
    """Draw the two classes of points; ring the points listed in ``support``.

    Parameters
    ----------
    ax : matplotlib Axes
    X : array of shape (n, 2)
    y : array of shape (n,), labels in {-1, +1}
    support : array of indices or boolean mask of shape (n,), optional
        The support vectors, drawn with a black ring.
    size : float, default=18
        Marker area.
    legend : bool, default=True

    Returns
    -------
    ax : the same Axes

    Raises
    ------
    ValueError
        If X is not a set of points in the plane or the labels are not -1 and +1.
    """
    X, y = _check_plane(X, y)
    for label in (1, -1):
        mine = y == label
        ax.scatter(
            X[mine, 0],
            X[mine, 1],
            s=size,
            c=CLASS_COLORS[label],
            marker=_MARKERS[label],
            edgecolors="none",
            label=f"$y = {label:+d}$",
        )
    if support is not None:
        idx = (
            np.flatnonzero(support)
            if np.asarray(support).dtype == bool
            else np.asarray(support, dtype=int)
        )
        ax.scatter(
            X[idx, 0],
            X[idx, 1],
            s=4 * size,
            facecolors="none",
            edgecolors="k",
            linewidths=0.9,
            label="support vectors",
        )
    if legend:
        ax.legend(loc="best", fontsize="small", framealpha=0.85)
    return ax


def plot_decision(ax, decision, X, *, levels=(-1.0, 0.0, 1.0), resolution=200, pad=0.1, shade=True):
    """Draw the level sets of a decision function over the box of the points ``X``.

    Parameters
    ----------
    ax : matplotlib Axes
    decision : callable or fitted estimator
        A function of an (k, 2) array returning k values, or an object with a
        ``decision_function`` method (any fitted ksvm or scikit-learn classifier).
    X : array of shape (n, 2)
        The points whose box (widened by ``pad`` of its size on each side) is drawn.
    levels : sequence of floats, default=(-1, 0, 1)
        The level 0 is drawn solid, the others dashed.
    resolution : int, default=200
        Grid points along each axis.
    pad : float, default=0.1
    shade : bool, default=True
        Shade the two half-planes f > 0 (red) and f < 0 (blue) lightly.

    Returns
    -------
    contours : matplotlib ContourSet of the lines drawn

    Raises
    ------
    ValueError
        If X is not a set of points in the plane, or the decision function does not
        return one finite value per grid point.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> lines = plot_decision(ax, lambda Z: Z[:, 0] - 0.5, X, levels=(0.0,))
    >>> lines.levels.tolist()
    [0.0]
    >>> plt.close(fig)
    """
    X, _ = _check_plane(X)
    f = decision.decision_function if hasattr(decision, "decision_function") else decision
    if not callable(f):
        raise ValueError("decision must be a function of the points or a fitted classifier.")
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    g0, g1 = np.meshgrid(
        np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution)
    )
    values = np.asarray(f(np.column_stack([g0.ravel(), g1.ravel()])), dtype=np.float64).ravel()
    if values.shape != (g0.size,) or not np.all(np.isfinite(values)):
        raise ValueError("the decision function must return one finite value per point.")
    F = values.reshape(g0.shape)
    if shade:
        ax.contourf(
            g0,
            g1,
            F,
            levels=[-np.inf, 0.0, np.inf],
            colors=[CLASS_COLORS[-1], CLASS_COLORS[1]],
            alpha=0.08,
        )
    levels = sorted(float(v) for v in levels)
    styles = ["-" if v == 0 else "--" for v in levels]
    lines = ax.contour(
        g0,
        g1,
        F,
        levels=levels,
        colors="k",
        linestyles=styles,
        linewidths=[1.3 if v == 0 else 0.9 for v in levels],
    )
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    return lines
