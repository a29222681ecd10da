"""A Dask array read block by block, for :mod:`ksvm.lsvm.dask`: the checks of its input,
one function mapped over its row blocks with sums tree-reduced on the cluster, and the
sums ``H'H`` and ``H'1`` of the linear LSVM (``H = Y [X  1]``).

Each block of rows contributes a ``(d+1) x (d+1)`` matrix or a ``(d+1)``-vector;
only the sums reach the client, and the row outputs (``u``, the free set) stay on the
workers as Dask arrays chunked like the data.
"""

import dask
import dask.array as da
import numpy as np
from dask.base import is_dask_collection

from ..linalg import augmented_gram

__all__ = ["check_row_chunked", "gram_sums"]


# --- input: a Dask array chunked by rows, labels chunked the same ---------------------


def check_row_chunked(X, y=None, name="X"):
    """Validate a Dask array chunked by rows and labels aligned with its row chunks.

    Parameters
    ----------
    X : dask.array.Array of shape (n, d)
        One chunk along the columns (``X.rechunk({1: -1})`` makes it so).
    y : dask.array.Array or array-like of shape (n,) or None
        The labels: a Dask array with the row chunks of ``X``, or an in-memory
        array, which is cut into those chunks.
    name : str, default="X"

    Returns
    -------
    X : dask.array.Array of float64
    y : dask.array.Array or None
        The labels as given (not yet encoded), chunked like the rows of ``X``.

    Raises
    ------
    ValueError
        If ``X`` is not two-dimensional or not numeric, is chunked along its
        columns, is empty, or ``y`` has another length or other row chunks.

    Examples
    --------
    >>> X = da.ones((10, 3), chunks=(4, 3))
    >>> X2, y2 = check_row_chunked(X, np.arange(10) % 2)
    >>> y2.chunks
    ((4, 4, 2),)
    >>> check_row_chunked(da.ones((10, 3), chunks=(4, 2)))
    Traceback (most recent call last):
    ...
    ValueError: X is chunked along its columns ...
    """
    if not is_dask_collection(X):
        X = da.asarray(np.asarray(X))
    if X.ndim != 2:
        raise ValueError(f"{name} must be a two-dimensional Dask array, got {X.ndim} dimension(s).")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {X.shape}).")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(
            f"{name} has unknown row chunk sizes; call {name}.compute_chunk_sizes() first."
        )
    if len(X.chunks[1]) != 1:
        raise ValueError(
            f"{name} is chunked along its columns ({X.chunks[1]}); the LSVM needs whole rows in "
            f"each block: use {name}.rechunk({{1: -1}})."
        )
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool) or np.issubdtype(
        X.dtype, np.complexfloating
    ):
        raise ValueError(f"{name} must hold real numbers, got dtype {X.dtype}.")
    X = X.astype(np.float64)
    if y is None:
        return X, None
    if is_dask_collection(y):
        if y.ndim != 1:
            raise ValueError(f"y must be one-dimensional, got {y.ndim} dimension(s).")
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"{name} has {X.shape[0]} rows but y has {y.shape[0]} labels.")
        if y.chunks[0] != X.chunks[0]:
            raise ValueError(
                f"y is not aligned with the rows of {name}: its chunks are {y.chunks[0]}, "
                f"{name}'s row chunks {X.chunks[0]}; use y.rechunk({name}.chunks[0])."
            )
        return X, y
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {y.shape}.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"{name} has {X.shape[0]} rows but y has {y.shape[0]} labels.")
    return X, da.from_array(y, chunks=(X.chunks[0],))


def _classes(y):
    """The two classes of ``y`` (sorted), found on the cluster; ValueError if not two."""
    classes = np.asarray(da.unique(y).compute())
    if classes.size != 2:
        raise ValueError(
            f"The LSVM needs exactly two classes in y; found {classes.size}: "
            f"{classes[:10].tolist()}."
        )
    return classes


def _labels_pm(y, classes=None):
    """The labels as int8 -1/+1 (the second class in sort order is +1), persisted.

    One byte a point on the workers; the blocks turn them into float64 as they use them.
    """
    classes = _classes(y) if classes is None else classes
    return _persist(da.where(y == classes[1], 1, -1).astype(np.int8))[0]


