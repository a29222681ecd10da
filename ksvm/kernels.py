"""Kernel functions, the rules that build new kernels, and an explicit feature map.

Every kernel here has the signature ``k(X, Y=None, **params)`` and returns the
Gram block ``G[i, j] = k(X[i], Y[j])`` computed with matrix products (no
Python loop over pairs).  With ``Y=None`` the block is the square Gram matrix
of ``X``.  The parameter names are scikit-learn's (:mod:`sklearn.metrics.pairwise`)
wherever the two libraries compute the same function.

=====================  =======================================  ====================
function               k(x, z)                                   scikit-learn
=====================  =======================================  ====================
linear_kernel          x'z                                       same
polynomial_kernel      (gamma x'z + coef0)^degree                same (other default gamma)
rbf_kernel             exp(-gamma ||x - z||^2)                   same
exponential_kernel     exp(-gamma ||x - z||)                     none (``laplacian_kernel`` uses the L1 norm)
sigmoid_kernel         tanh(gamma x'z + coef0)                   same
=====================  =======================================  ====================

The lecture notes write the polynomial kernel as ``(x'z + 1)^l`` and the
Gaussian as ``exp(-||x - z||^2 / (2 sigma^2))``; these are ``degree=l,
gamma=1, coef0=1`` and ``gamma = 1 / (2 sigma^2)``.

**The default of gamma**, one rule for all of ``ksvm``: a kernel function
sees only the two sets it compares and has no scale to learn, so its
``gamma`` defaults to 1 (the lecture's ``(x'z + 1)^l`` with ``coef0=1``);
whatever is fitted to data (every estimator, both feature maps of
:mod:`ksvm.features`) defaults to ``gamma='scale'``,
``1 / (n_features * X.var())`` on the training data, as scikit-learn's
``SVC`` (:func:`resolve_gamma`).  scikit-learn's kernel functions take
``gamma=None`` for ``1 / n_features`` instead.

The registry at the end of the module (:data:`KERNELS`, :func:`make_kernel`)
turns a kernel's name and hyper-parameters into one Gram function, as the
estimators' ``kernel=`` argument does.

References
----------
Lecture notes, "SVMs for non-separable data / Non-linear SVMs" (kernel trick,
valid-kernel rules).  Cocianu, C. and State, L. (2013), Table 1.
"""

import itertools
import math

import numpy as np

from ._validation import (
    check_degree,
    check_finite_real,
    check_matrix,
    check_pair,
    check_positive,
)

__all__ = [
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "exponential_kernel",
    "sigmoid_kernel",
    "squared_distances",
    "sum_kernel",
    "scaled_kernel",
    "product_kernel",
    "normalized_kernel",
    "polynomial_feature_map",
    "n_polynomial_features",
    "KERNELS",
    "resolve_gamma",
    "make_kernel",
]


def squared_distances(X, Y=None):
    """Squared Euclidean distances ``||x_i - y_j||^2`` between the rows of X and Y.

    Computed as ``||x||^2 + ||y||^2 - 2 x'y`` and clipped at zero, because
    rounding can make that difference slightly negative for nearly equal rows.
    With ``Y=None`` the diagonal is exactly zero.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None

    Returns
    -------
    D2 : ndarray of shape (n_samples_X, n_samples_Y)

    Raises
    ------
    ValueError
        If the inputs are not finite non-empty numeric 2-D arrays with the
        same number of columns.

    Examples
    --------
    >>> squared_distances([[0.0, 0.0]], [[3.0, 4.0]])
    array([[25.]])
    """
    X, Y = check_pair(X, Y)
    return _squared_distances(X, Y)


#: Below this fraction of ||x||^2 + ||y||^2 a squared distance is recomputed
#: directly (relative error then at most about eps / _CANCELLATION = 2e-12).
_CANCELLATION = 1e-4


