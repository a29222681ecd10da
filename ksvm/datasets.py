"""Seeded data sets used across the book, all with labels in {-1, +1}.

Every generator takes ``seed`` (an int, a :class:`numpy.random.Generator` or
None) and returns ``X`` as a float64 array of shape (n_samples, n_features)
and ``y`` as an int64 array of -1 and +1, so that a chapter draws the same
picture on every run.  Nothing is downloaded: the two real sets are the ones
that ship inside scikit-learn.

=========================  ===================================================
generator                  what it is for
=========================  ===================================================
make_cocianu_state         the two Gaussian classes of Cocianu & State (2013)
make_checkerboard          the 4 x 4 checkerboard of Ho & Kleinberg (1996)
make_separable_2d          a linearly separable 2-D set with a known margin
make_noisy_2d              a 2-D set with a curved boundary and label noise
make_linear_large          millions of points for the LSVM runs, built in chunks
linear_large_chunk         one chunk of the same distribution, seeded from (seed, k)
checkerboard_chunk         one chunk of the checkerboard, seeded from (seed, k)
load_breast_cancer_pm      scikit-learn's breast cancer set (malignant = +1)
load_digits_binary         two digits (or two groups of digits) of scikit-learn's set
=========================  ===================================================

The chunk functions are plain numpy; the lazy Dask arrays built from them and their
storage in Zarr are :mod:`ksvm.lsvm.dask_data` (``make_chunked``, ``write_zarr``,
``read_zarr``), next to the solvers that read them, so that this module needs no Dask.
"""

import numbers

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits

from ._validation import check_finite_real, check_integer, check_matrix

__all__ = [
    "COCIANU_STATE_COVARIANCES",
    "COCIANU_STATE_MEANS",
    "checkerboard_chunk",
    "checkerboard_labels",
    "linear_hyperplane",
    "linear_large_chunk",
    "load_breast_cancer_pm",
    "load_digits_binary",
    "make_checkerboard",
    "make_cocianu_state",
    "make_linear_large",
    "make_noisy_2d",
    "make_separable_2d",
]

#: Class means of Cocianu & State (2013), section 5: class 1 (label +1) first.
COCIANU_STATE_MEANS = (np.array([2.0, 0.5]), np.array([1.0, -0.75]))
#: Class covariance matrices of Cocianu & State (2013), section 5, as printed.
#: With these means and covariances the distance the paper defines,
#: ``(mu_1 - mu_2)' (Sigma_1 + Sigma_2)^{-1} (mu_1 - mu_2)``, is 12.417; the paper
#: reports 12.3844, 0.3% less, within the rounding of the printed covariance entries
#: (half a unit of their last digit moves d between 12.35 and 12.48).
COCIANU_STATE_COVARIANCES = (
    np.array([[0.063, -0.0007], [-0.0007, 0.1646]]),
    np.array([[0.0666, 0.017], [0.017, 0.1063]]),
)


def _check_count(value, name, minimum=1):
    return check_integer(value, name, minimum)


def _check_fraction(value, name, low, high):
    value = check_finite_real(value, name)
    if not low <= value < high:
        raise ValueError(f"{name} must be in [{low}, {high}), got {value!r}.")
    return value


def _labels(positive):
    return np.where(positive, 1, -1).astype(np.int64)


