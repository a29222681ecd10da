"""Sequential minimal optimization (SMO) for the soft-margin SVM dual.

The dual of the soft-margin SVM (lecture notes) is

.. math::

    \\max_{\\lambda}\\ \\Theta(\\lambda) = \\sum_i \\lambda_i
        - \\tfrac12 \\sum_{i,j} \\lambda_i \\lambda_j y_i y_j K_{ij}
    \\quad\\text{s.t.}\\quad 0 \\le \\lambda_i \\le C,\\ \\ \\sum_i \\lambda_i y_i = 0 .

SMO (Platt, 1998) changes two multipliers at a time, the fewest that can move
without leaving the hyperplane ``sum_i lambda_i y_i = 0``.  Along the direction
``lambda_i += y_i t``, ``lambda_j -= y_j t`` the objective is a parabola in
``t`` whose maximiser is clipped to the box, so each step is solved exactly.

Which pair to move is the "working-set selection".  With the gradient
``G = Q lambda - e`` of the minimisation form (``Q_ij = y_i y_j K_ij``) write
``F = -y * G``.  Then

* ``I_up = {t : lambda_t < C, y_t = +1  or  lambda_t > 0, y_t = -1}`` are the
  multipliers that can move so as to raise ``F``'s side of the constraint, and
  ``I_low`` the mirror set; the KKT conditions say exactly
  ``max_{I_up} F <= min_{I_low} F``, with the bias ``b`` in between;
* the first index ``i`` maximises ``F`` over ``I_up`` (one end of the maximal
  violating pair), and the second minimises ``-(F_i - F_t)^2 / a_it`` over the
  ``t`` in ``I_low`` with ``F_t < F_i``, where ``a_it = K_ii + K_tt - 2 K_it``:
  the exact gain of the step for that pair (the second-order rule of Fan, Chen
  & Lin, 2005).  ``selection='mvp'`` takes ``argmin F`` instead;
* the iteration stops when ``max_{I_up} F - min_{I_low} F <= tol``, libsvm's
  criterion, so that ``tol`` means the same as scikit-learn's ``SVC(tol=...)``.

:func:`smo` works on the full Gram matrix (no kernel cache): memory
``8 n^2`` bytes, each iteration ``O(n)`` vector operations.  Like libsvm it
"shrinks": multipliers stuck at a bound are set aside for a while, and the
iteration runs on a copy of the rest of the Gram matrix (see ``shrinking``).
:func:`smo_rows` takes the same steps without the Gram matrix: the two rows
an iteration needs come from a cache of kernel rows with a memory budget
(:class:`ksvm.columns.KernelColumns`), computed a few at a time through BLAS,
and once it has shrunk it works on their active entries only; it is what
:class:`SoftMarginSVC` uses beyond 4,000 points (``GRAM_UP_TO``), or when the Gram
matrix would not fit in its ``cache_size``.  The two differ only in where the
rows of ``K`` come from: the loop (the choice of the pair, its step, the setting aside of variables
and their return) is written once, :func:`run_smo`, over a provider of rows
(:class:`GramRows`, :class:`CachedRows`), and both run it; its callback
shows every pair step (:class:`SMOStep`).  Unwatched, the loop runs compiled by
numba (``ksvm._smo_compiled``), with the same steps.

References
----------
Platt (1998); Fan, Chen & Lin (2005); the lecture notes for the dual.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._smo_loop import CachedRows, GramRows, SMOStep, _penalties, run_smo
from ._validation import (
    check_bool,
    check_C,
    check_gram,
    check_integer,
    check_nonnegative_integer,
    check_positive,
    encode_binary_labels,
    one_of,
    optional,
)
from .base import BaseKernelClassifier, Solution
from .columns import _FILL_ROWS
from .kernels import RBFBlock

# run_smo, SMOStep, GramRows and CachedRows are the loop that smo and smo_rows run (written
# in ksvm._smo_loop), for a caller that watches its steps
__all__ = [
    "CachedRows",
    "GramRows",
    "SMOResult",
    "SMOStep",
    "SoftMarginSVC",
    "dual_objective",
    "kkt_bias",
    "run_smo",
    "smo",
    "smo_rows",
]


@dataclass
class SMOResult:
    """What :func:`smo` returns.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        The multipliers ``lambda_i`` (0 <= alpha <= C).
    b : float
        The bias: the mean of ``y_K - sum_i alpha_i y_i K_iK`` over the free
        multipliers ``0 < alpha_K < C``, or the midpoint of the interval the
        KKT conditions allow if none is free.
    objective : float
        The dual objective ``Theta(alpha) = sum alpha - 1/2 alpha'Q alpha``.
    gap : float
        The final KKT violation ``max_{I_up} F - min_{I_low} F``.
    n_iter : int
        Number of pair updates.
    converged : bool
        Whether ``gap <= tol`` was reached within ``max_iter``.
    history : ndarray or None
        ``Theta`` after each iteration (``history[0]`` is the start, 0), if asked for.
    """

    alpha: np.ndarray
    b: float
    objective: float
    gap: float
    n_iter: int
    converged: bool
    history: np.ndarray = field(default=None, repr=False)


def dual_objective(alpha, K, y):
    """The dual objective ``sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j K_ij``.

    Parameters
    ----------
    alpha : array-like of shape (n,)
    K : array-like of shape (n, n)
    y : array-like of shape (n,), values in {-1, +1}

    Returns
    -------
    value : float

    Examples
    --------
    >>> dual_objective([1.0, 1.0], [[1.0, 0.0], [0.0, 1.0]], [1, -1])
    1.0
    """
    v = np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)
    return float(np.sum(alpha) - 0.5 * v @ np.asarray(K, dtype=float) @ v)


def kkt_bias(alpha, F, C, up, low):
    """The bias ``b`` of the soft-margin SVM from the KKT conditions.

    Every free multiplier (``0 < alpha_k < C``) gives ``b = F_k``; they agree up
    to the KKT tolerance, and their mean is taken (libsvm does the same).  With
    no free multiplier any ``b`` in ``[max_{I_up} F, min_{I_low} F]`` satisfies
    the KKT conditions, and the midpoint is taken.

    Parameters
    ----------
    alpha : ndarray of shape (n,)
        The multipliers, in ``[0, C]``.
    F : ndarray of shape (n,)
        ``F = -y * G = y - K (alpha * y)`` (see the module docstring).
    C : float
    up, low : ndarray of bool, shape (n,)
        Membership of ``I_up`` and ``I_low``.

    Returns
    -------
    b : float

    Examples
    --------
    >>> kkt_bias(np.array([0.0, 0.5, 1.0]), np.array([0.3, 0.2, 0.1]), 1.0,
    ...          np.array([True, True, False]), np.array([False, True, True]))
    0.2
    """
    free = (alpha > 0) & (alpha < C)
    if np.any(free):
        return float(np.mean(F[free]))
    # No free multiplier: any b in [max_{I_up} F, min_{I_low} F] satisfies KKT.
    hi = np.max(F[up]) if np.any(up) else np.inf
    lo = np.min(F[low]) if np.any(low) else -np.inf
    if np.isfinite(hi) and np.isfinite(lo):
        return float((hi + lo) / 2)
    return float(hi if np.isfinite(hi) else lo)


def smo(
    K,
    y,
    C=1.0,
    *,
    tol=1e-3,
    max_iter=None,
    selection="second-order",
    shrinking=True,
    return_history=False,
):
    """Solve the soft-margin SVM dual on a Gram matrix by SMO.

    Parameters
    ----------
    K : array-like of shape (n, n)
        The Gram matrix ``K_ij = k(x_i, x_j)``; symmetric.  A kernel that is
        not positive semi-definite is handled as libsvm does (a tiny positive
        curvature replaces a non-positive one), but the problem is then not
        convex and the answer is only a stationary point.
    y : array-like of shape (n,)
        Labels; any two classes (the second in sort order is +1).
    C : float > 0 or numpy.inf, default=1.0
        Upper bound on the multipliers; ``C = inf`` is the hard margin, which
        has a solution only when the data are separable in feature space.
    tol : float > 0, default=1e-3
        Stop when the KKT violation ``max_{I_up} F - min_{I_low} F`` is at most
        ``tol`` (libsvm's and scikit-learn's ``tol``).
    max_iter : int or None, default=None
        Most pair updates; None means ``max(10**6, 100 n)``.
    selection : {'second-order', 'mvp'}, default='second-order'
        Working-set selection: Fan, Chen & Lin's second-order rule, or the
        maximal violating pair.
    shrinking : bool, default=True
        Every ``min(n, 1000)`` iterations, set aside the multipliers at a bound
        whose ``F`` puts them out of reach of the violating pair, and iterate
        on the rest (a copy of their block of ``K``).  ``F`` is recomputed as
        ``y - K (alpha * y)`` and every multiplier taken back once the gap is
        below ``10 tol``, and again before stopping, so the stopping test
        always holds for the whole problem.
    return_history : bool, default=False
        Record the dual objective after every iteration.

    Returns
    -------
    result : SMOResult

    Raises
    ------
    ValueError
        If ``K`` is not a finite square matrix matching ``y``, ``y`` does not
        hold two classes, ``C <= 0``, ``tol <= 0`` or ``selection`` is unknown.

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` is reached first: raise ``max_iter`` or ``tol``, or
        lower ``C`` (with ``C = inf`` the data may not be separable).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> result = smo(X @ X.T + 1.0, [-1, -1, 1, 1], C=10.0, tol=1e-9)
    >>> np.round(result.alpha, 6), round(result.b, 6)
    (array([0. , 0.5, 0.5, 0. ]), -2.0)
    """
    K = check_gram(K, name="K")
    n = K.shape[0]
    y_pm, C, tol, max_iter = _check_problem(y, n, f"K is {n} x {n}", C, tol, max_iter, selection)
    return _smo_gram(K, y_pm, C, tol, max_iter, selection, shrinking, return_history, stacklevel=3)


def _smo_gram(K, y_pm, C, tol, max_iter, selection, shrinking, return_history, stacklevel):
    """:func:`smo` on checked arguments (``max_iter`` resolved); a warning is said
    ``stacklevel`` frames up."""
    run = run_smo(
        GramRows(K),
        y_pm,
        C,
        tol=tol,
        max_iter=max_iter,
        second_order=selection == "second-order",
        shrinking=shrinking,
        history=return_history,
    )
    # the objective recomputed: no drift from the updates
    objective = dual_objective(run.alpha, K, y_pm)
    result = _result(run, y_pm, C, tol, max_iter, objective, stacklevel + 1)
    result.history = np.array(run.history) if return_history else None
    return result


def _check_problem(y, n, shape, C, tol, max_iter, selection):
    """The checks of :func:`smo` and :func:`smo_rows`: labels in {-1, +1} for a
    kernel of ``n`` rows (``shape`` says what it is), ``C``, ``tol``, ``max_iter``
    (None resolved) and ``selection``."""
    y_pm, _ = encode_binary_labels(y)
    if y_pm.shape[0] != n:
        raise ValueError(f"{shape} but y has {y_pm.shape[0]} labels.")
    C = check_C(C)
    tol = check_positive(tol, "tol")
    if selection not in ("second-order", "mvp"):
        raise ValueError(f"selection must be 'second-order' or 'mvp', got {selection!r}.")
    if max_iter is None:
        max_iter = max(10**6, 100 * n)
    elif isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise ValueError(f"max_iter must be a non-negative integer or None, got {max_iter!r}.")
    return y_pm, C, tol, max_iter


def _result(run, y_pm, C, tol, max_iter, objective, stacklevel):
    """The :class:`SMOResult` of a run: the gap and the bias on every variable, and
    the warning of a run that stopped at ``max_iter``, said ``stacklevel`` frames up."""
    alpha, F = run.alpha, run.F
    up_pen, low_pen = _penalties(alpha, y_pm > 0, C)
    gap = float(np.max(F + up_pen) - np.min(F + low_pen))  # on every variable
    converged = bool(gap <= tol)
    if not converged:
        hint = (
            " With C = inf (hard margin) the data may not be separable in feature space, or "
            "only with a margin so thin that the multipliers grow without end: use a finite C "
            "(SoftMarginSVC) or a narrower kernel (a larger gamma)."
            if not np.isfinite(C)
            else ""
        )
        warnings.warn(
            f"SMO stopped at max_iter={max_iter} with KKT violation {gap:.3g} > tol={tol:g}; "
            f"raise max_iter or tol, or lower C.{hint}",
            ConvergenceWarning,
            stacklevel=stacklevel,
        )
    return SMOResult(
        alpha=alpha,
        b=kkt_bias(alpha, F, C, np.isfinite(up_pen), np.isfinite(low_pen)),
        objective=objective,
        gap=gap,
        n_iter=run.n_iter,
        converged=converged,
    )


def _kernel_times(kernel, X, rows, cols, v):
    """``K[rows, cols] @ v`` from the kernel function, a block of rows at a time, each
    block written into one buffer: a quarter of :func:`ksvm.kernels.block_rows`'s (4 MB),
    since this memory comes on top of the cache's ``cache_size``."""
    from .kernels import block_rows

    out = np.empty(rows.size)
    step = max(1, block_rows(cols.size) // 4)
    B, buffer = X[cols], np.empty((min(step, rows.size), cols.size))
    for start in range(0, rows.size, step):
        block = rows[start : start + step]
        out[start : start + block.size] = kernel(X[block], B, out=buffer[: block.size]) @ v
    return out


def smo_rows(
    columns,
    y,
    C=1.0,
    *,
    tol=1e-3,
    max_iter=None,
    selection="second-order",
    shrinking=True,
    prefetch=16,
):
    """:func:`smo` with the rows of the Gram matrix computed on demand.

    The same iteration as :func:`smo` (the same pairs, the same steps, the
    same stopping rule), but the two rows ``K[i, :]`` and ``K[j, :]`` an
    iteration needs come from ``columns``, a cache of rows with a memory
    budget (:class:`ksvm.columns.KernelColumns`), so the ``n x n`` Gram
    matrix is never formed.  A missing row is computed together with the rows
    of the next likely candidates (the ``prefetch`` largest ``F`` in ``I_up``
    and smallest in ``I_low``), in one block through BLAS.

    Shrinking works as libsvm's: once any active variable is out of the race
    (see :func:`smo`), the iteration goes on with the rest, on
    their entries of the cached rows (one cache for the whole run).  The
    ``F`` of the variables set aside is brought up to date only when they
    are taken back, with one product
    ``K[set aside, changed] (delta alpha * y)_changed`` over the multipliers
    that changed since.

    Parameters
    ----------
    columns : ksvm.columns.KernelColumns
        The rows of the Gram matrix; ``columns.kernel`` and ``columns.X`` also
        give the products that bring the variables set aside up to date.
    y : array-like of shape (n,)
        Labels; any two classes (the second in sort order is +1).
    C, tol, max_iter, selection, shrinking
        As for :func:`smo`.
    prefetch : int >= 0, default=16
        How many candidates from each end are computed with a missing row.

    Returns
    -------
    result : SMOResult
        With ``history=None``; ``objective`` is
        ``sum alpha - 1/2 (alpha * y)'(y - F)`` from the maintained ``F``.

    Raises
    ------
    ValueError
        As :func:`smo`, and if ``y`` does not match ``columns``.

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` is reached first.

    Examples
    --------
    >>> from ksvm.columns import KernelColumns
    >>> from ksvm.kernels import make_kernel
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> rows = KernelColumns(make_kernel("poly", degree=1, gamma=1.0, coef0=1.0), X)
    >>> result = smo_rows(rows, [-1, -1, 1, 1], C=10.0, tol=1e-9)
    >>> np.round(result.alpha, 6), round(result.b, 6)
    (array([0. , 0.5, 0.5, 0. ]), -2.0)
    """
    n = columns.m
    y_pm, C, tol, max_iter = _check_problem(
        y, n, f"The kernel has {n} rows", C, tol, max_iter, selection
    )
    prefetch = check_integer(prefetch, "prefetch", minimum=0)
    return _smo_rows(columns, y_pm, C, tol, max_iter, selection, shrinking, prefetch, stacklevel=3)


def _smo_rows(columns, y_pm, C, tol, max_iter, selection, shrinking, prefetch, stacklevel):
    """:func:`smo_rows` on checked arguments (``max_iter`` resolved); a warning is said
    ``stacklevel`` frames up."""

    def product(rows, cols, v):
        return _kernel_times(columns.kernel, columns.X, rows, cols, v)

    run = run_smo(
        CachedRows(columns, product, prefetch),
        y_pm,
        C,
        tol=tol,
        max_iter=max_iter,
        second_order=selection == "second-order",
        shrinking=shrinking,
    )
    v = run.alpha * y_pm
    objective = float(run.alpha.sum() - 0.5 * v @ (y_pm - run.F))
    return _result(run, y_pm, C, tol, max_iter, objective, stacklevel + 1)


#: Up to this many points ``SoftMarginSVC(solver='auto')`` forms the Gram matrix; beyond,
#: it computes the rows it needs.  Measured (``benchmarks/bench_smo.py``, one BLAS thread):
#: on the three RBF problems there the two paths take the same time at about 4,000
#: points; below, the Gram matrix by blocks costs less than a run's misses of the cache
#: (each a return to Python); above, the rows a run never needs cost more.
GRAM_UP_TO = 4000


def _rbf_rows(gamma, X):
    """The RBF kernel the estimator computes its rows with: from the differences
    (``ksvm._rbf_compiled.RBFFewFeatures``) for points of few features, by
    libsvm's formula (:class:`ksvm.kernels.RBFBlock`) otherwise."""
    from ._rbf_compiled import FEW_FEATURES, RBFFewFeatures  # numba loads with the first fit

    if X.shape[1] <= FEW_FEATURES:
        return RBFFewFeatures(gamma, X)
    return RBFBlock(gamma, X)