def _squared_distances(X, Y):
    """:func:`squared_distances` of validated arrays (``Y is X`` for the square case)."""
    same = Y is X
    x2 = np.einsum("ij,ij->i", X, X)
    y2 = x2 if same else np.einsum("ij,ij->i", Y, Y)
    # Every entry is (||x||^2 + ||y||^2) - 2 x'y in that order, so that the
    # square case is exactly symmetric (doubling is exact in floating point).
    # The sums are formed a block of rows at a time: one n_X x n_Y array in all.
    #
    # For nearby points the subtraction cancels: its absolute error is about
    # eps * (||x||^2 + ||y||^2).  Where the result is small next to that sum it
    # is recomputed from the differences x - y themselves, so every entry keeps
    # a relative error of at most about eps / _CANCELLATION.  Entries that are
    # not recomputed are >= _CANCELLATION * (||x||^2 + ||y||^2) >= 0, and the
    # recomputed ones are sums of squares: no result is negative.
    D2 = X @ Y.T
    D2 *= 2.0
    y2_max = y2.max()
    rows = max(1, 65536 // D2.shape[1])
    for start in range(0, D2.shape[0], rows):
        stop = min(start + rows, D2.shape[0])
        block = D2[start:stop]
        norms = x2[start:stop, None] + y2[None, :]
        np.subtract(norms, block, out=block)
        if same:  # the diagonal is set to exactly 0 below; keep it out of the check
            block[np.arange(stop - start), np.arange(start, stop)] = np.inf
        if block.min() < _CANCELLATION * (x2[start:stop].max() + y2_max):
            norms *= _CANCELLATION
            i, j = np.nonzero(block < norms)
            diff = X[start + i] - Y[j]
            block[i, j] = np.einsum("ij,ij->i", diff, diff)
    if same:
        np.fill_diagonal(D2, 0.0)
    return D2


def linear_kernel(X, Y=None):
    """Linear kernel ``k(x, z) = x'z``.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None
        If None, the Gram matrix of ``X`` with itself.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)

    Raises
    ------
    ValueError
        If the inputs are not finite non-empty numeric 2-D arrays with the
        same number of columns.

    Examples
    --------
    >>> linear_kernel([[1.0, 2.0]], [[3.0, 4.0], [0.0, 1.0]])
    array([[11.,  2.]])
    """
    X, Y = check_pair(X, Y)
    return X @ Y.T


def polynomial_kernel(X, Y=None, degree=3, gamma=1.0, coef0=1.0):
    """Polynomial kernel ``k(x, z) = (gamma x'z + coef0)^degree``.

    With ``gamma=1, coef0=1`` this is the lecture's ``(x'z + 1)^l``, whose
    feature map is :func:`polynomial_feature_map`.  Note the default
    ``gamma=1``: scikit-learn's ``polynomial_kernel`` defaults to
    ``1 / n_features`` instead.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None
    degree : int >= 1, default=3
    gamma : float > 0, default=1.0
    coef0 : float, default=1.0
        Any finite value; the kernel is positive semi-definite for
        ``coef0 >= 0`` (see the Mercer chapter).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)

    Raises
    ------
    ValueError
        On invalid data (see :func:`linear_kernel`), ``degree`` not an integer
        >= 1, ``gamma <= 0`` or a non-finite ``coef0``.

    Examples
    --------
    >>> polynomial_kernel([[1.0, 2.0]], [[3.0, 4.0]], degree=2)
    array([[144.]])
    """
    degree = check_degree(degree)
    gamma = check_positive(gamma, "gamma")
    coef0 = check_finite_real(coef0, "coef0")
    X, Y = check_pair(X, Y)
    K = X @ Y.T
    K *= gamma
    K += coef0
    K **= degree
    return K


def rbf_kernel(X, Y=None, gamma=1.0):
    """Gaussian (RBF) kernel ``k(x, z) = exp(-gamma ||x - z||^2)``.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None
    gamma : float > 0, default=1.0
        The lecture's width sigma corresponds to ``gamma = 1 / (2 sigma^2)``;
        see the module docstring for the defaults.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)

    Raises
    ------
    ValueError
        On invalid data (see :func:`linear_kernel`) or ``gamma <= 0``.

    Examples
    --------
    >>> rbf_kernel([[0.0, 0.0]], [[1.0, 1.0]], gamma=0.5)
    array([[0.36787944]])
    """
    X, Y = check_pair(X, Y)
    gamma = check_positive(gamma, "gamma")
    D2 = _squared_distances(X, Y)
    D2 *= -gamma
    return np.exp(D2, out=D2)


def exponential_kernel(X, Y=None, gamma=1.0):
    """Exponential RBF kernel ``k(x, z) = exp(-gamma ||x - z||)`` (Euclidean norm).

    This is the "exponential RBF" of Cocianu & State's Table 1.  It is not
    scikit-learn's ``laplacian_kernel``, which uses the L1 distance; the two
    agree only for one feature.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None
    gamma : float > 0, default=1.0

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)

    Raises
    ------
    ValueError
        On invalid data (see :func:`linear_kernel`) or ``gamma <= 0``.

    Examples
    --------
    >>> exponential_kernel([[0.0, 0.0]], [[3.0, 4.0]], gamma=0.2)
    array([[0.36787944]])
    """
    X, Y = check_pair(X, Y)
    gamma = check_positive(gamma, "gamma")
    D = np.sqrt(_squared_distances(X, Y))
    D *= -gamma
    return np.exp(D, out=D)


def sigmoid_kernel(X, Y=None, gamma=1.0, coef0=1.0):
    """Sigmoid kernel ``k(x, z) = tanh(gamma x'z + coef0)``.

    The lecture writes it ``tanh(beta_0 x'z + beta_1)``: ``gamma = beta_0`` and
    ``coef0 = beta_1``.  It is not a valid kernel on all of R^d for any
    ``gamma > 0`` and ``coef0``: some three points always give a Gram matrix
    with a negative eigenvalue (the Mercer chapter proves it), although the
    Gram matrix of a particular data set may pass
    :func:`ksvm.mercer.check_mercer`.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None
    gamma : float > 0, default=1.0
    coef0 : float, default=1.0

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)

    Raises
    ------
    ValueError
        On invalid data (see :func:`linear_kernel`), ``gamma <= 0`` or a
        non-finite ``coef0``.

    Examples
    --------
    >>> sigmoid_kernel([[1.0, 0.0]], [[1.0, 0.0]], gamma=1.0, coef0=0.0)
    array([[0.76159416]])
    """
    coef0 = check_finite_real(coef0, "coef0")
    X, Y = check_pair(X, Y)
    gamma = check_positive(gamma, "gamma")
    K = X @ Y.T
    K *= gamma
    K += coef0
    return np.tanh(K, out=K)


# ----------------------------------------------------------------------------
# The lecture's four rules for building kernels from kernels.  Each returns a
# new kernel with the same calling convention k(X, Y=None).
# ----------------------------------------------------------------------------


def _check_kernel_callable(k, name):
    if not callable(k):
        raise ValueError(
            f"{name} must be a kernel function k(X, Y=None) returning a Gram "
            f"block, got {k!r}."
        )


def _describe(k):
    return getattr(k, "__name__", None) or repr(k)


class _CombinedKernel:
    """A kernel built from others by one of the lecture's rules (see below)."""

    def __init__(self, description, function):
        self._description = description
        self._function = function
        self.__name__ = description

    def __call__(self, X, Y=None):
        return self._function(X, Y)

    def __repr__(self):
        return self._description


def sum_kernel(k1, k2):
    """Rule 1: ``k(x, z) = k1(x, z) + k2(x, z)``.

    Its feature map is the two maps stacked, ``Phi = (Phi1, Phi2)``.

    Parameters
    ----------
    k1, k2 : callable
        Kernels with the signature ``k(X, Y=None)``.

    Returns
    -------
    k : callable
        The kernel ``k(X, Y=None)``.

    Raises
    ------
    ValueError
        If ``k1`` or ``k2`` is not callable.

    Examples
    --------
    >>> k = sum_kernel(linear_kernel, linear_kernel)
    >>> k([[1.0, 2.0]])
    array([[10.]])
    """
    _check_kernel_callable(k1, "k1")
    _check_kernel_callable(k2, "k2")
    return _CombinedKernel(
        f"sum_kernel({_describe(k1)}, {_describe(k2)})",
        lambda X, Y: k1(X, Y) + k2(X, Y),
    )


def scaled_kernel(k, alpha):
    """Rule 2: ``k(x, z) = alpha k1(x, z)`` with ``alpha > 0``.

    Its feature map is ``sqrt(alpha) Phi1``.

    Parameters
    ----------
    k : callable
        A kernel ``k(X, Y=None)``.
    alpha : float > 0

    Returns
    -------
    k : callable

    Raises
    ------
    ValueError
        If ``k`` is not callable or ``alpha <= 0``.

    Examples
    --------
    >>> scaled_kernel(linear_kernel, 3.0)([[1.0, 1.0]])
    array([[6.]])
    """
    _check_kernel_callable(k, "k")
    alpha = check_positive(alpha, "alpha")
    return _CombinedKernel(
        f"scaled_kernel({_describe(k)}, {alpha!r})",
        lambda X, Y: alpha * k(X, Y),
    )


def product_kernel(k1, k2):
    """Rule 3: ``k(x, z) = k1(x, z) k2(x, z)`` (element-wise on Gram blocks).

    Its feature map holds all products ``phi1_a(x) phi2_b(x)`` (the tensor
    product of the two maps).

    Parameters
    ----------
    k1, k2 : callable
        Kernels with the signature ``k(X, Y=None)``.

    Returns
    -------
    k : callable

    Raises
    ------
    ValueError
        If ``k1`` or ``k2`` is not callable.

    Examples
    --------
    >>> product_kernel(linear_kernel, linear_kernel)([[1.0, 2.0]])
    array([[25.]])
    """
    _check_kernel_callable(k1, "k1")
    _check_kernel_callable(k2, "k2")
    return _CombinedKernel(
        f"product_kernel({_describe(k1)}, {_describe(k2)})",
        lambda X, Y: k1(X, Y) * k2(X, Y),
    )


def _kernel_diagonal(k, X):
    """The values ``k(x_i, x_i)``, one kernel call per row (never n x n)."""
    return np.array([k(X[i : i + 1])[0, 0] for i in range(X.shape[0])])


def normalized_kernel(k):
    """Rule 4: ``k(x, z) = k1(x, z) / sqrt(k1(x, x) k1(z, z))``.

    Its feature map is ``Phi1(x) / ||Phi1(x)||``, so the new kernel has
    ``k(x, x) = 1``.  (The lecture's slide prints ``k1(x, z)`` twice in the
    denominator; the feature map it gives next shows that ``k1(x, x) k1(z, z)``
    is meant.)

    Parameters
    ----------
    k : callable
        A kernel ``k(X, Y=None)``.

    Returns
    -------
    k : callable

    Raises
    ------
    ValueError
        If ``k`` is not callable, or (when the new kernel is called) if
        ``k1(x, x) <= 0`` for some row, where the normalisation is undefined.

    Examples
    --------
    >>> normalized_kernel(linear_kernel)([[3.0, 4.0]], [[4.0, 3.0]])
    array([[0.96]])
    """
    _check_kernel_callable(k, "k")

    def normalized(X, Y):
        X, Y = check_pair(X, Y)
        same = Y is X
        K = np.array(k(X, None if same else Y), dtype=np.float64)
        dx = _kernel_diagonal(k, X)
        dy = dx if same else _kernel_diagonal(k, Y)
        if np.any(dx <= 0) or np.any(dy <= 0):
            raise ValueError(
                "normalized_kernel needs k(x, x) > 0 for every row; some row has "
                "k(x, x) <= 0 (e.g. a zero row with the linear kernel)."
            )
        K /= np.sqrt(dx)[:, None]
        K /= np.sqrt(dy)[None, :]
        return K

    return _CombinedKernel(f"normalized_kernel({_describe(k)})", normalized)


# ----------------------------------------------------------------------------
# The explicit feature map of the polynomial kernel.
# ----------------------------------------------------------------------------


def n_polynomial_features(n_features, degree, coef0=1.0):
    """Length of :func:`polynomial_feature_map` for ``n_features`` inputs.

    With ``coef0 > 0`` every monomial of degree 0 to ``degree`` appears:
    ``C(n_features + degree, degree)`` of them (the lecture's
    ``(d + 2)(d + 1) / 2`` for degree 2).  With ``coef0 = 0`` only those of
    degree exactly ``degree``: ``C(n_features + degree - 1, degree)``.

    Examples
    --------
    >>> n_polynomial_features(100, 2)
    5151
    """
    degree = check_degree(degree)
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)):
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
    if n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
    coef0 = check_finite_real(coef0, "coef0")
    if coef0 == 0:
        return math.comb(int(n_features) + degree - 1, degree)
    return math.comb(int(n_features) + degree, degree)


