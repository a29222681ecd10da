"""Kernel functions and the one kernel protocol.

Every kernel here has the signature ``k(X, Y=None, **params)`` and returns the
Gram block ``G[i, j] = k(X[i], Y[j])`` computed with matrix products (no
Python loop over pairs).  With ``Y=None`` the block is the square Gram matrix
of ``X``.  The parameter names are scikit-learn's (:mod:`sklearn.metrics.pairwise`)
wherever the two libraries compute the same function.

=====================  ============================  ====================
function               k(x, z)                       scikit-learn
=====================  ============================  ====================
linear_kernel          x'z                           same
polynomial_kernel      (gamma x'z + coef0)^degree    same (other default gamma)
rbf_kernel             exp(-gamma ||x - z||^2)       same
exponential_kernel     exp(-gamma ||x - z||)         none (``laplacian_kernel`` uses the L1 norm)
sigmoid_kernel         tanh(gamma x'z + coef0)       same
=====================  ============================  ====================

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
estimators' ``kernel=`` argument does.  Every kernel it returns, and every
rule's kernel, follows one protocol, :class:`Kernel`: ``k(A, B=None, out=None)``
returns the block ``k(A, B)``, written into ``out`` when given, so that a cache
of rows or a caller's buffer receives it without a copy; a user's function is
wrapped to follow it.  ``make_kernel('rbf')`` is :class:`RBFBlock`, the fast
Gaussian block that training and prediction share; :func:`block_rows` is the
one rule by which every blocked kernel computation sizes its blocks.  The
explicit polynomial feature map is :mod:`ksvm.polynomial_map`.

References
----------
Lecture notes, "SVMs for non-separable data / Non-linear SVMs" (kernel trick,
valid-kernel rules).  Cocianu, C. and State, L. (2013), Table 1.
"""

import inspect

import numpy as np

from ._validation import (
    check_degree,
    check_finite_real,
    check_integer,
    check_matrix,
    check_pair,
    check_positive,
)

