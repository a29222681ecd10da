"""The linear LSVM on a Dask array: Code 2 and the active-set Newton solver, block by block.

Sherman-Morrison-Woodbury turns the linear LSVM into a map-reduce.  With
``H = Y [X  1]`` the dual's matrix ``M = I/nu + HH'`` is applied through

.. math::

    M^{-1} z = \\nu \\bigl(z - H S^{-1} H'z\\bigr), \\qquad S = I/\\nu + H'H,

and both ``H'H = sum_k H_k'H_k`` and ``H'z = sum_k H_k'z_k`` are sums over the
row blocks ``X_k`` of the data: each block contributes a ``(d+1) x (d+1)``
matrix or a ``(d+1)``-vector, the sums are tree-reduced on the cluster, and
only they reach the client, which solves the tiny system with ``S`` (the
functions of :mod:`ksvm.linalg`, applied to a block; the map and the reduce are
those of :mod:`ksvm.lsvm.dask_blocks`).  The multipliers ``u`` (the book's
``alpha``; and Code 2's ``Mu``) stay on the workers as persisted Dask
arrays chunked like ``X``; the convergence tests use scalars (norms, counts,
a maximum) reduced on the cluster.  No ``n``-sized array is gathered.

One pass over ``X`` per iteration of Code 2.  Iteration ``k`` of
:func:`ksvm.lsvm.lsvm_linear` computes ``u^k = M^{-1} z^k`` with
``z^0 = 1`` and ``z^{k+1} = 1 + ((z^k - 1) - eta u^k)_+`` (``z^k = M u^k``);
reading block ``X_j`` once gives ``u^k_j`` from ``S^{-1} H'z^k``, then
``z^{k+1}_j``, and with them the block's share of ``H'z^{k+1}`` (the next
iteration's right-hand side), of ``H'u^k = [w; b]`` and of
``||u^k - u^{k-1}||^2``.  The first pass forms ``H'H`` and ``H'1``.

The active-set Newton solver (:func:`ksvm.lsvm.lsvm_linear_newton`) keeps its
free set ``F`` as a persisted boolean Dask array; a step needs the sums
``H_F'H_F`` and ``H_F'1`` (one pass), then ``u`` and ``H'u`` (a second pass),
then ``Mu - 1``, the signs and the next free set's sums (a third pass, which
the next step reuses when it is a block step).

The letters are the book's (:mod:`ksvm.lsvm`): Mangasarian & Musicant's ``A``,
``D``, ``e``, ``Q`` and step ``alpha`` are ``X``, ``Y``, ``1``, ``M`` and ``eta``
here, and their plane ``(w, gamma)`` is ``(w, -b)``.

Both run on the active ``dask.distributed`` client (``distributed.get_client()``
finds it: the same code runs on a laptop's ``LocalCluster`` or on a cluster
reached through its scheduler's address), or on Dask's default scheduler
without one.  :mod:`ksvm.lsvm` hands a Dask array to these functions, so
``lsvm_linear(X, y)`` with a Dask ``X`` lands here; this module imports Dask,
:mod:`ksvm` does not until then (``_dask_path`` of :mod:`ksvm.lsvm.problem` is
the one place that imports it).  Its public names are also those of
:mod:`ksvm.lsvm_dask`.

References
----------
Mangasarian, O. L. and Musicant, D. R. (2001), Lagrangian Support Vector
Machines, JMLR 1, 161-177, section 4 (Code 2) and the discussion of massive
data sets.
"""

import warnings

import dask
import dask.array as da
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..linalg import apply_H, apply_Ht, cholesky_solve, smw_gram_factor
from .dask_blocks import (
    _augmented_gram,
    _classes,
    _labels_pm,
    _per_block,
    _persist,
    _unpack_gram,
    check_row_chunked,
    gram_sums,
)
from .fixed_point import _SQRT_EPS, _STALL_PATIENCE
from .newton import _Pivoting, _warn_active_set
from .problem import LSVMResult, _check_max_iter_tol, _check_nu_eta

__all__ = [
    "check_row_chunked",
    "decision_function",
    "gram_sums",
    "lsvm_linear",
    "lsvm_linear_newton",
    "nystroem_features",
]


