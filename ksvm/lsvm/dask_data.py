"""The data sets of :mod:`ksvm.datasets` as Dask arrays chunked by rows, and on disk in Zarr.

What the Dask LSVM (:mod:`ksvm.lsvm.dask`) reads: :func:`make_chunked` builds a lazy
Dask array whose every chunk is drawn on its own, where it is needed, by the numpy
chunk functions of :mod:`ksvm.datasets` (``linear_large_chunk``,
``checkerboard_chunk``); :func:`write_zarr` stores such arrays chunk by chunk in a
Zarr group, and :func:`read_zarr` opens one again as lazy Dask arrays, so that the data
never has to fit in memory.

Importing this module imports Dask (and Zarr): :mod:`ksvm` and :mod:`ksvm.datasets`
do not.
"""

import dask
import dask.array as da
import numpy as np
import zarr

from .._validation import check_integer
from ..datasets import _check_chunk_seed, checkerboard_chunk, linear_large_chunk

__all__ = ["make_chunked", "read_zarr", "write_zarr"]

#: The chunk function of each kind, a constant: a tuple, so that no caller can change it
_CHUNKED = (("linear_large", linear_large_chunk), ("checkerboard", checkerboard_chunk))


def make_chunked(kind, n_samples, *, chunk_size=1_000_000, seed=0, **options):
    """A lazy Dask array of seeded chunks: ``X`` chunked by rows and ``y`` alike.

    Each chunk is drawn where it is needed (on a worker, or while it is
    written to disk) by :func:`ksvm.datasets.linear_large_chunk` or
    :func:`ksvm.datasets.checkerboard_chunk`.

    Parameters
    ----------
    kind : {'linear_large', 'checkerboard'}
    n_samples : int >= 1
    chunk_size : int >= 1, default=1_000_000
    seed : int >= 0, default=0
    **options
        ``n_features`` and ``noise`` (linear_large), ``board`` (checkerboard).

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features), float64
    y : dask.array.Array of shape (n_samples,), int64, with the row chunks of ``X``

    Raises
    ------
    ValueError
        For an unknown ``kind`` or the arguments' errors of the chunk functions.

    Examples
    --------
    >>> X, y = make_chunked("linear_large", 2500, chunk_size=1000, seed=0, n_features=3)
    >>> X.chunks
    ((1000, 1000, 500), (3,))
    >>> bool(np.array_equal(X.blocks[2].compute(), linear_large_chunk(2, 1000, 2500, 3)[0]))
    True
    """
    chunk_functions = dict(_CHUNKED)
    if kind not in chunk_functions:
        raise ValueError(f"kind must be one of {sorted(chunk_functions)}, got {kind!r}.")
    chunk_function = chunk_functions[kind]
    n_samples = check_integer(n_samples, "n_samples", 1)
    chunk_size = check_integer(chunk_size, "chunk_size", 1)
    seed = _check_chunk_seed(seed)
    X0, _y0 = chunk_function(0, 1, 1, seed=seed, **options)  # checks the options, gives n
    n_features = X0.shape[1]
    draw = dask.delayed(chunk_function, pure=True, nout=2)
    Xs, ys = [], []
    for k, start in enumerate(range(0, n_samples, chunk_size)):
        rows = min(chunk_size, n_samples - start)
        Xk, yk = draw(k, chunk_size, n_samples, seed=seed, **options)
        Xs.append(da.from_delayed(Xk, (rows, n_features), dtype=np.float64))
        ys.append(da.from_delayed(yk, (rows,), dtype=np.int64))
    return da.concatenate(Xs), da.concatenate(ys)


def _compute(collection, progress):
    """Compute on the active Dask client or scheduler, with a progress bar if asked."""
    if not progress:
        return dask.compute(collection)[0]
    try:
        import distributed

        client = distributed.get_client()
    except (ImportError, ValueError):
        client = None
    if client is None:
        from dask.diagnostics import ProgressBar

        with ProgressBar():
            return dask.compute(collection)[0]
    futures = client.compute(collection)
    distributed.progress(futures)
    return client.gather(futures)


