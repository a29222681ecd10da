"""The nearest-class-mean classifier in feature space: a kernel method in one line.

Map every point into the feature space ``F`` by ``Phi``, average each class,
and give a new point the label of the nearer mean:

.. math::

    f(x) = \\|\\Phi(x) - \\mu_-\\|^2 - \\|\\Phi(x) - \\mu_+\\|^2 ,
    \\qquad \\mu_\\pm = \\frac{1}{n_\\pm} \\sum_{y_i = \\pm 1} \\Phi(x_i).

Expanding the squares, ``Phi`` appears only inside inner products, which the
kernel supplies:

.. math::

    f(x) = \\sum_i c_i\\, k(x_i, x) + b, \\qquad
    c_i = \\frac{2 y_i}{n_{y_i}}, \\qquad
    b = \\frac{1}{n_-^2}\\sum_{y_i = y_j = -1} k(x_i, x_j)
      - \\frac{1}{n_+^2}\\sum_{y_i = y_j = +1} k(x_i, x_j).

The decision function has the same form as an SVM's, ``sum_i c_i k(x_i, x) + b``,
but every training point carries weight: nothing is sparse.

References
----------
Schölkopf, B. and Smola, A. J. (2002), *Learning with Kernels*, section 1.2.
"""

import numpy as np

from .base import ExampleWeightsClassifier

__all__ = ["KernelMeanClassifier"]


class KernelMeanClassifier(ExampleWeightsClassifier):
    """Assign each point to the class whose mean in feature space is nearer.

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid', 'precomputed'} or callable
        The kernel, 'rbf' by default; see :func:`ksvm.kernels.make_kernel`.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
        Kernel coefficient for 'poly', 'rbf', 'exponential' and 'sigmoid';
        see :func:`ksvm.kernels.resolve_gamma`.
    degree : int >= 1, default=3
        Degree of the 'poly' kernel.
    coef0 : float, default=1.0
        Constant term of the 'poly' and 'sigmoid' kernels.

    Attributes
    ----------
    classes_, n_features_in_, support_, support_vectors_
        As for every ``ksvm`` classifier (:mod:`ksvm.base`); every training
        point is a support vector.
    dual_coef_ : ndarray of shape (1, n_train)
        The weights ``c_i = 2 y_i / n_{y_i}`` of ``f(x) = sum_i c_i k(x_i, x) + b``.
    intercept_ : ndarray of shape (1,)
        The constant ``b``.
    coef_ : ndarray of shape (1, n_features)
        ``w = mu_+ - mu_-`` times 2, with the linear kernel only.
    n_iter_ : int
        1: the means are computed directly.
    converged_ : bool
        True.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [4.0], [5.0]])
    >>> clf = KernelMeanClassifier(kernel="linear").fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[1.5], [3.5]])
    array(['a', 'b'], dtype='<U1')
    """

    def __init__(self, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def _solve(self, K, y_pm, params):
        """The two class means in feature space, through the Gram matrix ``K``."""
        pos, neg = y_pm > 0, y_pm < 0
        n_pos, n_neg = pos.sum(), neg.sum()
        c = np.where(pos, 2.0 / n_pos, -2.0 / n_neg)
        return self._example_weights(c, K[np.ix_(neg, neg)].mean() - K[np.ix_(pos, pos)].mean())
