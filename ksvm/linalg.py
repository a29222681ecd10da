"""The linear algebra that the solvers share.

* :func:`cholesky`: the factor of a matrix that a positive semi-definite
  kernel makes definite (``K + lam I``, ``I/nu + D K D``, one of their blocks),
  refused with a message that names the kernel when it fails, so that no solver
  runs a second test (:func:`ksvm.mercer.require_psd` is the test before a
  solver that factors nothing).
"""

import numpy as np
from scipy.linalg import cho_factor

__all__ = ["cholesky"]


def cholesky(M, what, *, overwrite=False):
    """The Cholesky factor of a matrix that a positive semi-definite kernel makes definite.

    Parameters
    ----------
    M : ndarray of shape (n, n)
        ``K + lam I``, ``I / nu + D K D`` or one of their blocks.
    what : str
        The matrix's name in the error message, e.g. ``"K + lam I"``.
    overwrite : bool, default=False
        Factor ``M`` in place (it is then destroyed).

    Returns
    -------
    factor : tuple
        For :func:`scipy.linalg.cho_solve`.

    Raises
    ------
    ValueError
        If ``M`` is not positive definite: the kernel is then not PSD.

    Examples
    --------
    >>> c, lower = cholesky(np.array([[4.0, 2.0], [2.0, 3.0]]), "Q")
    >>> np.round(np.tril(c), 4) if lower else np.round(np.triu(c), 4)
    array([[2.    , 0.    ],
           [1.    , 1.4142]])
    """
    try:
        return cho_factor(M, lower=True, overwrite_a=overwrite, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            f"{what} is not positive definite: the kernel matrix is not positive "
            "semi-definite (check it with ksvm.check_mercer)."
        ) from exc