def _report(callback, passes, iteration, opt):
    if callback is not None:
        callback({"pass": passes, "iteration": iteration, "opt": opt})


# --- Code 2, one pass a iteration ----------------------------------------------------------


def _code2_block(x, y, z, u_prev, *, p, nu, eta):
    """Iteration k on one block ``x`` of ``X`` (labels ``y``): ``u^k``, ``z^{k+1}`` and
    their shares of the sums.

    Sums: ``H'z^{k+1}`` (d+1), ``H'u^k`` (d+1), ``||u^k - u^{k-1}||^2``, ``||u^k||^2``.
    """
    y = y.astype(np.float64)
    # u^k = M^{-1} z^k by SMW (ksvm.linalg.smw_solve), with p = S^{-1} H'z^k from the sums
    u = nu * (z - apply_H(x, y, p))
    z_next = 1.0 + np.maximum((z - 1.0) - eta * u, 0.0)  # (15): z^{k+1} = M u^{k+1}
    diff = 0.0 if u_prev is None else float(np.sum((u - u_prev) ** 2))
    sums = np.concatenate([apply_Ht(x, y, z_next), apply_Ht(x, y, u), [diff, float(u @ u)]])
    return (u, z_next), sums


def _code2_block_first(x, y, z, **kw):
    return _code2_block(x, y, z, None, **kw)


def lsvm_linear(
    X,
    y,
    nu=None,
    max_iter=100,
    tol=1e-5,
    *,
    eta=None,
    return_history=False,
    callback=None,
):
    """Code 2 of Mangasarian & Musicant (2001) on a Dask array chunked by rows.

    The same iteration as :func:`ksvm.lsvm.lsvm_linear`, with the same
    arguments, defaults and stopping rules, and the same answer up to the
    order of the sums; :func:`ksvm.lsvm.lsvm_linear` calls it when ``X`` is a
    Dask array.

    Parameters
    ----------
    X : dask.array.Array of shape (n, d)
        Chunked by rows, one chunk along the columns.
    y : dask.array.Array of shape (n,) or array-like
        Two class labels (the second in sort order is +1); a Dask array must
        have the row chunks of ``X``.
    nu, max_iter, tol, eta, return_history
        As in :func:`ksvm.lsvm.lsvm_linear`.
    callback : callable or None
        Called after every pass over ``X`` with a dict: ``pass`` (passes made),
        ``iteration`` and ``opt`` (``||u^{i+1} - u^i||``, inf before the first
        step).  A progress bar, for instance: a run on 1e8 points takes minutes.

    Returns
    -------
    result : LSVMResult
        ``w`` (ndarray of shape (d,)) and ``b`` (float) on the client;
        ``u`` a persisted Dask array chunked like the rows of ``X``.
        ``passes`` extra attribute: the passes over ``X`` made (iterations + 2).

    Raises
    ------
    ValueError
        As :func:`ksvm.lsvm.lsvm_linear`, and for ``X`` chunked along its
        columns or labels not aligned with its row chunks
        (:func:`check_row_chunked`).

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` is reached first.

    Notes
    -----
    Passes over ``X``: one for ``H'H`` and ``H'1``, one for ``u^0``, one per
    iteration.  Memory on the workers: a block of ``X`` at a time per thread,
    and four vectors of length ``n`` (``u`` and ``z``, old and new) while an
    iteration runs.

    Examples
    --------
    >>> X = da.from_array(np.array([[0.0], [1.0], [3.0], [4.0]]), chunks=(3, 1))
    >>> r = lsvm_linear(X, [-1, -1, 1, 1], nu=100.0, tol=1e-10, max_iter=1000)
    >>> round(float(r.w[0]), 4), round(r.b, 4), type(r.u).__name__
    (0.9757, -1.9417, 'Array')
    """
    X, y = check_row_chunked(X, y)
    n, d = X.shape
    nu, eta = _check_nu_eta(nu, eta, n)
    max_iter, tol = _check_max_iter_tol(max_iter, tol)
    y = _labels_pm(y)
    HtH, Htz = gram_sums(X, y)  # pass 1, with the check that X is finite
    factor = smw_gram_factor(HtH, nu)  # Code 2 inverts this (d+1) x (d+1) matrix
    _report(callback, 1, 0, np.inf)

    z = da.ones(n, chunks=(X.chunks[0],))  # z^0 = M u^0 = 1
    u_prev = None
    history = []
    it, opt, best, since_best, at_floor = -1, np.inf, np.inf, 0, False
    while True:
        p = cholesky_solve(factor, Htz)  # S^{-1} H'z^k
        if u_prev is None:
            (u, z_next), sums = _per_block(
                _code2_block_first, [X, y, z], 2 * d + 4, 2, p=p, nu=nu, eta=eta
            )
        else:
            (u, z_next), sums = _per_block(
                _code2_block, [X, y, z, u_prev], 2 * d + 4, 2, p=p, nu=nu, eta=eta
            )
        u, z_next, sums = _persist(u, z_next, sums)
        sums = sums.compute()
        Htz, Htu = sums[: d + 1], sums[d + 1 : 2 * d + 2]
        it += 1
        z, u_prev = z_next, u
        if it == 0:
            _report(callback, 2, 0, np.inf)
            continue  # u^0: no step yet
        opt, norm_u = float(np.sqrt(sums[-2])), float(np.sqrt(sums[-1]))
        _report(callback, it + 2, it, opt)
        if return_history:
            history.append(opt)
        if opt <= tol:
            break
        best, since_best = (opt, 0) if opt < best else (best, since_best + 1)
        if since_best >= _STALL_PATIENCE and opt <= _SQRT_EPS * norm_u:  # as in fixed_point
            at_floor = True
            break
        if it >= max_iter:
            break
    converged = opt <= tol or at_floor
    if not converged:
        warnings.warn(
            f"LSVM (Dask) stopped at max_iter={max_iter} with ||u^(i+1) - u^i|| = {opt:.3g} > "
            f"tol={tol:g}; raise max_iter or tol, or use the active-set Newton solver "
            "(lsvm_linear_newton; solver='newton' or 'auto').",
            ConvergenceWarning,
            stacklevel=3,
        )
    result = LSVMResult(
        n_iter=it,
        opt=opt,
        u=u,
        w=Htu[:d].copy(),
        b=float(Htu[d]),
        converged=converged,
        at_floor=at_floor,
        history=np.array(history) if return_history else None,
    )
    result.passes = it + 2
    return result