__all__ = [
    "KERNELS",
    "Kernel",
    "RBFBlock",
    "block_rows",
    "exponential_kernel",
    "linear_kernel",
    "make_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "resolve_gamma",
    "sigmoid_kernel",
    "squared_distances",
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
    # Tiles of 65536 entries (512 KB), so that the sums of norms of a tile stay in
    # a core's cache for the subtraction: a tile of one pass, not a block of the
    # kernel's values (those are sized by block_rows).
    rows, y2_max = max(1, 65536 // D2.shape[1]), y2.max()
    for start in range(0, D2.shape[0], rows):
        stop = min(start + rows, D2.shape[0])
        block = D2[start:stop]
        np.subtract(x2[start:stop, None] + y2[None, :], block, out=block)
        if same:  # the diagonal is set to exactly 0 below; keep it out of the check
            block[np.arange(stop - start), np.arange(start, stop)] = np.inf
        _recompute_cancelled(block, X[start:stop], Y, x2[start:stop], (y2, y2_max), 1.0)
    if same:
        np.fill_diagonal(D2, 0.0)
    return D2


def _recompute_cancelled(block, A, B, a2, b2_and_max, scale):
    """Recompute from ``a - b`` the entries of ``block = scale ||a - b||^2`` that cancel.

    ``block`` holds ``scale * ||a_i - b_j||^2`` (``scale`` is 1, or ``-gamma`` for
    an exponent) formed from ``||a||^2 + ||b||^2 - 2 a'b``, ``a2`` and ``b2`` the
    squared norms (``b2_and_max``: ``b2`` and its maximum, kept by the caller).
    Every entry below ``_CANCELLATION (||a||^2 + ||b||^2)`` in size, where the
    subtraction may have lost its digits (or made the sign wrong), is replaced
    by ``scale`` times the sum of squares of ``a - b``:
    every entry then keeps a relative error of at most about
    ``eps / _CANCELLATION``, and a point against itself gives exactly 0.  The one
    place that guards the formula; a pass over the block finds the candidates.
    """
    b2, b2_max = b2_and_max
    sign = 1.0 if scale > 0 else -1.0
    bound = _CANCELLATION * abs(scale) * (a2.max() + b2_max)
    near = np.flatnonzero(block < bound if sign > 0 else block > -bound)
    if near.size == 0:
        return
    i, j = np.divmod(near, block.shape[1])  # (np.nonzero of 2-D is ten times slower)
    keep = block[i, j] * sign < _CANCELLATION * abs(scale) * (a2[i] + b2[j])
    i, j = i[keep], j[keep]
    diff = A[i] - B[j]
    block[i, j] = scale * np.einsum("ij,ij->i", diff, diff)


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
    feature map is :func:`~ksvm.polynomial_map.polynomial_feature_map`.  Note the default
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
# The protocol: every kernel of make_kernel and of the rules is a Kernel,
# k(A, B=None, out=None), and blocks of kernel values are sized by one rule.
# ----------------------------------------------------------------------------

#: Bytes that one block of kernel values may take, the budget of :func:`block_rows`.
_BLOCK_BYTES = 16 * 2**20


def block_rows(n_columns, itemsize=8):
    """Rows per block when a kernel computation of ``n_columns`` columns goes by blocks.

    The one rule for block sizes in ``ksvm``: a block of ``rows x n_columns``
    values of ``itemsize`` bytes takes at most 16 MB, unless a single row is
    larger (there is always at least one row).

    Raises
    ------
    ValueError
        If ``n_columns`` is not an integer >= 0 or ``itemsize`` not one >= 1.

    Examples
    --------
    >>> block_rows(1000), block_rows(10**7)
    (2097, 1)
    """
    n_columns = check_integer(n_columns, "n_columns", minimum=0)
    itemsize = check_integer(itemsize, "itemsize", minimum=1)
    return max(1, _BLOCK_BYTES // (itemsize * max(n_columns, 1)))


def _check_out(out, shape):
    """Raise unless ``out`` is None or has the block's ``shape``."""
    if out is not None and out.shape != shape:
        raise ValueError(f"out has shape {out.shape}; the kernel block has shape {shape}.")


def _into(K, out):
    """``K``, or ``out`` with ``K`` copied into it (the protocol's ``out``)."""
    if out is None or K is out:
        return K
    _check_out(out, K.shape)
    out[...] = K
    return out


class Kernel:
    """The protocol of every kernel that :func:`make_kernel` and the rules return.

    ``k(A, B=None, out=None)`` returns the block ``K[i, j] = k(A[i], B[j])`` of
    shape ``(len(A), len(B))``, the square Gram matrix of ``A`` when ``B`` is
    None; given ``out`` (a float64 array of that shape) it writes the block
    there and returns ``out``.  A subclass defines ``__call__``; its ``repr``
    is its ``__name__``, the kernel with its parameters.
    """

    __name__ = "kernel"

    def __call__(self, A, B=None, out=None):
        raise NotImplementedError

    def diagonal(self, A):
        """``k(a, a)`` for each row ``a`` of ``A``, or None if the kernel does not know it
        without computing (then it is read from the Gram matrix of small blocks)."""
        return None

    def __repr__(self):
        return self.__name__


class _NamedKernel(Kernel):
    """A kernel function of this module with its hyper-parameters bound."""

    def __init__(self, function, params):
        self._function, self._params = function, params
        self.__name__ = f"{function.__name__}({', '.join(f'{p}={v!r}' for p, v in params.items())})"

    def __call__(self, A, B=None, out=None):
        return _into(self._function(A, B, **self._params), out)


def _checked(A, name):
    """``check_matrix(A, name)``, without its fixed cost (a millisecond) for a float64
    matrix whose sum is finite (so is every entry): the rows solvers call the kernel
    on a few rows at a time."""
    if (
        type(A) is np.ndarray
        and A.dtype == np.float64
        and A.ndim == 2
        and A.size
        and np.isfinite(A.sum())
    ):
        return A
    return check_matrix(A, name)


class RBFBlock(Kernel):
    """The Gaussian kernel ``exp(-gamma ||a - b||^2)`` of ``make_kernel('rbf')``, fast.

    A rectangular block is one matrix product of the points with two columns
    appended, ``[a, ||a||^2, 1]`` and ``[2 gamma b, -gamma, -gamma ||b||^2]``
    (as libsvm; the extended ``B`` is kept, so that a solver asking for rows
    against the same points forms it once), then the exponential in place:
    few passes over the block, which at a few features costs what it takes to
    write and read it.  The entries that the subtraction cancels (nearby
    points) are recomputed from ``a - b``, as in :func:`rbf_kernel`, so the two
    agree to rounding and a point against itself gives exactly 1.  The square
    Gram matrix (``B`` None or ``A`` itself) is :func:`rbf_kernel`'s, exactly
    symmetric.  ``B`` is recognised by identity: do not change it in place
    between calls.

    Parameters
    ----------
    gamma : float > 0
    X : array-like of shape (m, n) or None, default=None
        The points the blocks will run over, if known: their extended form is
        made now (otherwise at the first call, for its ``B``).

    Raises
    ------
    ValueError
        If ``gamma`` is not positive, or (when called) on invalid data.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> k = RBFBlock(0.5, X)
    >>> k(X[:1], X).round(6)
    array([[1.      , 0.606531, 0.135335]])
    >>> bool(np.abs(k(X[::-1], X) - rbf_kernel(X[::-1], X, gamma=0.5)).max() < 1e-15)
    True
    """

    def __init__(self, gamma, X=None):
        self.gamma = check_positive(gamma, "gamma")
        self.__name__ = f"rbf_kernel(gamma={self.gamma!r})"
        self._B = None
        if X is not None:
            self._extend(_checked(X, "X"))

    def diagonal(self, A):
        """``k(a, a) = 1``."""
        return np.ones(len(A))

    def _extend(self, B):
        """Keep ``B``, its squared norms and ``[2 gamma b, -gamma, -gamma ||b||^2]``."""
        ext = np.empty((B.shape[0], B.shape[1] + 2))
        np.multiply(B, 2.0 * self.gamma, out=ext[:, :-2])
        ext[:, -2] = -self.gamma
        b2 = np.einsum("ij,ij->i", B, B)
        np.multiply(b2, -self.gamma, out=ext[:, -1])
        self._B, self._b2, self._B_ext = B, (b2, b2.max()), ext

    def __call__(self, A, B=None, out=None):
        square = B is None or B is A
        A = _checked(A, "X")
        if square:  # a Gram matrix: rbf_kernel's arithmetic, exactly symmetric
            D2 = _squared_distances(A, A)
            D2 *= -self.gamma
            return _into(np.exp(D2, out=D2), out)
        if B is not self._B:
            self._extend(_checked(B, "Y"))
        B = self._B
        if A.shape[1] != B.shape[1]:
            check_pair(A, B)  # raises the message of a mismatch
        _check_out(out, (A.shape[0], B.shape[0]))
        A_ext = np.empty((A.shape[0], A.shape[1] + 2))
        A_ext[:, :-2] = A
        a2 = A_ext[:, -2]
        np.einsum("ij,ij->i", A, A, out=a2)
        A_ext[:, -1] = 1.0
        D = np.matmul(A_ext, self._B_ext.T, out=out)  # -gamma ||a - b||^2, to rounding
        _recompute_cancelled(D, A, B, a2, self._b2, -self.gamma)
        return np.exp(D, out=D)


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


def _describe(k):
    return getattr(k, "__name__", None) or repr(k)


def _takes_out(function):
    """Whether ``function`` accepts ``out=`` (then it may write the block there)."""
    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # no signature to read (some builtins)
        return False
    return any(p.name == "out" or p.kind is p.VAR_KEYWORD for p in params)


class _CallableKernel(Kernel):
    """A user's kernel function under the protocol, its output checked on every call;
    a function without ``out`` has its block copied into ``out``."""

    def __init__(self, function):
        self.function = function
        self.__name__ = _describe(function)
        self._takes_out = _takes_out(function)

    def __call__(self, X, Y=None, out=None):
        Yc = X if Y is None else Y
        expected = (X.shape[0], Yc.shape[0])
        _check_out(out, expected)
        if out is not None and self._takes_out:
            K = self.function(X, Yc, out=out)
        else:
            K = self.function(X, Yc)
        K = np.asarray(K, dtype=np.float64)
        if K.shape != expected:
            raise ValueError(
                f"The kernel function returned an array of shape {K.shape}; a Gram "
                f"block of shape {expected} (rows of X by rows of Y) is needed."
            )
        if not np.all(np.isfinite(K)):
            raise ValueError("The kernel function returned NaN or infinite values.")
        return _into(K, out)


def make_kernel(kernel, *, gamma=1.0, degree=3, coef0=1.0):
    """Return the kernel ``k(X, Y=None, out=None)`` that ``kernel`` names (a :class:`Kernel`).

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid'} or callable
        A name from :data:`KERNELS`, or a function ``f(X, Y)`` returning the
        Gram block of shape ``(len(X), len(Y))`` (wrapped to follow the
        protocol, its output checked; a :class:`Kernel` is returned as it is).
        ('precomputed' has no function: estimators handle it themselves.)
    gamma : float > 0, default=1.0
        Used by 'poly', 'rbf', 'exponential' and 'sigmoid'.  Resolve
        'scale'/'auto' first with :func:`resolve_gamma`.
    degree : int >= 1, default=3
        Used by 'poly'.
    coef0 : float, default=1.0
        Used by 'poly' and 'sigmoid'.

    Returns
    -------
    k : Kernel
        ``k(X, Y=None, out=None)`` returning ``K[i, j] = k(X[i], Y[j])``;
        for 'rbf' the fast :class:`RBFBlock`.

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
    if isinstance(kernel, Kernel):
        return kernel
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
    if kernel == "rbf":
        return RBFBlock(params["gamma"])
    return _NamedKernel(function, params)
