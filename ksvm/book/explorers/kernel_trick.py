"""The kernel trick's feature space, turnable: the map R^2 -> R^3 of the kernel (x'z)^2.

:func:`make_feature_space_explorer` maps a data set that a circle separates in
the plane by ``phi(x) = (x1^2, sqrt(2) x1 x2, x2^2)``, fits a hard-margin SVM
with the kernel ``(x'z)^2`` (``ksvm.SoftMarginSVC``), and draws the mapped points
and the SVM's plane ``w'phi + b = 0`` in R^3, seen from an azimuth and an
elevation the reader chooses; beside it, the same classifier in the plane, where
the plane's preimage is a conic.
"""

import numpy as np
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from ksvm.polynomial_map import polynomial_feature_map
from ksvm.smo import SoftMarginSVC

from ..explore import Explorer
from ..plotting import CLASS_COLORS, plot_classes, plot_decision

__all__ = ["make_circle_data", "make_feature_space_explorer", "quadratic_map"]


def quadratic_map(X):
    """``phi(x) = (x1^2, sqrt(2) x1 x2, x2^2)``, the map of the kernel ``(x'z)^2`` on R^2.

    Parameters
    ----------
    X : array-like of shape (m, 2)

    Returns
    -------
    Phi : ndarray of shape (m, 3)

    Examples
    --------
    >>> quadratic_map([[2.0, 3.0]]).round(4)
    array([[4.    , 8.4853, 9.    ]])
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"the map is from R^2: X must have shape (m, 2), got {X.shape}.")
    return polynomial_feature_map(X, degree=2, coef0=0.0)  # in this order of coordinates


def make_circle_data(n_samples=60, *, inner=0.45, outer=0.75, seed=1234):
    """Points of [-1, 1]^2, label +1 inside the circle of radius ``inner``, -1 outside ``outer``.

    The ring between the two radii is left empty, so a circle separates the classes
    with a margin, and no line does.

    Parameters
    ----------
    n_samples : int, default=60
    inner, outer : float, default=0.45, 0.75
        The radii, ``0 < inner < outer``.
    seed : int, default=1234

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), in {-1, +1}; about a third are +1.

    Examples
    --------
    >>> X, y = make_circle_data(30)
    >>> X.shape, sorted(set(y.tolist()))
    ((30, 2), [-1, 1])
    """
    if not 0 < inner < outer:
        raise ValueError(f"the radii must satisfy 0 < inner < outer, got {inner} and {outer}.")
    rng = np.random.default_rng(seed)
    n_in = n_samples // 3
    radius = np.concatenate(
        [inner * np.sqrt(rng.random(n_in)), rng.uniform(outer, 1.0, n_samples - n_in)]
    )
    angle = rng.uniform(0.0, 2 * np.pi, n_samples)
    X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    y = np.where(np.arange(n_samples) < n_in, 1, -1)
    return X, y


def _plane_in_box(w, b, lo, hi):
    """The polygon where the plane ``w'z + b = 0`` cuts the box ``[lo, hi]``, in order."""
    corners = np.array([[(lo, hi)[(c >> j) & 1][j] for j in range(3)] for c in range(8)])
    points = []
    for a in range(8):
        for j in range(3):
            c = a | (1 << j)
            if c == a:
                continue
            fa, fc = corners[a] @ w + b, corners[c] @ w + b
            if fa == fc or ((fa > 0) == (fc > 0) and fa != 0):
                continue
            t = fa / (fa - fc)  # the box edge from corner a to corner c crosses the plane
            points.append(corners[a] + t * (corners[c] - corners[a]))
    if len(points) < 3:
        return np.empty((0, 3))
    P = np.unique(np.round(np.array(points), 12), axis=0)
    centre = P.mean(axis=0)
    u = P[0] - centre
    v = np.cross(w, u)
    return P[np.argsort(np.arctan2((P - centre) @ v, (P - centre) @ u))]


def _hard_margin_in_feature_space(X, y, Phi):
    """The hard-margin SVM with the kernel ``(x'z)^2`` and its plane ``w'phi + b = 0``
    in the feature space of ``Phi = quadratic_map(X)``: ``(svm, w, b)``."""
    svm = SoftMarginSVC(C=np.inf, kernel="poly", degree=2, gamma=1.0, coef0=0.0, tol=1e-6).fit(X, y)
    w = Phi[svm.support_].T @ svm.dual_coef_[0]  # w = sum lambda_i y_i phi(x_i)
    return svm, w, float(svm.intercept_[0])


def _draw_input_plane(ax, X, y, w, b, support):
    """The left panel: the data in R^2 and the levels -1/0/+1 of ``w'phi(x) + b``."""
    plot_decision(ax, lambda Z: quadratic_map(Z) @ w + b, X, resolution=100)
    plot_classes(ax, X, y, support=support, size=12, legend=False)
    ax.set_aspect("equal")
    ax.set_title("$\\mathbb{R}^2$: a circle", fontsize="small")
    ax.tick_params(labelsize="x-small")


_FEATURE_NAMES = ("$x_1^2$", "$\\sqrt{2}\\,x_1x_2$", "$x_2^2$")