# --- the active-set Newton solver: the free set on the workers --------------------------


def _newton_u_block(x, y, free, u_prev, *, p, nu):
    """``u`` on the free set from ``p = S_F^{-1} H_F'1``, 0 elsewhere; sums ``H'u`` and
    ``||u - u_prev||^2``; the maximum of ``u``."""
    y = y.astype(np.float64)
    u = np.zeros(x.shape[0]) if p is None else np.where(free, nu * (1.0 - apply_H(x, y, p)), 0.0)
    diff = float(np.sum((u - u_prev) ** 2)) if u_prev is not None else float(u @ u)
    return (u,), np.concatenate([apply_Ht(x, y, u), [diff]]), [u.max() if u.size else -np.inf]


def _newton_sign_block(x, y, free, u, index, *, c, nu, threshold):
    """Signs on one block: ``g = Mu - 1`` from ``c = H'u``, the wrong ones (their count,
    and the largest index as a maximum), the next free set's shares of ``H_F'H_F``
    and ``H_F'1``, and ``H' max(u, 0)``."""
    y = y.astype(np.float64)
    g = u / nu + apply_H(x, y, c) - 1.0
    infeasible = np.where(free, u < -threshold, g < -threshold)
    count = np.count_nonzero(infeasible)
    last = float(index[infeasible].max()) if count else -1.0
    next_free = free ^ infeasible
    sums = np.concatenate(
        [[count], _augmented_gram(x, y, keep=next_free), apply_Ht(x, y, np.maximum(u, 0.0))]
    )
    return (next_free,), sums, [last]


def _free_gram_block(x, y, free):
    return (), _augmented_gram(x, y, keep=free)


