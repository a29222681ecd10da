import os

import numpy as np
import pytest
from hypothesis import settings
from threadpoolctl import threadpool_limits

# Locally, hypothesis explores new random examples on every run (that is how it
# finds cases like the all-ones matrix of test_mercer).  In CI the examples are
# fixed, so that a run is reproducible and a rare draw cannot block a landing.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_configure(config):
    """The unit tests and doctests use one BLAS thread.  The suite runs on every core
    (pytest-xdist, one worker per core): a worker's BLAS threads would compete with the
    other workers for the same cores, and OpenBLAS's threads, which spin while they
    wait, then make small products tens of times slower.  The chapters run in kernels
    of their own, under the environment's BLAS setting (CI varies it, see .ci/run).
    A limit reaches only the libraries loaded when it is set: scipy brings its own
    OpenBLAS and scikit-learn its OpenMP, so both are loaded first.

    Where the environment sets no BLAS threads and the run has more than one worker,
    the chapters' kernels get one thread each, for the same reason: two workers whose
    OpenBLAS each start a thread per core made some chapter cells twenty times slower."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers and int(workers) > 1:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
            os.environ.setdefault(name, "1")
    import scipy.linalg  # noqa: F401
    import sklearn.svm  # noqa: F401

    threadpool_limits(limits=1)


def pytest_collection_modifyitems(config, items):
    """The edit-test loop, `pytest -m "not slow"`, leaves out what takes minutes in all:
    the chapters and the assignment solutions under nbval, and the grader's tests,
    which run notebooks in fresh kernels.  (Single slow unit tests carry the mark.)"""
    for item in items:
        path = str(item.path)
        if path.endswith(".ipynb") or "test_assignments" in path or "test_grader" in path:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


def frozen(a):
    """A read-only float64 copy: any in-place write by the code under test raises."""
    a = np.array(a, dtype=np.float64)
    a.flags.writeable = False
    return a


#: The two scikit-learn estimator checks that a kernel method given ``kernel='precomputed'``
#: must fail: both feed it a matrix that is not a valid (PSD) Gram matrix.
PRECOMPUTED_XFAIL = {
    "check_positive_only_tag_during_fit": "it passes an indefinite matrix as a precomputed kernel",
    "check_estimators_dtypes": "it truncates a precomputed Gram matrix to integers (not PSD)",
}
