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
kernel (:func:`rho1`).  The bias is either the standard (8), midway between the
innermost positive and negative example, or (22), which leans towards the
class of larger variability (19)-(21).

References
----------
Cocianu, C. and State, L. (2013), Kernel-based methods for learning non-linear
SVM, Economic Computation and Economic Cybernetics Studies and Research 47(1),
sections 3-5.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.exceptions import ConvergenceWarning

from ._validation import (
    check_gram_labels,
    check_integer,
    check_matrix,
    check_positive,
    check_positive_integer,
    check_unit_interval,
    encode_binary_labels,
    one_of,
    optional,
)
from .base import BaseKernelClassifier, Solution
from .primal import is_linearly_separable
from .smo import dual_objective, smo

__all__ = [
    "theta_parts",
    "theta_ratio",
    "rho1",
    "rho1_explicit",
    "variability",
    "class_variability",
    "class_variability_explicit",
    "variability_index",
    "standard_bias",
    "class_biases",
    "variability_bias",
    "separable_in_feature_space",
    "AscentResult",
    "weighted_ascent",
    "GradientAscentSVC",
]


def theta_parts(K_block):
    """``||mu||^4`` and ``mu' Sigma mu`` of one class from its kernel block (the lemma (18)).

    ``theta`` of (16) is their ratio; :func:`rho1` combines the two classes'
    parts without dividing by a variance that may be 0.

    Parameters
    ----------
    K_block : ndarray of shape (m, m)
        The Gram matrix of the class's examples, ``m >= 2``.

    Returns
    -------
    mean_norm4, spread : float
        ``||mu||^4 = ((1/m^2) sum_ij K_ij)^2`` and ``mu' Sigma mu`` with the
        sample covariance ``Sigma`` (divisor ``m - 1``) of the class in the
        feature space.

    Raises
    ------
    ValueError
        If the class has fewer than two examples.

    Examples
    --------
    >>> x = np.array([1.0, 3.0])  # one feature: mu = 2, Sigma = 2
    >>> theta_parts(np.outer(x, x))
    (16.0, 8.0)
    """
    n = K_block.shape[0]
    if n < 2:
        raise ValueError(f"rho_1 needs at least two examples in each class (the "
                         f"covariance divides by n - 1); a class has {n}. "
                         "Use weight='equal'.")
    norm2 = K_block.sum() / n**2  # ||m||^2, the mean of the block
    # n (<m, phi_j> - ||m||^2) for every j: the centred column sums of the lemma
    T = K_block.sum(axis=0) - K_block.sum() / n
    # below the rounding error of a sum of n entries, set a norm or a centred sum to 0
    noise = 8.0 * n * np.finfo(float).eps * float(np.abs(K_block).max(initial=0.0))
    if abs(norm2) <= noise:
        norm2 = 0.0
    T[np.abs(T) <= noise] = 0.0
    return float(norm2**2), float(T @ T) / (n**2 * (n - 1))  # ||m||^4, m' Sigma m


def theta_ratio(a1, v1, a2, v2):
    """``rho_1 = theta_2 / (theta_1 + theta_2)`` (17) with ``theta_i = a_i / v_i``, written
    without dividing by a variance that may be 0: ``a_2 v_1 / (a_1 v_2 + a_2 v_1)``.

    The denominator vanishes only when a class mean is 0 (then ``a_i = v_i = 0``
    and ``theta_i``, 0/0, has the limit 0 as the mean shrinks to 0) or both
    variances are 0 (both ``theta`` infinite).  The value returned is the limit:
    1 if only ``theta_1`` vanishes, 0 if only ``theta_2`` does, 0.5 otherwise.

    Parameters
    ----------
    a1, v1, a2, v2 : float
        :func:`theta_parts` of the positive class (``a1, v1``) and of the
        negative class (``a2, v2``), all ``>= 0``.

    Returns
    -------
    rho_1 : float in [0, 1]

    Examples
    --------
    >>> theta_ratio(16.0, 8.0, 4.0, 8.0)  # theta_1 = 2, theta_2 = 0.5
    0.2
    >>> theta_ratio(16.0, 0.0, 4.0, 0.0)  # both variances 0: the limit 1/2
    0.5
    """
    den = a1 * v2 + a2 * v1
    if den > 0:
        return float(a2 * v1 / den)
    if a1 == 0 < a2:
        return 1.0
    if a2 == 0 < a1:
        return 0.0
    return 0.5