def _newton_u_pass(X, y, free, u_prev, HtH_F, Ht1_F, *, nu):
    """One pass over ``X`` for ``u`` on the free set ``F`` (0 elsewhere), from the sums
    ``H_F'H_F`` and ``H_F'1``: returns ``u`` (persisted), ``H'u``, ``||u - u_prev||``
    (``||u||`` at the first step) and the largest entry of ``u``."""
    d = X.shape[1]
    p = None
    if HtH_F[d, d] > 0:  # |F| > 0: (I/nu + H_F'H_F)^{-1} H_F'1
        p = cholesky_solve(smw_gram_factor(HtH_F, nu), Ht1_F)
    arrays = [X, y, free] + ([u_prev] if u_prev is not None else [])
    block = _newton_u_block if u_prev is not None else _newton_first_block
    (u,), sums, top = _per_block(block, arrays, d + 2, 1, n_max=1, p=p, nu=nu)
    u, sums, top = _persist(u, sums, top)
    sums, top = dask.compute(sums, top)
    return u, sums[: d + 1], float(np.sqrt(sums[d + 1])), float(top[0])


def _newton_sign_pass(X, y, free, u, index, c, *, nu, threshold):
    """One pass over ``X`` for the signs of ``u`` and ``Mu - 1`` (``c = H'u``): returns the
    next free set (persisted), the count of indices on the wrong side, the largest of
    them, the next free set's ``H_F'H_F`` and ``H_F'1``, and ``H' max(u, 0)``."""
    d = X.shape[1]
    (next_free,), sums, last = _per_block(
        _newton_sign_block,
        [X, y, free, u, index],
        1 + (d + 1) ** 2 + 2 * (d + 1),
        1,
        row_dtypes=(bool,),
        n_max=1,
        c=c,
        nu=nu,
        threshold=threshold,
    )
    next_free, sums, last = _persist(next_free, sums, last)
    sums, last = dask.compute(sums, last)
    HtH_next, Ht1_next = _unpack_gram(sums[1:], d, check=False)
    Htu_plus = sums[1 + (d + 1) ** 2 + d + 1 :]
    return next_free, int(sums[0]), int(last[0]), HtH_next, Ht1_next, Htu_plus


def _murty_pass(X, y, next_free):
    """One pass over ``X`` for the sums ``H_F'H_F`` and ``H_F'1`` of a free set that a single
    pivot made: returns the free set (persisted) and the two sums."""
    d = X.shape[1]
    next_free = _persist(next_free)[0]
    (), sums = _per_block(_free_gram_block, [X, y, next_free], (d + 1) ** 2 + d + 1, 0)
    HtH_next, Ht1_next = _unpack_gram(sums.compute(), d, check=False)
    return next_free, HtH_next, Ht1_next