def make_cocianu_state(n_pos=60, n_neg=70, *, accept=None, max_tries=1000, seed=None):
    """Draw the two Gaussian classes of Cocianu & State (2013), section 5.

    Class 1, ``N(mu_1, Sigma_1)`` with ``mu_1 = (2, 0.5)``, gets label +1 and
    comes first; class 2, ``N(mu_2, Sigma_2)`` with ``mu_2 = (1, -0.75)``,
    gets -1 (the paper's ordering: the first m examples are positive).  The
    covariances are :data:`COCIANU_STATE_COVARIANCES`.  The paper trains on
    60 + 70 linearly separable points and tests on 5000 + 5000.

    Parameters
    ----------
    n_pos, n_neg : int >= 1, default=60, 70
        Sample sizes of the two classes.
    accept : callable or None, default=None
        ``accept(X, y) -> bool``: if given, redraw the whole sample until it
        is true, e.g. :func:`ksvm.primal.is_linearly_separable` for a linearly
        separable training set, as the paper's is.  The data sets decide no
        such property themselves: the test is the caller's.
    max_tries : int >= 1, default=1000
        How many draws ``accept`` may see.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    X : ndarray of shape (n_pos + n_neg, 2)
    y : ndarray of shape (n_pos + n_neg,), int64 in {-1, +1}

    Raises
    ------
    ValueError
        If a size is not a positive integer, ``accept`` is not callable, or no
        sample was accepted in ``max_tries`` draws (raise ``max_tries`` or lower
        the sizes).

    Examples
    --------
    >>> from ksvm.primal import is_linearly_separable
    >>> X, y = make_cocianu_state(60, 70, accept=is_linearly_separable, seed=0)
    >>> X.shape, int((y == 1).sum())
    ((130, 2), 60)
    """
    n_pos = _check_count(n_pos, "n_pos")
    n_neg = _check_count(n_neg, "n_neg")
    max_tries = _check_count(max_tries, "max_tries")
    if accept is not None and not callable(accept):
        raise ValueError(f"accept must be a function of (X, y) or None, got {accept!r}.")
    rng = np.random.default_rng(seed)
    y = _labels(np.arange(n_pos + n_neg) < n_pos)
    (mu1, mu2), (S1, S2) = COCIANU_STATE_MEANS, COCIANU_STATE_COVARIANCES
    for _ in range(1 if accept is None else max_tries):
        X = np.vstack(
            [
                rng.multivariate_normal(mu1, S1, size=n_pos),
                rng.multivariate_normal(mu2, S2, size=n_neg),
            ]
        )
        if accept is None or accept(X, y):
            return X, y
    name = getattr(accept, "__name__", repr(accept))
    raise ValueError(
        f"No sample of {n_pos} + {n_neg} points passed {name} in {max_tries} "
        "draws; raise max_tries or use smaller samples."
    )


def checkerboard_labels(X, board=4):
    """Label points of the unit square by the colour of their checkerboard cell.

    The square ``[0, 1)^2`` is cut into ``board x board`` cells; a point gets
    +1 if the sum of its cell's row and column indices is even, else -1.
    Points outside the square are labelled by the same rule extended
    periodically.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
    board : int >= 2, default=4

    Returns
    -------
    y : ndarray of shape (n_samples,), int64 in {-1, +1}

    Raises
    ------
    ValueError
        If ``X`` does not have two columns or ``board`` is not an integer >= 2.

    Examples
    --------
    >>> checkerboard_labels([[0.1, 0.1], [0.3, 0.1]])
    array([ 1, -1])
    """
    X = check_matrix(X)
    board = _check_count(board, "board", minimum=2)
    if X.shape[1] != 2:
        raise ValueError(f"The checkerboard is two-dimensional; X has {X.shape[1]} columns.")
    cells = np.floor(X * board).astype(np.int64)
    return _labels((cells[:, 0] + cells[:, 1]) % 2 == 0)


def make_checkerboard(n_samples=1000, *, board=4, seed=None):
    """Points drawn uniformly on the unit square, labelled by a checkerboard.

    The Ho & Kleinberg (1996) checkerboard that Mangasarian & Musicant (2001)
    use for their nonlinear-kernel LSVM runs: 1000 training points on a
    4 x 4 board.  See :func:`checkerboard_labels` for the labelling.

    Parameters
    ----------
    n_samples : int >= 1, default=1000
    board : int >= 2, default=4
    seed : int, numpy.random.Generator or None

    Returns
    -------
    X : ndarray of shape (n_samples, 2), in [0, 1)^2
    y : ndarray of shape (n_samples,), int64 in {-1, +1}

    Raises
    ------
    ValueError
        If ``n_samples`` or ``board`` is out of range.

    Examples
    --------
    >>> X, y = make_checkerboard(1000, seed=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 2), [-1, 1])
    """
    n_samples = _check_count(n_samples, "n_samples")
    board = _check_count(board, "board", minimum=2)
    X = np.random.default_rng(seed).random((n_samples, 2))
    return X, checkerboard_labels(X, board)