def write_zarr(path, X, y, *, attributes=None, label_dtype=np.int8, progress=False):
    """Write ``X`` and ``y`` (Dask arrays chunked by rows) to a Zarr group at ``path``.

    The arrays ``X`` and ``y`` of the group keep the row chunks of ``X``
    (uncompressed: random floats do not compress); the labels are stored in
    ``label_dtype`` (one byte a point by default).  ``attributes`` (JSON values,
    e.g. the generator's arguments) are stored with ``complete = True`` once every
    chunk is written, so an interrupted write is never taken for a finished one
    (:func:`read_zarr` with ``expect``).  Chunks are written in parallel by the
    active Dask scheduler, a few at a time: the data never has to fit in memory.

    Parameters
    ----------
    path : str or os.PathLike
        A directory; an existing group there is replaced.
    X : dask.array.Array of shape (m, n)
    y : dask.array.Array of shape (m,)
        With the row chunks of ``X``; labels in {-1, +1} (or any values that fit
        ``label_dtype``).
    attributes : dict or None
    label_dtype : numpy dtype, default=int8
    progress : bool, default=False
        Show a progress bar while the chunks are written (Dask's, of the active
        ``distributed`` client or of the default scheduler).

    Returns
    -------
    path : str

    Raises
    ------
    ValueError
        If the row chunks of ``X`` are uneven except for the last (Zarr's chunks
        are regular), or ``y`` is not aligned with ``X``.

    Examples
    --------
    >>> import tempfile, os
    >>> X, y = make_chunked("checkerboard", 250, chunk_size=100, seed=0)
    >>> path = write_zarr(os.path.join(tempfile.mkdtemp(), "cb.zarr"), X, y, attributes={"seed": 0})
    >>> X2, y2, attrs = read_zarr(path, expect={"seed": 0})
    >>> X2.chunks[0], bool((y2.compute() == y.compute()).all()), attrs["complete"]
    ((100, 100, 50), True, True)
    """
    rows = X.chunks[0]
    if len(X.chunks[1]) != 1 or len(set(rows[:-1])) > 1 or rows[-1] > rows[0]:
        raise ValueError(
            f"X must be chunked by rows in equal chunks (the last may be shorter), got "
            f"{X.chunks}; rechunk it, e.g. X.rechunk({{0: {rows[0]}, 1: -1}})."
        )
    if y.shape != (X.shape[0],) or y.chunks[0] != rows:
        raise ValueError(f"y must have the row chunks of X {rows}, got {y.chunks}.")
    group = zarr.open_group(str(path), mode="w")
    zX = group.create_array(
        "X", shape=X.shape, chunks=(rows[0], X.shape[1]), dtype=np.float64, compressors=None
    )
    zy = group.create_array(
        "y", shape=y.shape, chunks=(rows[0],), dtype=label_dtype, compressors=None
    )
    group.attrs.update({**(attributes or {}), "complete": False})
    _compute(da.store([X, y.astype(label_dtype)], [zX, zy], lock=False, compute=False), progress)
    group.attrs["complete"] = True
    return str(path)


def read_zarr(path, *, expect=None):
    """Open a Zarr group written by :func:`write_zarr` as lazy Dask arrays.

    Parameters
    ----------
    path : str or os.PathLike
    expect : dict or None
        Attributes the group must have (e.g. the generator's seed and size);
        a mismatch, a missing group or an unfinished write raises ``ValueError``
        (so a caller can write the data again).

    Returns
    -------
    X : dask.array.Array of shape (m, n), chunked by rows as stored
    y : dask.array.Array of shape (m,), labels as stored
    attributes : dict

    Raises
    ------
    ValueError
        As said under ``expect``.

    Examples
    --------
    See :func:`write_zarr`.
    """
    try:
        group = zarr.open_group(str(path), mode="r")
        attributes = dict(group.attrs)
        zX, zy = group["X"], group["y"]
    except (FileNotFoundError, KeyError) as exc:
        raise ValueError(f"No Zarr group with arrays X and y at {path}: {exc}") from exc
    if not attributes.get("complete"):
        raise ValueError(f"The Zarr group at {path} was not written to the end; write it again.")
    wrong = {k: (attributes.get(k), v) for k, v in (expect or {}).items() if attributes.get(k) != v}
    if wrong:
        raise ValueError(f"The Zarr group at {path} differs from what was expected: {wrong}.")
    return da.from_zarr(zX), da.from_zarr(zy), attributes