def polynomial_feature_map(X, degree, coef0=1.0, return_powers=False):
    """Explicit feature map ``Phi`` with ``Phi(x)'Phi(z) = (x'z + coef0)^degree``.

    Expanding the power by the multinomial theorem,

    .. math::

        (x'z + c)^p = \\sum_{k_0 + k_1 + \\dots + k_d = p}
            \\frac{p!}{k_0!\\,k_1!\\cdots k_d!}\\, c^{k_0}
            \\prod_{i=1}^d (x_i z_i)^{k_i},

    so ``Phi`` has one coordinate per monomial ``x_1^{k_1} ... x_d^{k_d}`` of
    total degree ``k_1 + ... + k_d <= p``, weighted by the square root of its
    multinomial coefficient times ``c^{k_0}``.  For degree 2 and ``c = 1``
    this is the lecture's quadratic map ``(1, sqrt(2) x_i, x_i^2,
    sqrt(2) x_i x_j)``.

    Monomials are ordered by total degree, then lexicographically in their
    indices.  Each degree block is built from the previous one by one
    multiplication per coordinate, so the work is proportional to the output
    size.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    degree : int >= 1
    coef0 : float >= 0, default=1.0
        With ``coef0 = 0`` the monomials of lower degree have weight zero and
        are left out.
    return_powers : bool, default=False
        Also return the exponents of each monomial.

    Returns
    -------
    Phi : ndarray of shape (n_samples, n_polynomial_features(n_features, degree, coef0))
    powers : ndarray of shape (n_output_features, n_features), dtype int
        Only if ``return_powers``: row ``j`` holds the exponents ``k_1..k_d``
        of feature ``j``.

    Raises
    ------
    ValueError
        On invalid data, ``degree`` not an integer >= 1, or ``coef0 < 0``
        (the weights would be square roots of negative numbers).

    Examples
    --------
    >>> Phi = polynomial_feature_map([[1.0, 2.0]], degree=2)
    >>> Phi.round(4)
    array([[1.    , 1.4142, 2.8284, 1.    , 2.8284, 4.    ]])
    >>> float(Phi[0] @ Phi[0])  # (x'x + 1)^2 = (1 + 4 + 1)^2
    36.0
    """
    X = check_matrix(X)
    degree = check_degree(degree)
    coef0 = check_finite_real(coef0, "coef0")
    if coef0 < 0:
        raise ValueError(
            f"coef0 must be >= 0 for a real feature map, got {coef0!r}; "
            "(x'z + coef0)^degree with coef0 < 0 has no real polynomial feature map."
        )
    n, d = X.shape

    # blocks[j]: monomials of degree j, as (values, first index, multiplicity of
    # the first index, product of the factorials of all exponents).
    ones = np.ones((n, 1))
    block = (ones, np.array([d]), np.array([0]), np.array([1.0]))
    blocks = [block]
    for _ in range(degree):
        values, first, mult, fact = block
        parts = ([], [], [], [])
        for i in range(d):
            # Prepend x_i to every monomial whose smallest index is >= i.  Blocks are
            # sorted by their smallest index, so these form a suffix of the block.
            start = np.searchsorted(first, i)
            same = first[start:] == i
            new_mult = np.where(same, mult[start:] + 1, 1)
            parts[0].append(X[:, i : i + 1] * values[:, start:])
            parts[1].append(np.full(new_mult.shape, i))
            parts[2].append(new_mult)
            parts[3].append(fact[start:] * new_mult)
        block = tuple(np.concatenate(p, axis=-1) for p in parts)
        blocks.append(block)

    columns, weights = [], []
    for j, (values, _, _, fact) in enumerate(blocks):
        k0 = degree - j
        if coef0 == 0 and k0 > 0:
            continue
        # multinomial coefficient p! / (k0! prod k_i!) times coef0^k0
        w = math.factorial(degree) / math.factorial(k0) / fact * coef0**k0
        columns.append(values)
        weights.append(np.sqrt(w))
    Phi = np.concatenate(columns, axis=1) * np.concatenate(weights)[None, :]
    if not return_powers:
        return Phi
    powers = []
    for j in range(degree + 1):
        if coef0 == 0 and j < degree:
            continue
        for combo in itertools.combinations_with_replacement(range(d), j):
            row = np.zeros(d, dtype=int)
            np.add.at(row, list(combo), 1)
            powers.append(row)
    return Phi, np.array(powers, dtype=int).reshape(-1, d)