def make_separable_2d(n_samples=40, *, margin=1.0, seed=None):
    """Two Gaussian blobs in 2-D, thinned so that a known line separates them.

    Points are drawn from ``N((1, 1), 0.7^2 I)`` (label +1) and
    ``N((-1, -1), 0.7^2 I)`` (label -1); any point closer than ``margin / 2``
    to the line ``x_1 + x_2 = 0``, or on its wrong side, is redrawn.  The line
    therefore separates the classes with a gap of at least ``margin``, and the
    maximum-margin line has a margin at least that large.

    Parameters
    ----------
    n_samples : int >= 2, default=40
        Total size; the classes get ``n_samples // 2`` and the rest.
    margin : float >= 0, default=1.0
    seed : int, numpy.random.Generator or None

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), int64 in {-1, +1}

    Raises
    ------
    ValueError
        If ``n_samples < 2`` or ``margin`` is negative or so large (> 4)
        that hardly any draw would be kept.

    Examples
    --------
    >>> X, y = make_separable_2d(40, seed=0)
    >>> bool(np.all(y * (X[:, 0] + X[:, 1]) / np.sqrt(2) >= 0.5))
    True
    """
    n_samples = _check_count(n_samples, "n_samples", minimum=2)
    margin = check_finite_real(margin, "margin")
    if not 0 <= margin <= 4:
        raise ValueError(f"margin must be in [0, 4], got {margin!r}.")
    rng = np.random.default_rng(seed)
    y = _labels(np.arange(n_samples) < n_samples // 2)
    X = np.empty((n_samples, 2))
    redraw = np.arange(n_samples)
    while redraw.size:
        X[redraw] = y[redraw, None] * 1.0 + 0.7 * rng.standard_normal((redraw.size, 2))
        signed = y[redraw] * (X[redraw, 0] + X[redraw, 1]) / np.sqrt(2)
        redraw = redraw[signed < margin / 2]
    return X, y


def _noisy_2d_boundary(X):
    return X[:, 1] > 0.5 * np.sin(np.pi * X[:, 0])


def make_noisy_2d(n_samples=200, *, flip=0.1, return_clean=False, seed=None):
    """Points on ``[-1, 1]^2`` split by a sine curve, with some labels flipped.

    The clean label is +1 above the curve ``x_2 = 0.5 sin(pi x_1)`` and -1
    below; each label is then flipped with probability ``flip``.  A linear
    boundary cannot follow the curve, a low-degree polynomial roughly can, an
    RBF kernel can (and can also chase the flipped points): the lecture's
    figures of decision boundaries against C and the kernel.

    Parameters
    ----------
    n_samples : int >= 1, default=200
    flip : float in [0, 0.5), default=0.1
        Probability that a label is flipped.
    return_clean : bool, default=False
        Also return the labels before flipping.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), int64 in {-1, +1}
    y_clean : ndarray of shape (n_samples,)
        Only if ``return_clean``.

    Raises
    ------
    ValueError
        If ``n_samples`` or ``flip`` is out of range.

    Examples
    --------
    >>> X, y, y_clean = make_noisy_2d(200, flip=0.1, return_clean=True, seed=0)
    >>> round(float(np.mean(y != y_clean)), 2)
    0.1
    """
    n_samples = _check_count(n_samples, "n_samples")
    flip = _check_fraction(flip, "flip", 0.0, 0.5)
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, 2))
    y_clean = _labels(_noisy_2d_boundary(X))
    y = np.where(rng.random(n_samples) < flip, -y_clean, y_clean)
    return (X, y, y_clean) if return_clean else (X, y)