# --- the map and the reduce ----------------------------------------------------------


def _per_block(func, arrays, n_sums, n_rows_out, row_dtypes=None, n_max=0, **constants):
    """Run ``func`` once on each row block of ``arrays``.

    ``func(*blocks, **constants)`` returns ``(rows, sums)`` or, with ``n_max``,
    ``(rows, sums, maxima)``: a tuple of ``n_rows_out`` arrays of the block's
    length, a vector of ``n_sums`` partial sums and one of ``n_max`` partial
    maxima.  Returns the row outputs as Dask arrays chunked like the inputs and
    the sums (and maxima) tree-reduced over the blocks, lazy.  Compute or persist
    them together, so that each block is read once.
    """
    args = []
    for a in arrays:
        args += [a, "ij" if a.ndim == 2 else "i"]
    packed = da.blockwise(
        func,
        "i",
        *args,
        dtype=object,
        meta=np.empty((0,), dtype=object),
        concatenate=True,
        **constants,
    )
    row_dtypes = row_dtypes or (np.float64,) * n_rows_out
    rows = tuple(
        packed.map_blocks(lambda t, k=k: t[0][k], dtype=dt, meta=np.empty((0,), dtype=dt))
        for k, dt in zip(range(n_rows_out), row_dtypes, strict=True)
    )

    def partial(k, size):
        return da.blockwise(
            lambda t: np.asarray(t[k], dtype=np.float64)[None, :],
            "ik",
            packed,
            "i",
            new_axes={"k": size},
            adjust_chunks={"i": 1},
            dtype=np.float64,
            meta=np.empty((0, 0)),
        )

    sums = partial(1, n_sums).sum(axis=0)
    if not n_max:
        return rows, sums
    return rows, sums, partial(2, n_max).max(axis=0)


def _augmented_gram(x, y, keep=None):
    """One block's share of ``H'H`` (flattened) and ``H'1``.

    ``H_k = Y_k [X_k  1]`` for the block ``x = X_k`` and its labels ``y``; the labels
    square away in ``H'H``.  Rows outside ``keep`` (a boolean mask, the free set) are
    left out.
    """
    y = y.astype(np.float64, copy=False)
    if keep is not None:
        x, y = x[keep], y[keep]
    return np.concatenate([augmented_gram(x).ravel(), x.T @ y, [y.sum()]])


def _gram_block(x, y):
    bad = np.count_nonzero(~np.isfinite(x))
    return (), np.concatenate([_augmented_gram(x, y), [bad]])


def gram_sums(X, y):
    """``H'H`` and ``H'1`` for ``H = Y [X  1]``, summed block by block on the cluster.

    Parameters
    ----------
    X : dask.array.Array of shape (n, d)
        Chunked by rows only.
    y : dask.array.Array of shape (n,)
        The labels as -1/+1 (any real dtype), chunked like the rows of ``X``.

    Returns
    -------
    HtH : ndarray of shape (d + 1, d + 1)
    Ht1 : ndarray of shape (d + 1,)

    Raises
    ------
    ValueError
        If ``X`` holds NaN or infinity.

    Examples
    --------
    >>> X = da.from_array(np.array([[1.0], [2.0], [4.0]]), chunks=(2, 1))
    >>> HtH, Ht1 = gram_sums(X, da.from_array(np.array([1.0, -1.0, 1.0]), chunks=2))
    >>> HtH
    array([[21.,  7.],
           [ 7.,  3.]])
    >>> Ht1
    array([3., 1.])
    """
    d = X.shape[1]
    (), sums = _per_block(_gram_block, [X, y], (d + 1) ** 2 + d + 2, 0)
    sums = sums.compute()
    return _unpack_gram(sums, d)


def _unpack_gram(sums, d, check=True):
    if check and sums[-1] > 0:
        raise ValueError(
            f"X holds {int(sums[-1])} NaN or infinite entries; the LSVM needs finite data."
        )
    k = (d + 1) ** 2
    return sums[:k].reshape(d + 1, d + 1), sums[k : k + d + 1]


def _persist(*arrays):
    """Persist on the active client (the workers keep the blocks), or the default scheduler."""
    return dask.persist(*arrays)
