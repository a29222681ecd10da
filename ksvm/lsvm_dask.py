"""The linear LSVM on a Dask array, under its public name: :mod:`ksvm.lsvm.dask`.

Importing this module imports Dask (``import ksvm`` does not).  The functions
are those of :mod:`ksvm.lsvm.dask`, where the method is explained.
"""

from .lsvm.dask import (  # noqa: F401 (predict: what LagrangianSVC calls)
    __all__,
    check_row_chunked,
    decision_function,
    gram_sums,
    lsvm_linear,
    lsvm_linear_newton,
    nystroem_features,
    predict,
)