def make_linear_large(
    n_samples, n_features=10, *, noise=0.2, chunk_size=100_000, return_coef=False, seed=None
):
    """A large two-class set with a linear boundary, built chunk by chunk.

    ``X`` is uniform on ``[-1, 1]^n_features``; a hyperplane ``w'x = b`` with a
    random unit normal ``w`` and a small offset ``b`` is drawn once, and
    ``y = sign(w'x - b + noise * e)`` with standard normal ``e``, so that
    about ``noise`` controls how many points lie on the wrong side.

    The result is written into preallocated arrays ``chunk_size`` rows at a
    time, so the memory used beyond ``X`` and ``y`` is a few chunks.  The
    features and the noise come from two independent streams spawned from
    ``seed``, which makes the data independent of ``chunk_size``.

    Parameters
    ----------
    n_samples : int >= 1
        The number of points (the LSVM paper's largest run has 2,000,000).
    n_features : int >= 1, default=10
    noise : float >= 0, default=0.2
        Standard deviation of the Gaussian noise added to ``w'x - b``.
    chunk_size : int >= 1, default=100_000
    return_coef : bool, default=False
        Also return the true ``w`` and ``b``.
    seed : int, numpy.random.Generator or None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int64 in {-1, +1}
    w, b : ndarray of shape (n_features,), float
        Only if ``return_coef``.

    Raises
    ------
    ValueError
        If a size is not a positive integer or ``noise`` is negative.

    Examples
    --------
    >>> X, y = make_linear_large(1000, 10, seed=0)
    >>> X.shape, y.dtype
    ((1000, 10), dtype('int64'))
    """
    n_samples = _check_count(n_samples, "n_samples")
    n_features = _check_count(n_features, "n_features")
    chunk_size = _check_count(chunk_size, "chunk_size")
    noise = check_finite_real(noise, "noise")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise!r}.")
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(n_features)
    w /= np.linalg.norm(w)
    b = float(rng.uniform(-0.1, 0.1))
    x_stream, noise_stream = rng.spawn(2)
    X = np.empty((n_samples, n_features))
    y = np.empty(n_samples, dtype=np.int64)
    for start in range(0, n_samples, chunk_size):
        stop = min(start + chunk_size, n_samples)
        block = X[start:stop]
        block[...] = x_stream.uniform(-1.0, 1.0, size=block.shape)
        score = block @ w - b + noise * noise_stream.standard_normal(stop - start)
        y[start:stop] = np.where(score >= 0, 1, -1)
    return (X, y, w, b) if return_coef else (X, y)


def _check_chunk_seed(seed):
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(
            f"seed must be a non-negative int here (chunk k is drawn from the seed "
            f"sequence (seed, k)), got {seed!r}."
        )
    return int(seed)


def _chunk_rows(k, chunk_size, n_samples):
    k = check_integer(k, "k", 0)
    chunk_size = _check_count(chunk_size, "chunk_size")
    n_samples = _check_count(n_samples, "n_samples")
    start = k * chunk_size
    if start >= n_samples:
        raise ValueError(f"chunk {k} starts at row {start}, past the {n_samples} samples.")
    return k, min(chunk_size, n_samples - start)


def linear_hyperplane(n_features=10, *, seed=0):
    """The hyperplane ``w'x = b`` of :func:`make_linear_large` for ``seed``.

    Parameters
    ----------
    n_features : int >= 1, default=10
    seed : int >= 0, default=0

    Returns
    -------
    w : ndarray of shape (n_features,), unit norm
    b : float in [-0.1, 0.1)

    Examples
    --------
    >>> w, b = linear_hyperplane(10, seed=0)
    >>> _, _, w0, b0 = make_linear_large(10, 10, return_coef=True, seed=0)
    >>> bool(np.array_equal(w, w0)), b == b0
    (True, True)
    """
    n_features = _check_count(n_features, "n_features")
    rng = np.random.default_rng(_check_chunk_seed(seed))
    w = rng.standard_normal(n_features)
    w /= np.linalg.norm(w)
    return w, float(rng.uniform(-0.1, 0.1))


def linear_large_chunk(k, chunk_size, n_samples, n_features=10, *, noise=0.2, seed=0):
    """Chunk ``k`` of a :func:`make_linear_large`-like set, drawn on its own.

    The distribution is :func:`make_linear_large`'s: ``x`` uniform on
    ``[-1, 1]^n_features``, ``y = sign(w'x - b + noise * e)`` with the hyperplane
    of :func:`linear_hyperplane` (the same ``w`` and ``b`` for the same seed).
    The chunk's points come from their own stream, seeded by the sequence
    ``(seed, k)``: any chunk is reproducible without the others, so a cluster's
    workers can each draw theirs.  (The points differ from
    :func:`make_linear_large`'s, which draws all of them from one stream.)

    Parameters
    ----------
    k : int >= 0
        The chunk: rows ``k * chunk_size`` to ``min((k + 1) * chunk_size, n_samples)``.
    chunk_size, n_samples : int >= 1
    n_features : int >= 1, default=10
    noise : float >= 0, default=0.2
    seed : int >= 0, default=0

    Returns
    -------
    X : ndarray of shape (rows, n_features), float64
    y : ndarray of shape (rows,), int64 in {-1, +1}

    Raises
    ------
    ValueError
        If a size is out of range, the chunk starts past ``n_samples``, ``noise < 0``
        or ``seed`` is not a non-negative int.

    Examples
    --------
    >>> X, y = linear_large_chunk(2, 1000, 2500, 10, seed=0)
    >>> X.shape, bool(np.array_equal(X, linear_large_chunk(2, 1000, 2500, 10, seed=0)[0]))
    ((500, 10), True)
    """
    k, rows = _chunk_rows(k, chunk_size, n_samples)
    noise = check_finite_real(noise, "noise")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise!r}.")
    w, b = linear_hyperplane(n_features, seed=seed)
    rng = np.random.default_rng([seed, k])
    X = rng.uniform(-1.0, 1.0, size=(rows, w.size))
    y = np.where(X @ w - b + noise * rng.standard_normal(rows) >= 0, 1, -1).astype(np.int64)
    return X, y


