"""An LSVM stepper: the iterates of Code 2, one iteration per step.

:func:`make_lsvm_explorer` runs :func:`ksvm.lsvm.lsvm_linear` on a small problem
in the plane and shows, for each iteration ``i`` of its loop, the plane
``x'w + b = 0`` that ``u^i`` gives by (9), ``w = X'Yu`` and ``b = 1'Yu``, and
the step ``||u^{i+1} - u^i||`` on a log scale against the geometric bound that
the convergence theorem implies (and the rate actually observed).

The letters are the book's: the equation and code numbers are Mangasarian &
Musicant's, whose ``D``, ``e``, ``Q`` and step ``alpha`` are ``Y``, ``1``, the dual's
matrix ``M = I/nu + HH'`` (``H = Y [X  1]``) and ``eta`` here, and whose ``u`` is the
book's ``alpha``.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ksvm.datasets import make_noisy_2d
from ksvm.lsvm import augment, lsvm_linear

from ..explore import Explorer
from ..plotting import plot_classes, plot_decision

__all__ = ["lsvm_iterates", "make_lsvm_explorer"]


def lsvm_iterates(X, y, nu, n_iter, *, eta=None, tol=1e-300):
    """The iterates ``u^0, ..., u^n_iter`` of :func:`ksvm.lsvm.lsvm_linear`.

    ``u^i`` is ``lsvm_linear`` stopped after ``i`` iterations (``max_iter=i``), so
    these are the package's iterates, not a re-implementation of them.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), labels in {-1, +1}
    nu : float > 0
    n_iter : int >= 0
    eta : float, optional
        The step; ``lsvm_linear``'s default ``1.9 / nu`` if None.
    tol : float, default=1e-300
        Passed on; below the rounding floor, so that only ``max_iter`` stops the loop.

    Returns
    -------
    U : ndarray of shape (n_iter + 1, n)
    """
    U = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # stopped at max_iter on purpose
        for i in range(n_iter + 1):
            U.append(lsvm_linear(X, y, nu=nu, eta=eta, max_iter=i, tol=tol).u)
    return np.array(U)


def _rates(U, H, nu, eta, n_last):
    """What the stepper's second panel draws for the iterates ``U`` (rows) of (15).

    Returns the steps ``||u^{i+1} - u^i||``, the objective of each iterate, the
    theorem's bound ``rho^i ||M(u^1 - u^0)|| / q_min``, the observed geometric rate
    through the last step, and ``rho``, ``q_min`` and that rate ``r`` (``q_min`` and
    ``q_max`` are the extreme eigenvalues of ``M``).
    """

    def M_times(V):  # rows: M v = v / nu + H H'v, M not formed
        return V / nu + (V @ H) @ H.T

    steps = np.linalg.norm(np.diff(U, axis=0), axis=1)  # ||u^{i+1} - u^i||, i = 0..N
    objective = 0.5 * np.einsum("ij,ij->i", U, M_times(U)) - U.sum(axis=1)
    lam = np.linalg.eigvalsh(H.T @ H)  # the non-zero eigenvalues of HH'
    q_max = 1.0 / nu + lam[-1]
    q_min = 1.0 / nu + (lam[0] if H.shape[0] <= H.shape[1] else 0.0)
    rho = max(abs(1.0 - eta / q_min), abs(1.0 - eta / q_max))
    first = np.linalg.norm(M_times(U[1] - U[0]))
    idx = np.arange(n_last + 1)
    bound = rho**idx * first / q_min
    ratios = steps[1:] / steps[:-1]
    r = float(np.exp(np.mean(np.log(ratios)))) if len(ratios) else 0.0
    observed = steps[n_last] * r ** (idx - n_last) if r > 0 else np.full(len(idx), np.nan)
    return steps, objective, bound, observed, rho, q_min, r


def _points_in_the_plane(X, y):
    """``X`` and ``y`` as arrays, the default problem if both are None, or a ValueError."""
    if (X is None) != (y is None):
        raise ValueError("give both the points X and their labels y, or neither.")
    if X is None:
        X, y = make_noisy_2d(40, flip=0.1, seed=1234)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"the stepper draws points in the plane: X must have shape (n, 2), got {X.shape}."
        )
    return X, y


def _draw_iterate_plane(ax, X, y, u, w, b, i):
    """The first panel: the data, the plane ``x'w + b = 0`` of ``u = u^i`` and its levels
    -1/0/+1, the points with ``u_j < 0`` crossed; returns which ``u_j`` are below 0."""
    if np.any(w != 0.0):
        plot_decision(ax, lambda Z: Z @ w + b, X, resolution=120)
    neg = u < 0
    plot_classes(ax, X, np.where(y > 0, 1, -1), legend=False)
    if neg.any():
        ax.scatter(*X[neg].T, marker="x", s=40, c="k", linewidths=1.0, label="$\\alpha_j < 0$")
        ax.legend(loc="lower left", fontsize="x-small", framealpha=0.85)
    ax.set_title(f"plane $w^\\top x + b = 0$ of $\\alpha^{{({i})}}$", fontsize="small")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_aspect("equal")
    ax.tick_params(labelsize="small")
    return neg


def _draw_step_sizes(ax, i, idx, steps, bound, observed, *, rho, r, tol, ylim):
    """The second panel: ``||u^{t+1} - u^t||`` up to ``t = i`` against the theorem's bound
    (factor ``rho``), the observed rate ``r`` and the tolerance, on a log scale."""
    ax.semilogy(idx, steps[: len(idx)], color="0.8", lw=1)
    ax.semilogy(
        idx[: i + 1],
        steps[: i + 1],
        color="tab:blue",
        lw=1.5,
        label="$\\|\\alpha^{(t+1)}-\\alpha^{(t)}\\|$",
    )
    ax.plot([i], [steps[i]], "o", color="tab:blue", ms=5)
    ax.semilogy(
        idx,
        bound,
        color="tab:orange",
        ls="--",
        lw=1,
        label=f"bound $\\propto\\Gamma^t$, $\\Gamma={rho:.3f}$",
    )
    ax.semilogy(idx, observed, color="tab:green", ls=":", lw=1.2, label=f"observed rate {r:.2f}")
    ax.axhline(tol, color="0.5", lw=0.8, ls="-.", label=f"tol = {tol:g}")
    ax.set_ylim(*ylim)
    ax.set_xlabel("iteration $t$")
    ax.legend(fontsize="x-small", loc="lower left")
    ax.tick_params(labelsize="small")


def make_lsvm_explorer(X=None, y=None, *, nu=1.0, eta=None, tol=4e-4, max_iter=60):
    """A stepper through the LSVM iteration (15) as Code 2 runs it, in the plane.

    The parameter ``i`` runs from 0 to the iteration at which
    ``lsvm_linear(X, y, nu, tol=tol)`` stops; its last value shows that call's
    answer.  Each frame draws the data and the plane ``x'w + b = 0`` of ``u^i``
    with its bounding planes ``x'w + b = +-1`` (levels -1/0/+1), the points
    with ``u^i_j < 0`` crossed, and, in a second panel, ``||u^{i+1} - u^i||``
    against ``i`` on a log scale with

    * the bound of the convergence theorem: ``Mu^{i+1} = z(u^i)`` and the map
      ``Mu -> z(u)`` contracts by ``rho = max_q |1 - eta / q|``, so
      ``||u^{i+1} - u^i|| <= ||M(u^{i+1} - u^i)|| / q_min <= rho^i ||M(u^1 - u^0)|| / q_min``;
    * the observed rate, ``r^i`` through the last step with ``r`` the geometric
      mean of the step ratios;
    * the stopping tolerance ``tol``.

    Parameters
    ----------
    X : ndarray of shape (n, 2), optional
        The points; by default 40 points of ``make_noisy_2d(40, flip=0.1, seed=1234)``.
    y : ndarray of shape (n,), optional
        Their labels in {-1, +1} (given together with ``X``).
    nu : float > 0, default=1.0
    eta : float in (0, 2/nu), optional
        The step; the authors' ``1.9 / nu`` if None.
    tol : float > 0, default=4e-4
        Code 2's stopping tolerance: sets how many iterations there are to step through.
    max_iter : int, default=60
        At most this many iterations (and frames, plus one).

    Returns
    -------
    explorer : ksvm.book.explore.Explorer
        With the parameter ``i`` (a stepper) and the numbers ``i``,
        ``||u^(i+1) - u^i||``, ``objective`` (``f(u^i) = u'Mu/2 - 1'u``) and
        ``negative u_j`` (how many entries of ``u^i`` are below 0).  Its attribute
        ``iterates`` holds ``u^0, ..., u^{N+1}`` (``N`` the last ``i``) and
        ``rho``, ``q_min`` the bound's constants, ``w`` and ``b`` the planes drawn.

    Raises
    ------
    ValueError
        If only one of ``X`` and ``y`` is given, ``X`` is not a set of points in the
        plane, or ``lsvm_linear`` refuses the parameters.

    Examples
    --------
    >>> ex = make_lsvm_explorer(tol=1e-2)
    >>> ex.params["i"][:3], ex.stepper
    ([0, 1, 2], 'i')
    """
    X, y = _points_in_the_plane(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter may cut the run short
        final = lsvm_linear(X, y, nu=nu, eta=eta, tol=tol, max_iter=max_iter)
    n_last = final.n_iter
    # u^0 .. u^{N+1}: one beyond the last shown, for the step ||u^{N+1} - u^N||
    U = lsvm_iterates(X, y, nu, n_last + 1, eta=eta)
    y = np.where(y == y.max(), 1.0, -1.0)  # lsvm_linear's encoding: the larger label is +1
    eta_ = 1.9 / nu if eta is None else float(eta)
    X1 = augment(X)
    H = y[:, None] * X1  # H = Y [X  1], small here

    planes = (y * U) @ X1  # rows (9): (u'YX, u'Y1) = (w', b)
    W, offsets = planes[:, :2], planes[:, 2]
    steps, objective, bound, observed, rho, q_min, r = _rates(U, H, nu, eta_, n_last)
    idx = np.arange(n_last + 1)
    ylim = (min(steps.min(), tol) / 3.0, max(bound.max(), steps.max()) * 3.0)

    def draw(fig, i):
        ax0, ax1 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.0, 1.15]})
        neg = _draw_iterate_plane(ax0, X, y, U[i], W[i], offsets[i], i)
        _draw_step_sizes(ax1, i, idx, steps, bound, observed, rho=rho, r=r, tol=tol, ylim=ylim)
        fig.tight_layout()
        return {
            "i": int(i),
            "||u^(i+1) - u^i||": float(steps[i]),
            "objective": float(objective[i]),
            "negative u_j": int(neg.sum()),
        }

    explorer = Explorer(
        draw,
        {"i": list(range(n_last + 1))},
        start={"i": 0},
        stepper="i",
        caption=(
            "Step through the LSVM iteration: the plane settles in a few iterations, the step "
            "falls geometrically, far faster than the bound, until it is below the tolerance."
        ),
    )
    explorer.iterates, explorer.rho, explorer.q_min, explorer.rate = U, rho, q_min, r
    explorer.X, explorer.y, explorer.nu, explorer.result = X, y, nu, final
    explorer.w, explorer.b = W, offsets  # the planes drawn, one row per iterate
    return explorer