def lsvm_linear_newton(
    X,
    y,
    nu=None,
    max_iter=100,
    tol=1e-8,
    *,
    return_history=False,
    patience=3,
    callback=None,
):
    """The active-set Newton LSVM on a Dask array chunked by rows.

    The method of :func:`ksvm.lsvm.lsvm_linear_newton` (block principal pivoting
    with Murty's rule as the safeguard, :func:`ksvm.lsvm.active_set`), with the
    same arguments, defaults and answer; that function calls this one when
    ``X`` is a Dask array.  The free set ``F`` is a persisted boolean Dask
    array; each step's ``(d+1) x (d+1)`` system ``I/nu + H_F'H_F`` is summed
    over the blocks, solved on the client, and applied on the workers.

    Parameters
    ----------
    X : dask.array.Array of shape (n, d)
        Chunked by rows, one chunk along the columns.
    y : dask.array.Array of shape (n,) or array-like
        Two class labels; a Dask array must have the row chunks of ``X``.
    nu, max_iter, tol, return_history
        As in :func:`ksvm.lsvm.lsvm_linear_newton`.
    patience : int, default=3
        As in :func:`ksvm.lsvm.active_set`.
    callback : callable or None
        As in :func:`lsvm_linear`; ``opt`` is the step's ``||u^{i+1} - u^i||``.

    Returns
    -------
    result : LSVMResult
        ``w``, ``b`` on the client, ``u`` a persisted Dask array; ``passes``:
        the passes over ``X`` made.

    Raises
    ------
    ValueError
        As :func:`lsvm_linear`.

    Warns
    -----
    ConvergenceWarning
        If some index is still on the wrong side after ``max_iter`` steps.

    Notes
    -----
    A step reads ``X`` twice: once for ``u`` on the free set and ``H'u``, once for
    the signs of ``u`` and ``Mu - 1`` and the sums of the next free set.  A
    Murty step (a single index changes side) sums the new free set in one more
    pass.

    Examples
    --------
    >>> X = da.from_array(np.array([[0.0], [1.0], [3.0], [4.0]]), chunks=(3, 1))
    >>> r = lsvm_linear_newton(X, [-1, -1, 1, 1], nu=100.0)
    >>> round(float(r.w[0]), 4), round(r.b, 4), r.n_iter
    (0.9757, -1.9417, 2)
    """
    X, y = check_row_chunked(X, y)
    n, d = X.shape
    nu, _ = _check_nu_eta(nu, None, n)
    max_iter, tol = _check_max_iter_tol(max_iter, tol)
    y = _labels_pm(y)
    chunks = (X.chunks[0],)
    index = da.arange(n, chunks=chunks, dtype=np.float64)
    HtH_F, Ht1_F = gram_sums(X, y)  # every index free at the start
    passes = 1
    _report(callback, passes, 0, np.inf)
    free = da.ones(n, chunks=chunks, dtype=bool)
    u, c = None, np.zeros(d + 1)  # u = 0 and (w, b) = 0 if no step is taken
    history = []
    pivoting = _Pivoting(n, patience)
    it, opt, converged, count = 0, np.inf, False, None
    while it < max_iter:
        u, c, opt, umax = _newton_u_pass(X, y, free, u, HtH_F, Ht1_F, nu=nu)
        passes += 1
        it += 1
        _report(callback, passes, it, opt)
        if return_history:
            history.append(opt)
        threshold = tol * max(1.0, umax)
        next_free, count, last, HtH_next, Ht1_next, Htu_plus = _newton_sign_pass(
            X, y, free, u, index, c, nu=nu, threshold=threshold
        )
        passes += 1
        _report(callback, passes, it, opt)
        if count == 0:
            converged = True
            break
        if not pivoting.block_step(count):  # Murty's single pivot on the largest wrong index
            next_free, HtH_next, Ht1_next = _murty_pass(X, y, free ^ (index == last))
            passes += 1
            _report(callback, passes, it, opt)
        free, HtH_F, Ht1_F = next_free, HtH_next, Ht1_next
    if converged:
        u = _persist(da.maximum(u, 0.0))[0]  # entries of at most the threshold's size below 0
        c = Htu_plus
    else:
        _warn_active_set(it, count, tol, " on Dask")
        if u is None:
            u = da.zeros(n, chunks=chunks)
    result = LSVMResult(
        n_iter=it,
        opt=opt,
        u=u,
        w=c[:d].copy(),
        b=float(c[d]),
        converged=converged,
        history=np.array(history) if return_history else None,
    )
    result.passes = passes
    return result


def _newton_first_block(x, y, free, **kw):
    return _newton_u_block(x, y, free, None, **kw)


# --- the estimator's Dask path ----------------------------------------------------------------


def validate_training_data(estimator, X, y):
    """:meth:`ksvm.lsvm.LagrangianSVC.fit`'s check of a Dask ``X`` (linear kernel only)
    and its labels ``y``: sets ``classes_`` and ``n_features_in_``, returns ``X`` and the
    labels as a lazy -1/+1 Dask array.  The estimator's ``fit`` then runs
    :func:`solve_linear` and records the solution as for an in-memory ``X``: ``coef_``
    and ``intercept_`` on the client, ``u_`` a persisted Dask array, and what would
    gather ``n``-sized data lazy (``support_``, the indices of the points with
    ``y_i f(x_i) < 1``, ``dual_coef_`` and ``support_vectors_`` are Dask arrays of
    unknown length: compute them to fetch them).
    """
    if estimator.kernel != "linear":
        raise ValueError(
            f"A Dask array can be fitted with kernel='linear' only (got {estimator.kernel!r}): "
            "the other kernels need the n x n kernel matrix. For a nonlinear classifier on a "
            "Dask array, map it to features first (ksvm.lsvm_dask.nystroem_features)."
        )
    X, y = check_row_chunked(X, y, name="X")
    classes = _classes(y)
    estimator.classes_, estimator.n_features_in_ = classes, X.shape[1]
    return X, da.where(y == classes[1], 1.0, -1.0)


