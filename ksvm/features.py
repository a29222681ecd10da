"""Explicit approximate features for the Gaussian kernel, so that Code 2 can run on them.

Code 2 of Mangasarian & Musicant (:func:`ksvm.lsvm.lsvm_linear`) needs the data
``X`` itself: the Sherman-Morrison-Woodbury identity factors the
``(d+1) x (d+1)`` matrix ``I/nu + H'H`` with ``H = Y[X  1]``, and one
iteration costs a product with ``X`` and one with ``X'``.  With a kernel the
data would have to be its feature map, and for the Gaussian kernel
``k(x, z) = exp(-gamma ||x - z||^2)`` that map is infinite-dimensional, so the
paper falls back to Code 3 and an ``n x n`` matrix.  The remedy here: map
every point to ``D`` explicit features ``phi(x)`` with ``phi(x)'phi(z)``
close to ``k(x, z)``, and run the *linear* LSVM on the ``n x D`` matrix
``Phi``.  Memory is then ``O(n D)`` and one iteration ``O(n D)``.  (``D`` is
the number of features, ``n_components``.)

What the linear LSVM on ``Phi`` solves is formulation (7) with ``X = Phi``
(equation numbers are the paper's, letters the book's, as in :mod:`ksvm.lsvm`):
its dual (11) has ``M = I/nu + Y (Phi Phi' + 11') Y``, that is
Code 3 with the kernel ``phi(x)'phi(z) + 1``.  The exact Gaussian-kernel LSVM
(Code 3 on the augmented points ``[x  1]``, where the appended column cancels in
``||x - z||``) has ``K`` without the ``+1``: the explicit-feature version
carries a penalised offset ``b`` of its own.  Both are compared in the
tests and in ``benchmarks/bench_lsvm_features.py``.

Random Fourier features (Rahimi & Recht 2007)
---------------------------------------------
Bochner's theorem writes a shift-invariant PSD kernel as the Fourier
transform of a probability density; for the Gaussian kernel that density is
``N(0, 2 gamma I)``:

.. math::

    k(x, z) = \\mathrm E_w\\, e^{i w'(x - z)} = \\mathrm E_w \\cos(w'(x - z)),
    \\qquad w \\sim N(0, 2\\gamma I).

With an independent phase ``b ~ U[0, 2 pi]``,
``2 cos(w'x + b) cos(w'z + b) = cos(w'(x - z)) + cos(w'(x + z) + 2b)`` and the
second term has mean zero over ``b``, so ``zeta(x) = sqrt(2) cos(w'x + b)``
satisfies ``E zeta(x) zeta(z) = k(x, z)``.  Averaging ``D`` independent copies,

.. math::

    \\phi(x) = \\sqrt{2/D}\\, \\cos(W'x + b), \\qquad
    \\phi(x)'\\phi(z) = \\frac1D \\sum_{j=1}^D \\zeta_j(x)\\zeta_j(z),
    \\qquad \\mathrm E\\, \\phi(x)'\\phi(z) = k(x, z).

Each term lies in ``[-2, 2]``, so Hoeffding's inequality bounds one entry,
``P(|phi(x)'phi(z) - k(x, z)| >= t) <= 2 exp(-D t^2 / 8)``, and the two cosines
being uncorrelated the variance of one term is
``1 - k^2 + k(2(x - z))/2 = 1 - k^2 + k^4/2 <= 1``: the error of an entry is
``O(1/sqrt(D))``, with mean square exactly ``(1 - k^2 + k^4/2) / D``.

Nystroem features (Williams & Seeger 2001)
------------------------------------------
Pick ``D`` landmarks ``Abar`` (rows drawn from the data without replacement),
write ``k_D(x) = K(x, Abar')`` (a row of ``D`` kernel values) and
``K_DD = K(Abar, Abar')``, and set

.. math::

    \\phi(x) = k_D(x)\\, K_{DD}^{+1/2}, \\qquad
    \\Phi\\Phi' = K_{mD} K_{DD}^{+} K_{Dm}.

In the reproducing-kernel Hilbert space, ``phi(x)'phi(z)`` is the inner
product of the projections of ``k(x, .)`` and ``k(z, .)`` onto the span of the
landmarks' ``k(abar_j, .)``.  A landmark's function is its own projection, so
the approximation is exact on every pair that involves a landmark
(``K_DD K_DD^+ K_DD = K_DD``), and ``K - Phi Phi'`` is PSD.  The square
root of the pseudo-inverse comes from the eigendecomposition
``K_DD = V diag(s) V'``: ``K_DD^{+1/2} = V diag(s^{-1/2}) V'`` over the
eigenvalues with ``s > D eps max(s)`` (numpy's default cutoff for ``pinv``);
smaller ones are rounding noise of a nearly singular ``K_DD`` (close
landmarks, a wide kernel), and inverting them would amplify that noise.

The reduced kernel of RSVM (Lee & Mangasarian 2001)
---------------------------------------------------
Lee & Mangasarian keep the rectangular block ``K(A, Abar')`` itself as the
data: their classifier ``K(x', Abar') v - gamma`` penalises ``||v||^2 + gamma^2``,
the linear formulation (7) with ``A`` replaced by ``K(A, Abar')`` and ``D``
features ``k_D(x)``, not whitened.  Its implicit kernel is
``k_D(x) k_D(z)' = (K_{mD} K_{Dm})_{xz}``, not ``k``; whitening by
``K_DD^{+1/2}`` is what turns it into the Nystroem approximation of ``k``.
``NystroemFeatures(whiten=False)`` gives these features.

Both transformers compute their output a block of rows at a time, writing
into the ``m x D`` result, so that the memory used beyond ``X`` and the
result is a few blocks of rows (16 MB each at most, :func:`ksvm.kernels.block_rows`), never an
``m x D x n`` intermediate.

=====================  ==================  ======================  ========================
transformer            fit                 transform (m points)    extra memory
=====================  ==================  ======================  ========================
RandomFourierFeatures  O(n D)              O(m n D)                none (in place)
NystroemFeatures       O(D^2 n + D^3)      O(m n D + m D^2)        one block of rows x D
=====================  ==================  ======================  ========================

References
----------
Rahimi, A. and Recht, B. (2007), Random features for large-scale kernel machines, NeurIPS 20.
Williams, C. K. I. and Seeger, M. (2001), Using the Nystroem method to speed up kernel
machines, NeurIPS 13.
Lee, Y.-J. and Mangasarian, O. L. (2001), RSVM: Reduced support vector machines,
Proceedings of the SIAM International Conference on Data Mining.
Mangasarian, O. L. and Musicant, D. R. (2001), Lagrangian Support Vector Machines,
JMLR 1, 161-177.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_bool, check_gamma, check_positive_integer
from .kernels import block_rows, rbf_kernel, resolve_gamma

__all__ = ["NystroemFeatures", "RandomFourierFeatures"]


def _row_blocks(m, width):
    """Slices of ``range(m)`` of :func:`ksvm.kernels.block_rows` rows each."""
    rows = block_rows(width)
    return (slice(start, min(start + rows, m)) for start in range(0, m, rows))


class _GaussianFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """What the two feature maps of the Gaussian kernel share: a ``transform`` that checks
    ``X`` and fills the features a block of rows at a time.

    A subclass says how wide a block of rows it works on (``_block_width``) and how it
    fills one block of features (``_fill``).
    """

    def transform(self, X):
        """The features of ``X`` (see the class), a block of rows at a time.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Phi : ndarray of shape (n_samples, n_components), float64
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Phi = np.empty((X.shape[0], self._n_features_out))
        for rows in _row_blocks(X.shape[0], self._block_width(X.shape[1])):
            self._fill(X[rows], Phi[rows])  # a view of Phi: filled in place
        return Phi