def rho1(K, y):
    """The weight ``rho_1`` (17) from the kernel alone, by the lemma (18).

    Parameters
    ----------
    K : array-like of shape (N, N)
        The Gram matrix of the training points.
    y : array-like of shape (N,)
        Two class labels; the second in sort order is the paper's first class
        ``h_1`` (label +1).  The examples need not be ordered by class.

    Returns
    -------
    rho_1 : float in [0, 1]
        ``theta_2 / (theta_1 + theta_2)``, with
        ``theta_i = ||mu_i||^4 / (mu_i' Sigma_i mu_i)`` (16) in the feature space.
        Where a ``theta`` is undefined (a class mean of 0 gives 0/0, a class
        collapsed to one point gives 1/0) the value is the limit: 1 if only
        ``mu_1 = 0``, 0.5 if both means are 0 or both classes collapsed.

    Raises
    ------
    ValueError
        If a class has fewer than two examples, or on invalid input.

    Examples
    --------
    With the linear kernel on the line, ``rho_1`` is the Fisher-type ratio of
    the two classes' ``mu^2 / sigma^2``:

    >>> x = np.array([1.0, 2.0, 3.0, -1.0, -3.0])
    >>> round(rho1(np.outer(x, x), [1, 1, 1, -1, -1]), 6)
    0.333333
    """
    K, y_pm = check_gram_labels(K, y)
    pos, neg = y_pm > 0, y_pm < 0
    a1, v1 = theta_parts(K[np.ix_(pos, pos)])
    a2, v2 = theta_parts(K[np.ix_(neg, neg)])
    return theta_ratio(a1, v1, a2, v2)


def rho1_explicit(Phi, y):
    """``rho_1`` (16)-(17) from explicit feature vectors: the reference for :func:`rho1`.

    Parameters
    ----------
    Phi : array-like of shape (N, D)
        The feature vectors ``g(x_i)``, one per row.
    y : array-like of shape (N,)

    Returns
    -------
    rho_1 : float

    Examples
    --------
    >>> round(rho1_explicit([[1.0], [2.0], [3.0], [-1.0], [-3.0]], [1, 1, 1, -1, -1]), 6)
    0.333333
    """
    Phi = check_matrix(Phi, name="Phi")
    y_pm, _ = encode_binary_labels(y)
    parts = []
    for label in (1.0, -1.0):
        G = Phi[y_pm == label]
        if G.shape[0] < 2:
            raise ValueError("rho_1 needs at least two examples in each class.")
        mu = G.mean(axis=0)
        Sigma = np.atleast_2d(np.cov(G, rowvar=False))  # 1/(m-1), as in (16)
        parts += [float(mu @ mu) ** 2, float(mu @ Sigma @ mu)]
    return theta_ratio(*parts)


def variability(K_block):
    """``var(C)`` (20) of one class from its kernel block: half the mean distance
    ``sqrt(K_ii - 2 K_ij + K_jj)`` over the ordered pairs of the class, ``i = j`` included.

    A rounding error can make ``K_ii - 2 K_ij + K_jj`` slightly negative; it is
    set to 0.

    Parameters
    ----------
    K_block : ndarray of shape (m, m)
        The Gram matrix of the class's examples.

    Returns
    -------
    var : float

    Examples
    --------
    >>> x = np.array([0.0, 2.0])  # one distance 2, in both orders, over 2 * 2^2 = 8
    >>> variability(np.outer(x, x))
    0.5
    """
    diag = np.diag(K_block)
    # ||phi_i - phi_j||^2 for every ordered pair; rounding can leave it just below 0
    sq = np.maximum(diag[:, None] - 2.0 * K_block + diag[None, :], 0.0)
    return float(np.sqrt(sq).sum() / (2.0 * K_block.shape[0] ** 2))


def class_variability(K, y):
    """``var(C)`` (20) of each class: half the mean feature-space distance within it.

    Parameters
    ----------
    K : array-like of shape (N, N)
    y : array-like of shape (N,)

    Returns
    -------
    var_neg, var_pos : float
        ``var(C_-)`` and ``var(C_+)``, in the order of the sorted labels.

    Examples
    --------
    >>> x = np.array([0.0, 2.0, 5.0, 6.0])
    >>> class_variability(np.outer(x, x), [1, 1, -1, -1])  # distances 2 and 1, twice each
    (0.25, 0.5)
    """
    K, y_pm = check_gram_labels(K, y)
    return tuple(variability(K[np.ix_(y_pm == s, y_pm == s)]) for s in (-1.0, 1.0))


def class_variability_explicit(Phi, y):
    """``var(C)`` (19) from explicit feature vectors: the reference for :func:`class_variability`.

    Parameters
    ----------
    Phi : array-like of shape (N, D)
    y : array-like of shape (N,)

    Returns
    -------
    var_neg, var_pos : float

    Examples
    --------
    >>> class_variability_explicit([[0.0], [2.0], [5.0], [6.0]], [1, 1, -1, -1])
    (0.25, 0.5)
    """
    Phi = check_matrix(Phi, name="Phi")
    y_pm, _ = encode_binary_labels(y)
    out = []
    for label in (-1.0, 1.0):
        G = Phi[y_pm == label]
        out.append(float(cdist(G, G).sum() / (2.0 * G.shape[0] ** 2)))
    return tuple(out)


