"""The test run's own setting (tests/conftest.py)."""

import scipy.linalg  # noqa: F401  (scipy's OpenBLAS, loaded as the tests load it)
from threadpoolctl import threadpool_info


def test_the_unit_tests_use_one_blas_thread():
    """Every BLAS and OpenMP library loaded here (numpy's and scipy's OpenBLAS,
    scikit-learn's OpenMP) runs one thread, whatever the environment says."""
    libraries = threadpool_info()
    assert {lib["user_api"] for lib in libraries} >= {"blas"}
    assert [lib["filepath"] for lib in libraries if lib["num_threads"] != 1] == []