# ----------------------------------------------------------------------------
# The registry: a kernel's name and hyper-parameters to one Gram function, as
# the estimators take them (kernel='rbf', gamma=..., degree=..., coef0=...).
# ----------------------------------------------------------------------------

#: The kernels that can be named by a string, and the hyper-parameters each uses.
KERNELS = {
    "linear": (linear_kernel, ()),
    "poly": (polynomial_kernel, ("degree", "gamma", "coef0")),
    "rbf": (rbf_kernel, ("gamma",)),
    "exponential": (exponential_kernel, ("gamma",)),
    "sigmoid": (sigmoid_kernel, ("gamma", "coef0")),
}


def resolve_gamma(gamma, X):
    """Turn ``gamma`` into a positive number, using the training data if needed.

    Parameters
    ----------
    gamma : {'scale', 'auto'} or float > 0
        ``'scale'`` is ``1 / (n_features * X.var())`` (1.0 if ``X`` is
        constant) and ``'auto'`` is ``1 / n_features``, both as in
        scikit-learn's ``SVC``.
    X : ndarray of shape (n_samples, n_features)
        The validated training data.

    Returns
    -------
    gamma : float

    Raises
    ------
    ValueError
        If ``gamma`` is neither of the two strings nor a finite positive number.

    Examples
    --------
    >>> resolve_gamma("auto", np.zeros((3, 4)))
    0.25
    """
    if isinstance(gamma, str):
        if gamma == "scale":
            var = float(X.var())
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        if gamma == "auto":
            return 1.0 / X.shape[1]
        raise ValueError(f"gamma must be 'scale', 'auto' or a positive number, got {gamma!r}.")
    return check_positive(gamma, "gamma")