def variability_index(K, y):
    """``ind`` (21): the smaller class variability over the larger, in [0, 1].

    Parameters
    ----------
    K : array-like of shape (N, N)
    y : array-like of shape (N,)

    Returns
    -------
    ind : float
        1.0 if both classes have zero variability.

    Examples
    --------
    >>> x = np.array([0.0, 2.0, 5.0, 6.0])
    >>> variability_index(np.outer(x, x), [1, 1, -1, -1])
    0.5
    """
    return _index(*class_variability(K, y))


def _index(v_neg, v_pos):
    """``ind`` (21) from the two class variabilities."""
    big = max(v_neg, v_pos)
    return 1.0 if big == 0 else min(v_neg, v_pos) / big


def _outputs(K, y, alpha):
    K, y_pm = check_gram_labels(K, y)
    alpha = np.asarray(alpha, dtype=np.float64)
    if alpha.shape != y_pm.shape:
        raise ValueError(f"alpha has shape {alpha.shape}; one coefficient per example is needed.")
    return K @ (alpha * y_pm), y_pm


def standard_bias(K, y, alpha):
    """The bias (8): ``-(max_{y_i=-1} F_i + min_{y_i=+1} F_i) / 2``, ``F = K(alpha * y)``.

    It puts the boundary midway between the innermost negative and positive
    examples.

    Parameters
    ----------
    K : array-like of shape (N, N)
    y : array-like of shape (N,)
    alpha : array-like of shape (N,)

    Returns
    -------
    b : float

    Examples
    --------
    >>> standard_bias(np.outer([1.0, 3.0], [1.0, 3.0]), [-1, 1], [0.5, 0.5])  # F = (1, 3)
    -2.0
    """
    F, y_pm = _outputs(K, y, alpha)
    return float(-0.5 * (F[y_pm < 0].max() + F[y_pm > 0].min()))


def class_biases(K, y, alpha, reading="margin"):
    """``b_+`` and ``b_-``, which the paper uses in (22) but does not define.

    Parameters
    ----------
    K, y, alpha
        As in :func:`standard_bias`.
    reading : {'margin', 'boundary'}, default='margin'
        'margin': ``b_+ = 1 - min_{y=+1} F`` puts the innermost positive on
        its margin ``f = +1``, ``b_- = -1 - max_{y=-1} F`` the innermost negative
        on ``f = -1``.  'boundary': ``b_+ = -min_{y=+1} F`` and
        ``b_- = -max_{y=-1} F`` put them on the boundary ``f = 0``.  In both
        readings ``(b_+ + b_-) / 2`` is the standard bias (8).

    Returns
    -------
    b_pos, b_neg : float

    Examples
    --------
    At the optimum of (7) both examples lie on their margins, so the two
    'margin' biases coincide:

    >>> K, y, a = np.outer([1.0, 3.0], [1.0, 3.0]), [-1, 1], [0.5, 0.5]
    >>> class_biases(K, y, a), class_biases(K, y, a, reading="boundary")
    ((-2.0, -2.0), (-3.0, -1.0))
    """
    F, y_pm = _outputs(K, y, alpha)
    shift = {"margin": 1.0, "boundary": 0.0}[one_of("margin", "boundary")(reading, "reading")]
    return float(shift - F[y_pm > 0].min()), float(-shift - F[y_pm < 0].max())


def variability_bias(K, y, alpha, reading="margin"):
    """The bias (22), which leans towards the class of larger variability.

    With ``b_max`` the ``b`` of the more variable class and ``b_min`` the
    other (:func:`class_biases`) and ``ind`` from (21),
    ``b = ind b_max + (1 - ind) b_min`` if ``ind <= 0.5``, else
    ``(1 - ind) b_max + ind b_min``.

    Parameters
    ----------
    K, y, alpha, reading
        As in :func:`class_biases`.

    Returns
    -------
    b : float

    Examples
    --------
    >>> K, y, a = np.outer([1.0, 3.0], [1.0, 3.0]), [-1, 1], [0.5, 0.5]
    >>> variability_bias(K, y, a, reading="boundary")  # one point per class: ind = 1, b = b_min
    -1.0
    """
    b_pos, b_neg = class_biases(K, y, alpha, reading)
    v_neg, v_pos = class_variability(K, y)
    ind = _index(v_neg, v_pos)
    b_max, b_min = (b_pos, b_neg) if v_pos >= v_neg else (b_neg, b_pos)
    if ind <= 0.5:
        return float(ind * b_max + (1.0 - ind) * b_min)
    return float((1.0 - ind) * b_max + ind * b_min)


