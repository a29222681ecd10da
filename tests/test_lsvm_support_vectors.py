"""LagrangianSVC's support_vectors_: the support rows of X, kept by the fit (the training
set is not); with the linear kernel and every point a support vector, a read-only view of
X rather than a second copy of it."""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from ksvm import LagrangianSVC
from ksvm.datasets import make_linear_large


@pytest.fixture(scope="module")
def data():
    return make_linear_large(3000, 4, seed=5)


@pytest.mark.parametrize("nu", [None, 1.0])
def test_linear_fit_keeps_the_support_rows_and_no_other_copy_of_X(data, nu):
    X, y = data
    clf = LagrangianSVC(nu=nu).fit(X, y)
    if nu is None:  # nu = 1/m: every point is inside the margin
        assert clf.support_.size == len(y)
    else:
        assert clf.support_.size < len(y)
    assert_array_equal(clf.support_vectors_, X[clf.support_])
    rows = [
        name
        for name, value in vars(clf).items()
        if isinstance(value, np.ndarray) and value.ndim == 2 and value.shape[0] > 1
    ]
    assert rows == ["support_vectors_"]


def test_every_point_a_support_vector_keeps_a_read_only_view_of_X(data):
    X, y = data
    clf = LagrangianSVC().fit(X, y)
    sv = clf.support_vectors_
    assert np.shares_memory(sv, X) and not sv.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        sv[0, 0] = 1.0
    assert X.flags.writeable  # the caller's array is untouched


@pytest.mark.parametrize(
    "params",
    [dict(nu=1.0), dict(kernel="rbf", nu=1.0), dict(kernel="poly", nu=1.0), dict(kernel="rbf")],
)
def test_support_vectors_are_a_copy_of_the_support_rows(data, params):
    X, y = data[0][:400].copy(), data[1][:400]
    clf = LagrangianSVC(**params).fit(X, y)
    sv = clf.support_vectors_
    assert_array_equal(sv, X[clf.support_])
    assert sv.flags.writeable and not np.shares_memory(sv, X)
    scores = clf.decision_function(X)
    X_before = X.copy()
    X[:] = 0.0  # the model no longer reads the training set
    assert_array_equal(clf.decision_function(X_before), scores)


@pytest.mark.parametrize("nu", [None, 1.0])
def test_pickling_keeps_the_support_vectors(data, nu):
    X, y = data
    clf = LagrangianSVC(nu=nu).fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    assert_array_equal(back.support_vectors_, X[clf.support_])
    assert_array_equal(back.predict(X), clf.predict(X))


def test_refit_forgets_the_old_support_vectors(data):
    X, y = data
    clf = LagrangianSVC(nu=1.0).fit(X, y)
    assert clf.support_vectors_.shape[0] == clf.support_.size
    clf.fit(X[:500], y[:500])
    assert_array_equal(clf.support_vectors_, X[:500][clf.support_])


def test_unfitted_has_no_support_vectors():
    clf = LagrangianSVC()
    assert not hasattr(clf, "support_vectors_")
    with pytest.raises(AttributeError, match="support_vectors_"):
        clf.support_vectors_


def test_a_dask_fit_sets_them_lazily_on_the_cluster_and_a_refit_in_memory_resets(data):
    da = pytest.importorskip("dask.array")
    X, y = data
    A, d = da.from_array(X, chunks=(1000, -1)), da.from_array(y, chunks=1000)
    clf = LagrangianSVC(nu=1.0).fit(A, d)
    assert isinstance(clf.support_vectors_, da.Array)
    assert_array_equal(clf.support_vectors_.compute(), X[clf.support_.compute()])
    clf.fit(X, y)
    assert isinstance(clf.support_vectors_, np.ndarray)
    assert_array_equal(clf.support_vectors_, X[clf.support_])