class _CallableKernel:
    """A user's kernel function, with its output checked on every call."""

    def __init__(self, function):
        self.function = function

    def __call__(self, X, Y=None):
        Yc = X if Y is None else Y
        K = np.asarray(self.function(X, Yc), dtype=np.float64)
        expected = (X.shape[0], Yc.shape[0])
        if K.shape != expected:
            raise ValueError(
                f"The kernel function returned an array of shape {K.shape}; a Gram "
                f"block of shape {expected} (rows of X by rows of Y) is needed."
            )
        if not np.all(np.isfinite(K)):
            raise ValueError("The kernel function returned NaN or infinite values.")
        return K


def make_kernel(kernel, *, gamma=1.0, degree=3, coef0=1.0):
    """Return the Gram function ``k(X, Y=None)`` that ``kernel`` names.

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid'} or callable
        A name from :data:`KERNELS`, or a function ``f(X, Y)`` returning the
        Gram block of shape ``(len(X), len(Y))``.  ('precomputed' has no
        function: estimators handle it themselves.)
    gamma : float > 0, default=1.0
        Used by 'poly', 'rbf', 'exponential' and 'sigmoid'.  Resolve
        'scale'/'auto' first with :func:`resolve_gamma`.
    degree : int >= 1, default=3
        Used by 'poly'.
    coef0 : float, default=1.0
        Used by 'poly' and 'sigmoid'.

    Returns
    -------
    k : callable
        ``k(X, Y=None)`` returning ``K[i, j] = k(X[i], Y[j])``.

    Raises
    ------
    ValueError
        If ``kernel`` is unknown, or a parameter the kernel uses is invalid.

    Examples
    --------
    >>> k = make_kernel("poly", degree=2, gamma=1.0, coef0=1.0)
    >>> k(np.array([[1.0, 2.0]]))
    array([[36.]])
    """
    if callable(kernel):
        return _CallableKernel(kernel)
    if not isinstance(kernel, str) or kernel not in KERNELS:
        names = ", ".join(repr(name) for name in KERNELS)
        raise ValueError(
            f"kernel must be one of {names}, 'precomputed' or a callable, got {kernel!r}."
        )
    function, uses = KERNELS[kernel]
    checks = {
        "gamma": lambda: check_positive(gamma, "gamma"),
        "degree": lambda: check_degree(degree),
        "coef0": lambda: check_finite_real(coef0, "coef0"),
    }
    params = {name: checks[name]() for name in uses}

    def k(X, Y=None):
        return function(X, Y, **params)

    k.__name__ = f"{function.__name__}({', '.join(f'{p}={v!r}' for p, v in params.items())})"
    return k