class RandomFourierFeatures(_GaussianFeatures):
    """Random Fourier features of the Gaussian kernel (Rahimi & Recht 2007).

    ``phi(x) = sqrt(2/D) cos(W'x + b)`` with the columns of ``W`` drawn from
    ``N(0, 2 gamma I)`` and ``b`` from ``U[0, 2 pi]``, so that
    ``E phi(x)'phi(z) = exp(-gamma ||x - z||^2)``; see the module docstring.

    Parameters
    ----------
    n_components : int >= 1, default=100
        ``D``, the number of features.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
        Width of the kernel ``exp(-gamma ||x - z||^2)``; 'scale' and 'auto' are
        resolved on the data given to ``fit`` (:func:`ksvm.kernels.resolve_gamma`).
    random_state : int, RandomState instance or None, default=None
        Seeds ``W`` and ``b``.  The draws are those of scikit-learn's
        ``RBFSampler`` (``W`` first, then ``b``, from one ``RandomState``), so
        the same seed gives the same features.

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features, n_components)
        ``W``.
    random_offset_ : ndarray of shape (n_components,)
        ``b``.
    gamma_ : float
        The width used.
    n_features_in_ : int

    Raises
    ------
    ValueError
        From ``fit``: ``n_components < 1``, ``gamma <= 0``, or ``X`` not a finite
        numeric 2-D array; from ``transform``: the same for ``X``, or a number of
        columns other than at ``fit``.

    References
    ----------
    Rahimi, A. and Recht, B. (2007), Random features for large-scale kernel machines.

    Examples
    --------
    >>> from ksvm.kernels import rbf_kernel
    >>> X = np.random.default_rng(0).random((5, 2))
    >>> rff = RandomFourierFeatures(n_components=20000, gamma=2.0, random_state=0)
    >>> Phi = rff.fit_transform(X)
    >>> Phi.shape
    (5, 20000)
    >>> bool(np.abs(Phi @ Phi.T - rbf_kernel(X, gamma=2.0)).max() < 0.03)
    True
    """

    def __init__(self, *, n_components=100, gamma="scale", random_state=None):
        self.n_components = n_components
        self.gamma = gamma
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw ``W`` and ``b`` for the number of columns of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Its number of columns, and its variance for ``gamma='scale'``.
        y : ignored

        Returns
        -------
        self : RandomFourierFeatures
        """
        D = check_positive_integer(self.n_components, "n_components")
        gamma = check_gamma(self.gamma, "gamma")
        X = validate_data(self, X, dtype=np.float64)
        self.gamma_ = resolve_gamma(gamma, X)
        rng = check_random_state(self.random_state)
        self.random_weights_ = np.sqrt(2.0 * self.gamma_) * rng.normal(size=(X.shape[1], D))
        self.random_offset_ = rng.uniform(0.0, 2.0 * np.pi, size=D)
        return self

    @property
    def _n_features_out(self):
        # the number of output features, which scikit-learn's get_feature_names_out reads
        return self.random_weights_.shape[1]

    def _block_width(self, n_features):
        return self.random_weights_.shape[1]

    def _fill(self, X, out):
        W = self.random_weights_
        np.matmul(X, W, out=out)
        out += self.random_offset_
        np.cos(out, out=out)
        out *= np.sqrt(2.0 / W.shape[1])


class NystroemFeatures(_GaussianFeatures):
    """Nystroem features of the Gaussian kernel, or RSVM's reduced kernel.

    ``phi(x) = K(x, Abar') K_DD^{+1/2}`` (``whiten=True``, Williams & Seeger
    2001), so that ``Phi Phi' = K_mD K_DD^+ K_Dm``; or ``phi(x) = K(x, Abar')``
    (``whiten=False``, the reduced kernel of Lee & Mangasarian's RSVM).  The
    landmarks ``Abar`` are ``n_components`` rows of the training data drawn
    without replacement; see the module docstring.

    Parameters
    ----------
    n_components : int >= 1, default=100
        ``D``, the number of landmarks and of features.  It may not exceed the
        number of training points.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
        Width of the kernel ``exp(-gamma ||x - z||^2)``; 'scale' and 'auto' are
        resolved on the data given to ``fit`` (:func:`ksvm.kernels.resolve_gamma`).
    whiten : bool, default=True
        Multiply by ``K_DD^{+1/2}`` (Nystroem) or not (RSVM's reduced kernel).
    random_state : int, RandomState instance or None, default=None
        Seeds the choice of landmarks: the first ``D`` entries of a random
        permutation of the rows, drawn as scikit-learn's ``Nystroem`` draws
        them, so the same seed picks the same landmarks.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The landmarks ``Abar``.
    component_indices_ : ndarray of shape (n_components,)
        Their rows in the training data.
    normalization_ : ndarray of shape (n_components, n_components) or None
        ``K_DD^{+1/2} = V diag(s^{-1/2}) V'`` over the eigenvalues
        ``s > D eps max(s)`` of ``K_DD``; None if ``whiten=False``.
    rank_ : int
        The number of eigenvalues kept (``n_components`` if ``whiten=False``).
    gamma_ : float
        The width used.
    n_features_in_ : int

    Raises
    ------
    ValueError
        From ``fit``: ``n_components < 1`` or larger than the number of
        samples, ``gamma <= 0``, or ``X`` not a finite numeric 2-D array; from
        ``transform``: the same for ``X``, or a number of columns other than at
        ``fit``.

    Notes
    -----
    ``n_components > n_samples`` is an error rather than silently capped (as
    scikit-learn's ``Nystroem`` does, with a warning): the output would not
    have the number of columns asked for, and with every point a landmark the
    method is the exact kernel at a higher price.

    The features multiply the kernel row by ``K_DD^{+1/2}``, whose norm is
    ``s^{-1/2}`` for the smallest eigenvalue kept (up to about
    ``(D eps max(s))^{-1/2}``): rounding in ``K(x, Abar')`` reaches the features
    amplified by that much, the Gram ``Phi Phi'`` only by about ``max(s)``.
    A wide kernel or close landmarks make ``K_DD`` nearly singular; check
    ``rank_`` and prefer fewer landmarks or a larger ``gamma``.

    References
    ----------
    Williams, C. K. I. and Seeger, M. (2001), Using the Nystroem method to speed up
    kernel machines.  Lee, Y.-J. and Mangasarian, O. L. (2001), RSVM: Reduced support
    vector machines.

    Examples
    --------
    >>> from ksvm.kernels import rbf_kernel
    >>> X = np.random.default_rng(0).random((50, 2))
    >>> nys = NystroemFeatures(n_components=10, gamma=2.0, random_state=0).fit(X)
    >>> Phi = nys.transform(X)
    >>> Phi.shape
    (50, 10)
    >>> L = nys.component_indices_  # exact on the landmarks
    >>> bool(np.allclose(Phi[L] @ Phi[L].T, rbf_kernel(X[L], gamma=2.0), atol=1e-10))
    True
    >>> R = NystroemFeatures(n_components=10, gamma=2.0, whiten=False, random_state=0)
    >>> bool(np.array_equal(R.fit_transform(X), rbf_kernel(X, X[L], gamma=2.0)))
    True
    """

    def __init__(self, *, n_components=100, gamma="scale", whiten=True, random_state=None):
        self.n_components = n_components
        self.gamma = gamma
        self.whiten = whiten
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the landmarks and, if ``whiten``, compute ``K_DD^{+1/2}``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : NystroemFeatures
        """
        D = check_positive_integer(self.n_components, "n_components")
        gamma = check_gamma(self.gamma, "gamma")
        whiten = check_bool(self.whiten, "whiten")
        X = validate_data(self, X, dtype=np.float64)
        self.gamma_ = resolve_gamma(gamma, X)
        m = X.shape[0]
        if m < D:
            raise ValueError(
                f"n_components = {D} is larger than n_samples = {m}: the landmarks are "
                "rows of the training data, drawn without replacement.  Lower n_components "
                "(or use the exact kernel: with every point a landmark Nystroem reproduces it)."
            )
        rng = check_random_state(self.random_state)
        self.component_indices_ = rng.permutation(m)[:D]
        self.components_ = X[self.component_indices_]
        self.normalization_, self.rank_ = None, D
        if whiten:
            s, V = np.linalg.eigh(rbf_kernel(self.components_, gamma=self.gamma_))
            keep = s > D * np.finfo(np.float64).eps * s.max()
            Vk = V[:, keep]
            self.normalization_ = (Vk / np.sqrt(s[keep])) @ Vk.T
            self.rank_ = int(keep.sum())
        return self

    @property
    def _n_features_out(self):
        # the number of output features, which scikit-learn's get_feature_names_out reads
        return self.components_.shape[0]

    def _block_width(self, n_features):
        return max(self.components_.shape[0], n_features)

    def _fill(self, X, out):
        K = rbf_kernel(X, self.components_, gamma=self.gamma_)
        if self.normalization_ is None:
            out[...] = K
        else:
            np.matmul(K, self.normalization_, out=out)