def _rbf_gram(gamma, X):
    """The RBF Gram matrix of ``X`` as its rows are computed (:func:`_rbf_rows`, the
    values :func:`smo_rows` sees), as many rows per call as the row cache fills at once:
    a block that stays in a core's cache through the kernel's passes, about twice as fast
    as one call on the whole."""
    kernel, n, step = _rbf_rows(gamma, X), X.shape[0], _FILL_ROWS
    K = np.empty((n, n))
    for start in range(0, n, step):
        kernel(X[start : start + step], X, out=K[start : start + step])
    return K


class SoftMarginSVC(BaseKernelClassifier):
    """Soft-margin kernel SVM trained by SMO.

    Minimises ``1/2 ||w||^2 + C sum_i xi_i`` subject to
    ``y_i (w'Phi(x_i) + b) >= 1 - xi_i``, ``xi_i >= 0``, through the dual,
    solved by :func:`smo` on the Gram matrix or, for large problems, by
    :func:`smo_rows` on kernel rows computed on demand (see ``solver``).  The
    decision function uses the support vectors alone:
    ``f(x) = sum_{i in support} lambda_i y_i k(x_i, x) + b``.

    Parameters
    ----------
    C : float > 0 or numpy.inf, default=1.0
        Weight of the training errors; ``numpy.inf`` is the hard margin.
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid', 'precomputed'} or callable
        The kernel (:func:`ksvm.kernels.make_kernel`), 'rbf' by default.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
    degree : int >= 1, default=3
    coef0 : float, default=1.0
        Note: scikit-learn's ``SVC`` defaults to ``coef0=0``; 1 is the
        lecture's ``(x'z + 1)^l``.
    tol : float > 0, default=1e-3
        KKT tolerance, as in :func:`smo` and ``SVC``.
    max_iter : int or None, default=None
        See :func:`smo`.
    selection : {'second-order', 'mvp'}, default='second-order'
        Working-set selection, see :func:`smo`.
    shrinking : bool, default=True
        See :func:`smo`.
    keep_history : bool, default=False
        Keep the dual objective per iteration in ``history_`` (with
        ``solver='gram'`` only).
    solver : {'auto', 'gram', 'rows'}, default='auto'
        ``'gram'``: compute the ``n x n`` Gram matrix once and run :func:`smo`
        on it.  ``'rows'``: never form it; :func:`smo_rows` asks a cache of
        kernel rows (:class:`ksvm.columns.KernelColumns`, ``cache_size``
        megabytes) for the two rows each iteration needs, computed in blocks.
        Both run the same iteration (up to rounding, which can change a
        few pairs) to the same optimum.  ``'auto'`` uses ``'gram'`` up to
        4,000 points (``ksvm.smo.GRAM_UP_TO``) when the Gram matrix (``8 n^2`` bytes) fits in
        ``cache_size``, and ``'rows'`` beyond (for a named kernel with no history
        kept; ``'gram'`` otherwise).
    cache_size : float > 0, default=200.0
        Megabytes of kernel rows kept by ``solver='rows'`` (scikit-learn's
        ``SVC(cache_size=...)``, libsvm's ``-m``).  After the fit the process keeps
        that memory (the pages the rows touched) for the next fit's rows, as the C
        library keeps libsvm's; ``ksvm.columns.kept_rows.clear()`` gives it back to the
        system.

    Attributes
    ----------
    classes_, n_features_in_
        As for every ``ksvm`` classifier (:mod:`ksvm.base`).
    support_ : ndarray of int
        Indices of the support vectors (``lambda_i > 0``) in the training set.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors (empty, shape ``(0, 0)``, for a precomputed kernel).
    dual_coef_ : ndarray of shape (1, n_SV)
        ``lambda_i y_i`` of the support vectors, ``y_i = +1`` for ``classes_[1]``.
    intercept_ : ndarray of shape (1,)
        The bias ``b``.
    coef_ : ndarray of shape (1, n_features)
        ``w = sum_i lambda_i y_i x_i``, with the linear kernel only.
    n_iter_ : int
        SMO iterations.
    converged_ : bool
        Whether the KKT gap reached ``tol`` within ``max_iter``.
    kkt_gap_ : float
        The final KKT violation ``max_{I_up} F - min_{I_low} F``.
    dual_objective_ : float
        ``Theta(lambda)`` at the solution.
    history_ : ndarray or None
        ``Theta`` per iteration if ``keep_history=True``.
    solver_ : {'gram', 'rows'}
        The solver ``fit`` used (``solver='auto'`` resolved).

    Raises
    ------
    ValueError
        From ``fit``: invalid data or hyper-parameters, not exactly two
        classes, a precomputed or callable kernel whose Gram matrix is not
        symmetric positive semi-definite up to single-precision rounding
        (:func:`ksvm.mercer.require_psd`).

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 3.0], [4.0, 4.0]])
    >>> clf = SoftMarginSVC(C=10.0, kernel="linear", tol=1e-6).fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[0.5, 0.5], [3.5, 3.5]]).tolist()
    ['a', 'b']
    >>> clf.support_.tolist(), np.round(clf.coef_, 4)
    ([1, 2], array([[0.5, 0.5]]))
    """

    _parameters = {
        **BaseKernelClassifier._parameters,
        "C": check_C,
        "tol": check_positive,
        "max_iter": optional(check_nonnegative_integer),
        "selection": one_of("second-order", "mvp"),
        "shrinking": check_bool,
        "keep_history": check_bool,
        "solver": one_of("auto", "gram", "rows"),
        "cache_size": check_positive,
    }

    def __init__(
        self,
        *,
        C=1.0,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        tol=1e-3,
        max_iter=None,
        selection="second-order",
        shrinking=True,
        keep_history=False,
        solver="auto",
        cache_size=200.0,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.selection = selection
        self.shrinking = shrinking
        self.keep_history = keep_history
        self.solver = solver
        self.cache_size = cache_size

    _psd_reason = "SMO needs a valid (Mercer) kernel."

    def _needs_psd_check(self):
        # A named kernel is used as libsvm uses it, the sigmoid included: SMO's
        # curvature safeguard absorbs rounding-level indefiniteness.
        return self.kernel == "precomputed" or callable(self.kernel)

    def _training_data(self, X, params):
        """The Gram matrix, or with ``solver='rows'`` its rows on demand."""
        self.solver_ = self._solver(params, X)
        if self.solver_ == "rows":
            if self.kernel == "rbf":
                return self._row_cache(_rbf_rows(self._gamma, X), X, params["cache_size"])
            return self._kernel_columns(X, params["cache_size"])
        if self.kernel == "rbf":  # the rows' formula, a block of rows at a time
            return _rbf_gram(self._gamma, X)
        return super()._training_data(X, params)

    def _solve(self, data, y_pm, params):
        """SMO on the Gram matrix (:func:`smo`) or on its rows (:func:`smo_rows`)."""
        p = params
        n = y_pm.shape[0]
        # checked by fit: the solvers' own checks (a pass over K among them) are skipped
        max_iter = max(10**6, 100 * n) if p["max_iter"] is None else p["max_iter"]
        options = dict(
            C=p["C"],
            tol=p["tol"],
            max_iter=max_iter,
            selection=p["selection"],
            shrinking=p["shrinking"],
            stacklevel=4,
        )
        if self.solver_ == "rows":
            result = _smo_rows(data, y_pm, prefetch=16, **options)
        else:
            result = _smo_gram(data, y_pm, return_history=p["keep_history"], **options)
        self.kkt_gap_ = result.gap
        self.dual_objective_ = result.objective
        self.history_ = result.history
        return Solution(result.alpha * y_pm, result.b, result.n_iter, result.converged)

    def _solver(self, p, X):
        """The solver ``fit`` uses: ``p['solver']``, with 'auto' resolved."""
        named = not (self.kernel == "precomputed" or callable(self.kernel))
        if p["solver"] == "rows":
            if not named:
                raise ValueError(
                    "solver='rows' computes kernel rows from the points and needs a named "
                    f"kernel, not {self.kernel!r}; use solver='gram'."
                )
            if p["keep_history"]:
                raise ValueError("keep_history=True needs solver='gram' (or 'auto').")
            return "rows"
        if p["solver"] == "gram" or not named or p["keep_history"]:
            return "gram"
        shape = getattr(X, "shape", None)
        try:
            n = shape[0] if shape else len(X)
        except TypeError:
            return "gram"  # not array-like: fit's validation says what is wrong
        fits = 8.0 * n * n <= p["cache_size"] * 2**20
        return "gram" if fits and n <= GRAM_UP_TO else "rows"
