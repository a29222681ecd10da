"""The weighted gradient ascent and the variability bias of Cocianu & State (2013).

The hard-margin dual (their (7)) is

.. math::

    \\max_\\alpha\\ Q(\\alpha) = \\sum_i \\alpha_i
        - \\tfrac12 \\sum_{i,j} \\alpha_i \\alpha_j y_i y_j K(x_i, x_j)
    \\quad\\text{s.t.}\\quad \\sum_i \\alpha_i y_i = 0,\\ \\alpha_i \\ge 0 .

Its gradient (10) is ``G_k = 1 - y_k F_k`` with ``F = K(alpha * y)``.  One
step of the ascent, (13)-(14), takes a positive example ``p1`` and a negative
one ``p2`` and adds the same amount

.. math::

    \\delta = \\rho\\,[\\rho_1 G_{p_1} + (1 - \\rho_1) G_{p_2}]

to both ``alpha_p1`` and ``alpha_p2``; since ``y_p1 = -y_p2`` the constraint
``sum alpha_i y_i = 0`` is kept.  Along that direction ``Q`` changes exactly by

.. math::

    \\Delta Q = \\delta (G_{p_1} + G_{p_2}) - \\tfrac12 \\delta^2 \\eta,
    \\qquad \\eta = K_{p_1 p_1} + K_{p_2 p_2} - 2 K_{p_1 p_2},

which :func:`weighted_ascent` evaluates for all pairs at once and maximises
(their (15)).  The paper does not say how ``alpha >= 0`` is kept; here a
step that would make either coefficient negative is shortened to stop at 0
(``nonnegative='clip'``), and ``nonnegative='none'`` shows what happens
without.

The weight ``rho_1`` (17) balances the two classes by ``theta`` (16), a
Fisher-like ratio of the squared norm of the class mean to its variance along
itself, both in the feature space; the lemma (18) writes it through the
kernel (:func:`ksvm.class_statistics.rho1`).  The bias is either the standard
(8), midway between the innermost positive and negative example, or (22), which
leans towards the class of larger variability (19)-(21); these class
statistics are :mod:`ksvm.class_statistics`.

References
----------
Cocianu, C. and State, L. (2013), Kernel-based methods for learning non-linear
SVM, Economic Computation and Economic Cybernetics Studies and Research 47(1),
sections 3-5.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._validation import (
    check_gram_labels,
    check_integer,
    check_positive,
    check_positive_integer,
    check_unit_interval,
    one_of,
    optional,
)
from .base import BaseKernelClassifier, Solution
from .class_statistics import (
    _index,
    class_variability,
    rho1,
    separable_in_feature_space,
    standard_bias,
    variability_bias,
)
from .smo import dual_objective, smo

__all__ = ["AscentResult", "GradientAscentSVC", "weighted_ascent"]


@dataclass
class AscentResult:
    """What :func:`weighted_ascent` returns.

    Attributes
    ----------
    alpha : ndarray of shape (N,)
    objective : float
        ``Q(alpha)``, recomputed from ``alpha``.
    n_iter : int
        Pair updates made.
    converged : bool
        True if a stopping rule of the paper ended the run, False at ``max_iter``.
    stop : str
        'no ascent pair' (no pair satisfies (15)), 'small change'
        (``|Q - Q_old| < tol``) or 'max_iter'.
    rho1 : float
        The weight used.
    remaining_gain : float
        The largest increase of ``Q`` still available from one pair of opposite
        labels with SMO's best step (``s / eta``, kept feasible): about 0 at the
        optimum of (7), whatever rule stopped the run.
    history : ndarray or None
        ``Q`` after every iteration, the start (``Q = 0``) included, if asked for.
    """

    alpha: np.ndarray
    objective: float
    n_iter: int
    converged: bool
    stop: str
    rho1: float
    remaining_gain: float = 0.0
    history: np.ndarray = field(default=None, repr=False)


def _check_weight(value, name):
    """'rho1', 'equal' or a number in [0, 1]: the weight rho_1 of (14)."""
    if isinstance(value, str):
        return one_of("rho1", "equal")(value, name)
    return check_unit_interval(value, name)


def _require_separable(K, y_pm):
    if not separable_in_feature_space(K, y_pm):
        raise ValueError(
            "The two classes are not separable in the feature space of this kernel, so the "
            "hard-margin dual (7) is unbounded and has no optimum. Use a soft margin "
            "(ksvm.SoftMarginSVC) or a more flexible kernel."
        )


def weighted_ascent(
    K,
    y,
    rho=1e-2,
    weight="rho1",
    tol=1e-8,
    max_iter=100000,
    nonnegative="clip",
    check_separable=True,
    return_history=False,
):
    """Solve the hard-margin dual (7) by the pairwise weighted gradient ascent (13)-(15).

    Parameters
    ----------
    K : array-like of shape (N, N)
        The Gram matrix.
    y : array-like of shape (N,)
        Two class labels; the second in sort order is the positive class.
    rho : float > 0, default=1e-2
        The learning rate; the paper uses values in ``[1e-6, 1e-2]``.
    weight : {'rho1', 'equal'} or float in [0, 1], default='rho1'
        The weight ``rho_1`` of (14): from the lemma (:func:`~ksvm.class_statistics.rho1`), 0.5, or
        the value given.
    tol : float > 0, default=1e-8
        The threshold ``epsilon`` of the stopping rule ``|Q - Q_old| < epsilon``.
    max_iter : int, default=100000
    nonnegative : {'clip', 'none'}, default='clip'
        'clip' shortens a step that would make ``alpha_p1`` or ``alpha_p2``
        negative so that it stops at 0; 'none' applies (14) as printed.
    check_separable : bool, default=True
        Refuse data that are not separable in the feature space, for which
        (7) is unbounded (:func:`~ksvm.class_statistics.separable_in_feature_space`, one LP).
    return_history : bool, default=False
        Keep ``Q`` after every iteration.

    Returns
    -------
    result : AscentResult

    Raises
    ------
    ValueError
        On invalid input, ``rho <= 0``, a weight outside [0, 1], or data not
        separable in the feature space.

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` is reached before a stopping rule holds.

    Notes
    -----
    Each iteration scores all ``N_+ x N_-`` pairs (``O(N_+ N_-)``) and updates
    ``F = K(alpha * y)`` with two columns of ``K`` (``O(N)``).  The direction
    ``e_p1 + e_p2`` is the one SMO takes for a pair of opposite labels; SMO's
    step along it is ``(G_p1 + G_p2) / eta``, the maximiser of ``Delta Q``.

    Examples
    --------
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> r = weighted_ascent(np.outer(x, x), [-1, -1, 1, 1], rho=0.5, tol=1e-12)
    >>> np.round(r.alpha, 4), round(r.objective, 4), r.stop
    (array([0. , 0.5, 0.5, 0. ]), 0.5, 'no ascent pair')
    """
    K, y_pm = check_gram_labels(K, y)
    rho = check_positive(rho, "rho")
    tol = check_positive(tol, "tol")
    max_iter = check_integer(max_iter, "max_iter")
    nonnegative = one_of("clip", "none")(nonnegative, "nonnegative")
    weight = _check_weight(weight, "weight")
    w1 = {"rho1": lambda: rho1(K, y_pm), "equal": lambda: 0.5}.get(weight, lambda: weight)()
    if check_separable:
        _require_separable(K, y_pm)
    pos, neg = np.flatnonzero(y_pm > 0), np.flatnonzero(y_pm < 0)
    diag = np.diag(K)
    eta = diag[pos][:, None] + diag[neg][None, :] - 2.0 * K[np.ix_(pos, neg)]  # ||g(p1) - g(p2)||^2
    clip = nonnegative == "clip"
    alpha, n_iter, stop, history = _ascend(
        K, y_pm, pos, neg, eta, (rho, w1, tol, max_iter), clip, return_history
    )
    if clip:
        alpha = np.maximum(alpha, 0.0)  # entries clipped to 0 may hold -1e-17
    objective = dual_objective(alpha, K, y_pm)
    remaining = _remaining_gain(K, y_pm, alpha, pos, neg, eta)
    _warn_if_short(stop, max_iter, tol, objective, remaining, w1, nonnegative == "clip")
    return AscentResult(
        alpha=alpha,
        objective=objective,
        n_iter=n_iter,
        converged=stop != "max_iter",
        stop=stop,
        rho1=w1,
        remaining_gain=remaining,
        history=np.array(history) if return_history else None,
    )


def _ascend(K, y_pm, pos, neg, eta, settings, clip, return_history):
    """The iterations of :func:`weighted_ascent`: ``(alpha, n_iter, stop, history)``.

    Each step scores all ``N_+ x N_-`` pairs, so the loop is written for speed: the
    points are held positives first (the gradients of the two classes are then views
    of one vector, and the columns of ``K`` rows of a copy), the two sums over pairs
    are one broadcast, every pair array is a buffer filled in place, and the bound
    ``-min(alpha_p1, alpha_p2)`` of the clip is renewed only in the row and the column
    of the pair that moved.  Each entry is still computed by the same floating-point
    operations, in the same order, as the expression in the comment beside it, so
    that the run does not depend on how it is written.
    """
    rho, w1, tol, max_iter = settings
    n_pos, n_neg = len(pos), len(neg)
    order = np.concatenate([pos, neg])
    cols = K[np.ix_(order, order)].T.copy()  # cols[c] = K[order, order[c]], a column of K
    y = y_pm[order]
    weights = np.where(y > 0, w1, 1.0 - w1)
    alpha, F, dF = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y))  # F = K (alpha * y)
    alpha_p, alpha_n = alpha[:n_pos], alpha[n_pos:]
    wG_G = np.zeros((2, len(y)))  # (w1 Gp, (1 - w1) Gn) and (Gp, Gn)
    wG, G = wG_G
    firsts, seconds = wG_G[:, :n_pos, None], wG_G[:, None, n_pos:]  # broadcast over pairs
    sums = np.empty((2, n_pos, n_neg))  # w1 Gp + (1 - w1) Gn and s = Gp + Gn, for all pairs
    delta, s = sums
    gain, half = np.empty((n_pos, n_neg)), np.empty((n_pos, n_neg))
    floor = -np.minimum(alpha_p[:, None], alpha_n[None, :])
    Q, history = 0.0, [0.0]
    n_iter, stop = 0, "max_iter"
    while n_iter < max_iter:
        np.subtract(1.0, np.multiply(y, F, out=G), out=G)  # G = 1 - y F (10)
        np.multiply(weights, G, out=wG)
        np.add(firsts, seconds, out=sums)
        np.multiply(rho, delta, out=delta)  # delta = rho (w1 Gp + (1 - w1) Gn) (14)
        if clip:
            np.maximum(delta, floor, out=delta)  # delta = max(delta, -min(alpha_p1, alpha_p2))
        np.multiply(delta, s, out=gain)
        np.multiply(delta, delta, out=half)
        np.multiply(0.5, half, out=half)
        np.multiply(half, eta, out=half)
        np.subtract(gain, half, out=gain)  # delta s - 0.5 delta^2 eta = Q(alpha) - Q(alpha_old)
        k = int(gain.argmax())
        if not delta.item(k) * s.item(k) > 0:
            # (15): the first-order increase must be positive.  The pairs with delta s > 0
            # are some of all pairs: when the first best of all is one of them, it is the
            # first best of them too, so they need picking out only when it is not (at
            # the stop, or where rounding makes an eta negative).
            gain[delta * s <= 0] = -np.inf
            k = int(gain.argmax())
        step_gain = gain.item(k)
        if not step_gain > 0:
            stop = "no ascent pair"
            break
        i, j = divmod(k, n_neg)
        d = delta.item(k)
        alpha_p[i] += d
        alpha_n[j] += d
        if clip:
            floor[i] = -np.minimum(alpha_p[i], alpha_n)
            floor[:, j] = -np.minimum(alpha_p, alpha_n[j])
        np.subtract(cols[i], cols[n_pos + j], out=dF)
        np.add(F, np.multiply(d, dF, out=dF), out=F)  # F += d (K[:, p1] - K[:, p2])
        Q += step_gain
        n_iter += 1
        if return_history:
            history.append(Q)
        if abs(step_gain) < tol:
            stop = "small change"
            break
    alpha_out = np.empty_like(alpha)
    alpha_out[order] = alpha
    return alpha_out, n_iter, stop, history


def _warn_if_short(stop, max_iter, tol, objective, remaining, w1, clipped):
    """Warn the caller of :func:`weighted_ascent` if the run ended at ``max_iter``, or (with
    the steps clipped at 0) short of the optimum by more than a relative 1e-3."""
    if stop == "max_iter":
        warnings.warn(
            f"The weighted gradient ascent stopped at max_iter={max_iter} before "
            f"|Q - Q_old| < tol={tol:g}; raise max_iter or rho (<= 1e-2 in the paper), or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    elif clipped and remaining > 1e-3 * max(1.0, abs(objective)):
        warnings.warn(
            f"The weighted gradient ascent stopped ({stop!r}) with Q = {objective:.6g}, but one "
            f"SMO step could still raise Q by {remaining:.3g}: it has stalled short of the "
            f"optimum. With rho_1 = {w1:.3g} != 0.5 the step (14) does not vanish where the "
            "optimum is; use weight='equal' or a solver such as ksvm.smo.smo.",
            ConvergenceWarning,
            stacklevel=3,
        )


def _remaining_gain(K, y, alpha, pos, neg, eta):
    """The largest exact gain of one SMO step ``t = s / eta`` over the opposite-label pairs,
    the step shortened so that ``alpha`` stays non-negative."""
    G = 1.0 - y * (K @ (alpha * y))
    s = G[pos][:, None] + G[neg][None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(eta > 0, s / eta, np.sign(s) * np.inf)
    t = np.maximum(t, -np.minimum(alpha[pos][:, None], alpha[neg][None, :]))
    t = np.minimum(t, 1e300)  # eta = 0 with s > 0: unbounded (no hard margin); keep finite
    gain = t * s - 0.5 * t**2 * eta
    return float(max(gain.max(), 0.0))


class GradientAscentSVC(BaseKernelClassifier):
    """The hard-margin kernel SVM of Cocianu & State (2013), with their choice of bias.

    The classifier is the hard-margin dual (7) with the bias (8) or (22).
    ``solver='ascent'`` trains it by the paper's weighted gradient ascent
    (13)-(15) (:func:`weighted_ascent`), which, with ``rho_1 != 1/2``, stops
    short of the optimum of (7) (it warns, and the weighted-ascent chapter
    measures by how much).  The default ``solver='smo'`` reaches the optimum:
    :func:`ksvm.smo.smo` with ``C = inf``.  Both refuse data that are not
    separable in the feature space, for which (7) has no optimum.

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid', 'precomputed'} or callable
        The kernel (:func:`ksvm.kernels.make_kernel`), 'rbf' by default.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
    degree : int >= 1, default=3
    coef0 : float, default=1.0
    solver : {'smo', 'ascent'}, default='smo'
    rho : float > 0, default=1e-2
        Learning rate of (14) (``solver='ascent'``).
    weight : {'rho1', 'equal'} or float in [0, 1], default='rho1'
        The weight of (14) (``solver='ascent'``); see :func:`weighted_ascent`.
    bias : {'standard', 'variability'}, default='standard'
        (8) or (22).
    reading : {'margin', 'boundary'}, default='margin'
        How ``b_+`` and ``b_-`` of (22) are read (:func:`~ksvm.class_statistics.class_biases`).
    tol : float > 0 or None, default=None
        The solver's tolerance: the KKT gap for 'smo' (None: 1e-3, as ``SVC``),
        ``epsilon`` of the stopping rule ``|Q - Q_old| < epsilon`` for 'ascent'
        (None: 1e-8).
    max_iter : int or None, default=None
        None means the solver's default (:func:`ksvm.smo.smo`'s; 100000 for
        the ascent).

    Attributes
    ----------
    classes_, n_features_in_, support_, support_vectors_, dual_coef_, coef_
        As for every ``ksvm`` classifier (:mod:`ksvm.base`): ``dual_coef_``
        holds ``alpha_i y_i`` of the support vectors (``alpha_i > 0``).
    intercept_ : ndarray of shape (1,)
        The bias chosen by ``bias``.
    alpha_ : ndarray of shape (n_samples,)
        The dual coefficients.
    n_iter_ : int
    converged_ : bool
        SMO reached its KKT tolerance, or a stopping rule of the paper ended
        the ascent (not ``max_iter``).
    standard_bias_, variability_bias_ : float
        (8) and (22).
    rho1_ : float or None
        The weight the ascent used (None with ``solver='smo'``).
    class_variability_ : ndarray of shape (2,)
        ``var(C)`` (20) of ``classes_[0]`` and ``classes_[1]``.
    variability_index_ : float
        ``ind`` (21).
    dual_objective_ : float
        ``Q(alpha)`` of (7).

    Raises
    ------
    ValueError
        From ``fit``: invalid data or hyper-parameters, not exactly two classes,
        a class with one example when ``weight='rho1'``, a kernel whose Gram
        matrix is not positive semi-definite, or classes that are not
        separable in the feature space (the hard margin does not exist).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> clf = GradientAscentSVC(kernel="linear").fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[1.9], [2.1]]).tolist(), clf.support_.tolist()
    (['a', 'b'], [1, 2])
    >>> paper = GradientAscentSVC(kernel="linear", solver="ascent", rho=0.5).fit(X, [0, 0, 1, 1])
    >>> np.round(paper.alpha_, 4), paper.converged_
    (array([0. , 0.5, 0.5, 0. ]), True)
    """

    _parameters = {
        **BaseKernelClassifier._parameters,
        "solver": one_of("smo", "ascent"),
        "rho": check_positive,
        "weight": _check_weight,
        "bias": one_of("standard", "variability"),
        "reading": one_of("margin", "boundary"),
        "tol": optional(check_positive),
        "max_iter": optional(check_positive_integer),
    }

    def __init__(
        self,
        *,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        solver="smo",
        rho=1e-2,
        weight="rho1",
        bias="standard",
        reading="margin",
        tol=None,
        max_iter=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.rho = rho
        self.weight = weight
        self.bias = bias
        self.reading = reading
        self.tol = tol
        self.max_iter = max_iter

    _psd_reason = "the hard-margin dual (7) is concave only for a PSD kernel."

    def _solve(self, K, y_pm, params):
        """Solve the hard-margin dual (7) for the Gram matrix ``K``; choose the bias."""
        p = params
        _require_separable(K, y_pm)
        if p["solver"] == "ascent":
            result = weighted_ascent(
                K,
                y_pm,
                rho=p["rho"],
                weight=p["weight"],
                tol=1e-8 if p["tol"] is None else p["tol"],
                max_iter=100000 if p["max_iter"] is None else p["max_iter"],
                check_separable=False,
            )
            self.rho1_ = result.rho1
        else:
            result = smo(
                K, y_pm, np.inf, tol=1e-3 if p["tol"] is None else p["tol"], max_iter=p["max_iter"]
            )
            self.rho1_ = None
        alpha = result.alpha
        self.alpha_ = alpha
        self.standard_bias_ = standard_bias(K, y_pm, alpha)
        self.variability_bias_ = variability_bias(K, y_pm, alpha, p["reading"])
        chosen = self.standard_bias_ if p["bias"] == "standard" else self.variability_bias_
        self.class_variability_ = np.array(class_variability(K, y_pm))
        self.variability_index_ = _index(*self.class_variability_)
        self.dual_objective_ = result.objective
        return Solution(alpha * y_pm, chosen, result.n_iter, result.converged)