def solve_linear(X, y, nu, newton, options):
    """The linear LSVM on a Dask ``X`` with labels ``y`` (-1/+1): the solver's result and
    the indices of the points with ``y_i f(x_i) < 1``, a lazy Dask array."""
    solve = lsvm_linear_newton if newton else lsvm_linear
    result = solve(X, y, nu, **options)
    margins = y * _linear_scores(X, result.w, result.b)
    return result, da.flatnonzero(margins < 1.0)


def _linear_scores(X, w, b):
    return X.map_blocks(lambda x: x @ w + b, drop_axis=1, dtype=np.float64, meta=np.empty((0,)))


def _check_fitted_linear(estimator, X):
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "classes_")
    if estimator.kernel != "linear":
        raise ValueError(
            f"A Dask array can be classified with kernel='linear' only (got {estimator.kernel!r})."
        )
    X, _ = check_row_chunked(X, name="X")
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    return X


def decision_function(estimator, X):
    """``X coef_' + intercept_`` for a Dask ``X``: a Dask array chunked like the rows of ``X``."""
    X = _check_fitted_linear(estimator, X)
    return _linear_scores(X, estimator.coef_[0], estimator.intercept_[0])


def predict(estimator, X):
    """Labels from ``classes_`` for a Dask ``X``: a Dask array chunked like the rows of ``X``."""
    classes = estimator.classes_
    return decision_function(estimator, X).map_blocks(
        lambda s: classes[(s > 0).astype(int)],
        dtype=classes.dtype,
        meta=np.empty((0,), dtype=classes.dtype),
    )


# --- a nonlinear kernel at scale: Nystroem features per block ------------------------------


def nystroem_features(X, n_components=100, *, gamma="scale", random_state=None):
    """Nystroem features of the Gaussian kernel for a Dask ``X``, computed block by block.

    The landmarks are ``n_components`` rows of ``X`` drawn without replacement
    (the only rows gathered to the client); :class:`ksvm.features.NystroemFeatures`
    is fitted on them (every one a landmark), and its ``transform`` is mapped
    over the row blocks.  The features feed :func:`lsvm_linear` or
    :func:`lsvm_linear_newton` as any data would.

    Parameters
    ----------
    X : dask.array.Array of shape (n, d)
        Chunked by rows.
    n_components : int >= 1, default=100
        The number of landmarks and of features; at most ``n``.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
        Width of ``exp(-gamma ||x - z||^2)``; 'scale' and 'auto' are resolved on
        the landmarks.
    random_state : int or None
        Seeds the choice of landmarks.

    Returns
    -------
    Phi : dask.array.Array of shape (n, n_components)
        Lazy, chunked like the rows of ``X``.
    transformer : ksvm.features.NystroemFeatures
        Fitted: it maps new points (``transformer.transform``) the same way.

    Raises
    ------
    ValueError
        If ``n_components`` is not an integer in ``[1, n]``, or as
        :func:`check_row_chunked`.

    Examples
    --------
    >>> X = da.from_array(np.random.default_rng(0).random((100, 2)), chunks=(30, 2))
    >>> Phi, nys = nystroem_features(X, 10, gamma=2.0, random_state=0)
    >>> Phi.shape, Phi.chunks[0]
    ((100, 10), (30, 30, 30, 10))
    >>> bool(np.allclose(Phi.compute(), nys.transform(X.compute())))
    True
    """
    from .._validation import check_integer
    from ..features import NystroemFeatures

    X, _ = check_row_chunked(X, name="X")
    n = X.shape[0]
    n_components = check_integer(n_components, "n_components")
    if not 1 <= n_components <= n:
        raise ValueError(
            f"n_components must be in [1, {n}] (the number of rows), got {n_components}."
        )
    rows = np.sort(np.random.default_rng(random_state).choice(n, n_components, replace=False))
    landmarks = X[rows].compute()
    transformer = NystroemFeatures(n_components=n_components, gamma=gamma, random_state=0).fit(
        landmarks
    )
    Phi = X.map_blocks(
        transformer.transform,
        chunks=(X.chunks[0], (n_components,)),
        dtype=np.float64,
        meta=np.empty((0, 0)),
    )
    return Phi, transformer