def separable_in_feature_space(K, y):
    """Decide by linear programming whether the classes are separable in the feature space.

    By the representer argument a separating ``w`` can be taken in the span
    of the ``g(x_j)``, so the images are separable exactly when some ``(c, b)``
    has ``y_i ((Kc)_i + b) >= 1`` for all ``i``: the rows of ``K`` are
    separable as points (:func:`ksvm.primal.is_linearly_separable`).  The
    hard-margin dual (7) is bounded exactly when this holds.

    Parameters
    ----------
    K : array-like of shape (N, N)
    y : array-like of shape (N,)

    Returns
    -------
    separable : bool

    Examples
    --------
    >>> x = np.array([0.0, 1.0, 2.0])
    >>> separable_in_feature_space(np.outer(x, x), [-1, 1, -1])  # linear kernel: no
    False
    >>> separable_in_feature_space((np.outer(x, x) + 1.0) ** 2, [-1, 1, -1])  # quadratic: yes
    True
    """
    K, y_pm = check_gram_labels(K, y)
    return is_linearly_separable(K, y_pm)


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
    K, y, rho=1e-2, weight="rho1", tol=1e-8, max_iter=100000, nonnegative="clip",
    check_separable=True, return_history=False,
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
        The weight ``rho_1`` of (14): from the lemma (:func:`rho1`), 0.5, or
        the value given.
    tol : float > 0, default=1e-8
        The threshold ``epsilon`` of the stopping rule ``|Q - Q_old| < epsilon``.
    max_iter : int, default=100000
    nonnegative : {'clip', 'none'}, default='clip'
        'clip' shortens a step that would make ``alpha_p1`` or ``alpha_p2``
        negative so that it stops at 0; 'none' applies (14) as printed.
    check_separable : bool, default=True
        Refuse data that are not separable in the feature space, for which
        (7) is unbounded (:func:`separable_in_feature_space`, one LP).
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
    alpha = np.zeros(len(y_pm))
    F = np.zeros(len(y_pm))  # K (alpha * y)
    Q, history = 0.0, [0.0]
    n_iter, stop = 0, "max_iter"
    while n_iter < max_iter:
        G = 1.0 - y_pm * F  # (10)
        Gp, Gn = G[pos], G[neg]
        delta = rho * (w1 * Gp[:, None] + (1.0 - w1) * Gn[None, :])  # (14)
        if nonnegative == "clip":
            delta = np.maximum(delta, -np.minimum(alpha[pos][:, None], alpha[neg][None, :]))
        s = Gp[:, None] + Gn[None, :]
        gain = delta * s - 0.5 * delta**2 * eta  # exact Q(alpha) - Q(alpha_old)
        gain[delta * s <= 0] = -np.inf  # (15): the first-order increase must be positive
        k = int(np.argmax(gain))
        if not gain.flat[k] > 0:
            stop = "no ascent pair"
            break
        i, j = divmod(k, len(neg))
        p1, p2, d = pos[i], neg[j], float(delta[i, j])
        alpha[p1] += d
        alpha[p2] += d
        F += d * (K[:, p1] - K[:, p2])
        Q += float(gain[i, j])
        n_iter += 1
        if return_history:
            history.append(Q)
        if abs(gain[i, j]) < tol:
            stop = "small change"
            break
    if nonnegative == "clip":
        alpha = np.maximum(alpha, 0.0)  # entries clipped to 0 may hold -1e-17
    objective = dual_objective(alpha, K, y_pm)
    remaining = _remaining_gain(K, y_pm, alpha, pos, neg, eta)
    if stop == "max_iter":
        warnings.warn(
            f"The weighted gradient ascent stopped at max_iter={max_iter} before "
            f"|Q - Q_old| < tol={tol:g}; raise max_iter or rho (<= 1e-2 in the paper), or tol.",
            ConvergenceWarning,
            stacklevel=2,
        )
    elif nonnegative == "clip" and remaining > 1e-3 * max(1.0, abs(objective)):
        warnings.warn(
            f"The weighted gradient ascent stopped ({stop!r}) with Q = {objective:.6g}, but one "
            f"SMO step could still raise Q by {remaining:.3g}: it has stalled short of the "
            f"optimum. With rho_1 = {w1:.3g} != 0.5 the step (14) does not vanish where the "
            "optimum is; use weight='equal' or a solver such as ksvm.smo.smo.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return AscentResult(
        alpha=alpha, objective=objective, n_iter=n_iter, converged=stop != "max_iter",
        stop=stop, rho1=w1, remaining_gain=remaining,
        history=np.array(history) if return_history else None,
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
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid', 'precomputed'} or callable, default='rbf'
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
        How ``b_+`` and ``b_-`` of (22) are read (:func:`class_biases`).
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
        self, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0, solver="smo", rho=1e-2,
        weight="rho1", bias="standard", reading="margin", tol=None, max_iter=None,
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
                K, y_pm, rho=p["rho"], weight=p["weight"],
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
