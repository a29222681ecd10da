"""The Gaussian kernel of points with few features, from their differences, compiled.

:class:`ksvm.kernels.RBFBlock` forms ``-gamma ||a - b||^2`` as one matrix product
(libsvm's formula), then looks for the entries where that difference cancelled.  With
two features the product does almost no arithmetic: the cost is its passes over the
block and the search, and, for the one or two rows an SMO miss asks for, Python's
overhead.  :class:`RBFFewFeatures` sums the squared differences directly, a feature at
a time over the points stored feature by feature (so that the loop over the points
vectorizes), and leaves the exponential to numpy.  The differences need no search for
cancellation: every value is accurate to a few roundings, ``k(x, x) = 1`` exactly and
the Gram matrix is exactly symmetric.  Beyond :data:`FEW_FEATURES` features a matrix
product is faster, and ``RBFBlock`` is the kernel to use.
"""

import numba
import numpy as np

from ._validation import check_positive
from .kernels import Kernel, _check_out, _checked

__all__ = ["FEW_FEATURES", "RBFFewFeatures"]

#: Up to this many features the differences cost less than RBFBlock's product and search.
FEW_FEATURES = 8


@numba.njit(cache=True)
def _minus_gamma_squared_distances(A, BT, gamma, out):
    """``out[r, t] = -gamma sum_k (A[r, k] - BT[k, t])^2``, a feature at a time."""
    d, n = BT.shape
    for r in range(A.shape[0]):
        row = out[r]
        for t in range(n):
            row[t] = 0.0
        for k in range(d):
            a, b = A[r, k], BT[k]
            for t in range(n):
                diff = a - b[t]
                row[t] += diff * diff
        for t in range(n):
            row[t] *= -gamma


class RBFFewFeatures(Kernel):
    """``k(a, b) = exp(-gamma ||a - b||^2)`` from the differences ``a - b``, compiled.

    Follows the protocol of :class:`ksvm.kernels.Kernel`.  The points ``X`` given
    at construction, and then the last ``B`` a block was asked against, are kept
    feature by feature, so that a block of rows against the same points (``B`` the
    same array, as :class:`ksvm.columns.KernelColumns` asks) costs no copy.  ``B`` is
    recognised by identity: do not change it in place between calls.

    Parameters
    ----------
    gamma : float > 0
    X : ndarray of shape (n, d), optional
        The points most blocks are computed against.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> k = RBFFewFeatures(0.5, X)
    >>> k(X[:1], X).round(6)
    array([[1.      , 0.606531, 0.135335]])
    """

    def __init__(self, gamma, X=None):
        self.gamma = check_positive(gamma, "gamma")
        self.__name__ = f"rbf_kernel(gamma={self.gamma!r})"
        self._X = X
        self._XT = None if X is None else np.ascontiguousarray(X.T)

    def diagonal(self, A):
        """``k(a, a) = 1``."""
        return np.ones(len(A))

    def __call__(self, A, B=None, out=None):
        A = _checked(A, "X")
        if B is None:
            B = A
        if B is not self._X:  # kept for the next call: a cache asks against the same B
            self._X, self._XT = B, np.ascontiguousarray(_checked(B, "Y").T)
        BT = self._XT
        if A.shape[1] != BT.shape[0]:
            raise ValueError(
                f"X has {A.shape[1]} features but Y has {BT.shape[0]}; both must have the same."
            )
        shape = (A.shape[0], BT.shape[1])
        _check_out(out, shape)
        if out is None:
            out = np.empty(shape)
        _minus_gamma_squared_distances(A, BT, self.gamma, out)
        return np.exp(out, out=out)
