"""The class statistics of Cocianu & State (2013) in the feature space, from the kernel alone.

The weight ``rho_1`` (17) of their weighted ascent balances the two classes by
``theta`` (16), a Fisher-like ratio of the squared norm of the class mean to its
variance along itself, both in the feature space; the lemma (18) writes it
through the kernel (:func:`rho1`; :func:`rho1_explicit` is the reference from
explicit feature vectors).  The variability ``var(C)`` (19)-(20) of a class is
half the mean feature-space distance within it, and the index ``ind`` (21) the
smaller over the larger.  The bias of the hard-margin SVM is either the standard
(8), midway between the innermost positive and negative example, or (22), which
leans towards the class of larger variability.  Whether the classes are
separable in the feature space, the condition for the hard-margin dual (7) to
have an optimum, is one LP.

The solvers that use them are in :mod:`ksvm.ascent`.

References
----------
Cocianu, C. and State, L. (2013), Kernel-based methods for learning non-linear
SVM, Economic Computation and Economic Cybernetics Studies and Research 47(1),
sections 3-5.
"""

import numpy as np
from scipy.spatial.distance import cdist

from ._validation import check_gram_labels, check_matrix, encode_binary_labels, one_of
from .primal import is_linearly_separable

__all__ = [
    "class_biases",
    "class_variability",
    "class_variability_explicit",
    "rho1",
    "rho1_explicit",
    "separable_in_feature_space",
    "standard_bias",
    "theta_parts",
    "theta_ratio",
    "variability",
    "variability_bias",
    "variability_index",
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
        raise ValueError(
            f"rho_1 needs at least two examples in each class (the "
            f"covariance divides by n - 1); a class has {n}. "
            "Use weight='equal'."
        )
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