def checkerboard_chunk(k, chunk_size, n_samples, *, board=4, seed=0):
    """Chunk ``k`` of a :func:`make_checkerboard`-like set, drawn on its own.

    Points uniform on the unit square, labelled by :func:`checkerboard_labels`,
    from a stream seeded by the sequence ``(seed, k)``.

    Parameters
    ----------
    k : int >= 0
    chunk_size, n_samples : int >= 1
    board : int >= 2, default=4
    seed : int >= 0, default=0

    Returns
    -------
    X : ndarray of shape (rows, 2)
    y : ndarray of shape (rows,), int64 in {-1, +1}

    Raises
    ------
    ValueError
        As :func:`linear_large_chunk`.

    Examples
    --------
    >>> X, y = checkerboard_chunk(0, 100, 250, seed=1)
    >>> X.shape, bool(np.array_equal(y, checkerboard_labels(X)))
    ((100, 2), True)
    """
    k, rows = _chunk_rows(k, chunk_size, n_samples)
    board = _check_count(board, "board", minimum=2)
    X = np.random.default_rng([_check_chunk_seed(seed), k]).random((rows, 2))
    return X, checkerboard_labels(X, board)


def load_breast_cancer_pm():
    """scikit-learn's Wisconsin breast cancer set with labels in {-1, +1}.

    569 samples, 30 features; malignant tumours (scikit-learn's class 0) are
    +1, benign ones -1.  The features are returned as they are, unscaled.

    Returns
    -------
    X : ndarray of shape (569, 30)
    y : ndarray of shape (569,), int64 in {-1, +1}

    Examples
    --------
    >>> X, y = load_breast_cancer_pm()
    >>> X.shape, int((y == 1).sum())
    ((569, 30), 212)
    """
    data = load_breast_cancer()
    return np.asarray(data.data, dtype=np.float64), _labels(data.target == 0)


def _digit_set(value, name):
    values = [value] if isinstance(value, numbers.Integral) else list(value)
    if not values or any(
        isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) or not 0 <= v <= 9
        for v in values
    ):
        raise ValueError(
            f"{name} must be a digit 0-9 or a non-empty list of digits, got {value!r}."
        )
    return {int(v) for v in values}


def load_digits_binary(positive=3, negative=8):
    """scikit-learn's 8 x 8 digits as a two-class task.

    Parameters
    ----------
    positive : int or iterable of int, default=3
        The digit(s) labelled +1.
    negative : int or iterable of int, default=8
        The digit(s) labelled -1; must not overlap ``positive``.

    Returns
    -------
    X : ndarray of shape (n_samples, 64)
        Pixel intensities 0-16, unscaled.
    y : ndarray of shape (n_samples,), int64 in {-1, +1}

    Raises
    ------
    ValueError
        If a digit is not in 0-9, or the two groups overlap.

    Examples
    --------
    >>> X, y = load_digits_binary(3, 8)
    >>> X.shape
    (357, 64)
    """
    pos = _digit_set(positive, "positive")
    neg = _digit_set(negative, "negative")
    if pos & neg:
        raise ValueError(f"positive and negative share the digits {sorted(pos & neg)}.")
    data = load_digits()
    keep = np.isin(data.target, sorted(pos | neg))
    return np.asarray(data.data[keep], dtype=np.float64), _labels(
        np.isin(data.target[keep], sorted(pos))
    )