def _draw_feature_space(ax, Phi, y, support, polygon, box):
    """The right panel (3-d axes): the mapped points, the support vectors ringed, and the
    plane's ``polygon`` in the ``box = (lo, hi)`` of the points; the view is left to set."""
    lo, hi = box
    if len(polygon) >= 3:
        ax.add_collection3d(
            Poly3DCollection([polygon], facecolors="0.6", edgecolors="0.3", alpha=0.35)
        )
    for label in (1, -1):
        on = y == label
        ax.scatter(*Phi[on].T, s=10, c=CLASS_COLORS[label], depthshade=False)
    ax.scatter(
        *Phi[support].T,
        s=40,
        facecolors="none",
        edgecolors="k",
        linewidths=0.7,
        depthshade=False,
    )
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    for setter, name in zip(
        (ax.set_xlabel, ax.set_ylabel, ax.set_zlabel), _FEATURE_NAMES, strict=True
    ):
        setter(name, fontsize="small", labelpad=-12)
    ax.set_xticklabels([])
    ax.set_yticklabels([])
    ax.set_zticklabels([])
    ax.grid(False)
    ax.set_title("$\\mathbb{R}^3$: a plane", fontsize="small")


def make_feature_space_explorer(X=None, y=None, *, azimuths=None, elevations=(10, 30, 60)):
    """The data mapped to R^3 by ``phi`` with the separating plane, turnable.

    Fits ``SoftMarginSVC(C=inf, kernel="poly", degree=2, gamma=1, coef0=0)``, a hard
    margin with the kernel ``(x'z)^2``, once, and writes its classifier in the feature
    space: ``w = sum_i lambda_i y_i phi(x_i)`` over the support vectors and ``b`` its
    intercept, so ``f(x) = w'phi(x) + b``.  Each frame draws, from the azimuth and
    elevation chosen, the points ``phi(x_i)`` (class +1 red, -1 blue, support vectors
    ringed) and the plane ``w'z + b = 0`` clipped to the box of the points; beside it
    the data in the plane with ``f = -1, 0, +1``.

    Parameters
    ----------
    X : ndarray of shape (m, 2), optional
        By default :func:`make_circle_data` ``(60)``: separable by a circle.
    y : ndarray of shape (m,), labels in {-1, +1}, optional
    azimuths : sequence of float, optional
        Degrees; by default 0, 30, ..., 330 (twelve values).
    elevations : sequence of float, default=(10, 30, 60)
        Degrees.

    Returns
    -------
    explorer : ksvm.book.explore.Explorer
        Parameters ``azimuth`` and ``elevation``; the numbers shown are the plane's
        coefficients ``w1, w2, w3, b``, the training errors in R^3 and the largest
        ``|phi(x)'phi(z) - (x'z)^2|`` over all pairs of data points.  Attributes
        ``w``, ``b``, ``svm`` (the fitted classifier), ``X``, ``y``, ``Phi``.

    Raises
    ------
    ValueError
        If only one of ``X`` and ``y`` is given or ``X`` is not a set of points in the plane.

    Examples
    --------
    >>> ex = make_feature_space_explorer(elevations=(30,))
    >>> len(ex.params["azimuth"]), ex.params["elevation"]
    (12, [30])
    """
    if (X is None) != (y is None):
        raise ValueError("give both the points X and their labels y, or neither.")
    if X is None:
        X, y = make_circle_data(60)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    Phi = quadratic_map(X)
    azimuths = list(range(0, 360, 30)) if azimuths is None else list(azimuths)
    svm, w, b = _hard_margin_in_feature_space(X, y, Phi)
    f = Phi @ w + b
    errors = int(np.sum(np.sign(f) != y))
    kernel_error = float(np.max(np.abs(Phi @ Phi.T - (X @ X.T) ** 2)))
    lo, hi = Phi.min(axis=0), Phi.max(axis=0)
    polygon = _plane_in_box(w, b, lo, hi)
    support = np.zeros(len(y), dtype=bool)
    support[svm.support_] = True

    def draw(fig, azimuth, elevation):
        ax0 = fig.add_subplot(1, 2, 1)
        ax1 = fig.add_subplot(1, 2, 2, projection="3d")
        _draw_input_plane(ax0, X, y, w, b, support)
        _draw_feature_space(ax1, Phi, y, support, polygon, (lo, hi))
        ax1.view_init(elev=elevation, azim=azimuth)
        fig.subplots_adjust(left=0.06, right=0.98, bottom=0.08, top=0.92, wspace=0.1)
        return {
            "w1": round(float(w[0]), 3),
            "w2": round(float(w[1]), 3),
            "w3": round(float(w[2]), 3),
            "b": round(b, 3),
            "errors": errors,
            "max |phi(x)'phi(z) - (x'z)^2|": kernel_error,
        }

    explorer = Explorer(
        draw,
        {"azimuth": azimuths, "elevation": list(elevations)},
        start={
            "azimuth": azimuths[min(1, len(azimuths) - 1)],
            "elevation": list(elevations)[len(elevations) // 2],
        },
        caption=(
            "Turn the feature space: seen edge-on, the plane separates the mapped classes; "
            "its preimage in the plane is the circle."
        ),
    )
    explorer.w, explorer.b, explorer.svm, explorer.X, explorer.y, explorer.Phi = (
        w,
        b,
        svm,
        X,
        y,
        Phi,
    )
    return explorer
