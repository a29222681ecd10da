"""ksvm's two-class estimators inside scikit-learn's multiclass and calibration wrappers.

Every estimator of ksvm is a two-class classifier.  Given more than two classes it
refuses them with a ValueError that names the two wrappers which reduce the problem to
two-class ones, and inside those wrappers (and CalibratedClassifierCV, Pipeline,
GridSearchCV, clone, pickle) it behaves like any scikit-learn classifier.
"""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

import ksvm
from ksvm.kernels import rbf_kernel
from tests.test_contract import ESTIMATORS


@pytest.fixture(scope="module")
def digits():
    """The first 300 digits, pixels scaled to [0, 1]: 10 classes of about 30 points."""
    X, y = load_digits(return_X_y=True)
    return X[:300] / 16.0, y[:300]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_more_than_two_classes_are_refused_with_the_way_out(cls, digits):
    X, y = digits
    with pytest.raises(ValueError, match="got 10 classes") as error:
        cls().fit(X, y)
    assert "OneVsOneClassifier" in str(error.value)
    assert "OneVsRestClassifier" in str(error.value)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_the_tags_say_two_classes_and_the_wrappers_handle_ten(cls, digits):
    X, y = digits
    assert cls().__sklearn_tags__().classifier_tags.multi_class is False
    for wrapper in (OneVsOneClassifier, OneVsRestClassifier):
        model = wrapper(cls(gamma=0.1)).fit(X[:200], y[:200])
        assert_array_equal(model.classes_, np.arange(10))
        assert np.mean(model.predict(X[200:]) == y[200:]) > 0.8


def test_one_vs_one_of_soft_margin_svc_is_libsvm_one_vs_one(digits):
    """The 45 pairwise problems are libsvm's: the same decision values up to the sign
    (libsvm's positive class is the first of the pair), and with the votes' ties broken
    the same way (break_ties) the same predictions."""
    X, y = digits
    ours = OneVsOneClassifier(ksvm.SoftMarginSVC(C=10.0, gamma=0.1, tol=1e-8)).fit(X[:200], y[:200])
    svc = SVC(C=10.0, gamma=0.1, tol=1e-8, decision_function_shape="ovo").fit(X[:200], y[:200])
    pairwise = np.column_stack([e.decision_function(X[200:]) for e in ours.estimators_])
    assert_allclose(pairwise, -svc.decision_function(X[200:]), atol=1e-5)
    svc_ties = SVC(C=10.0, gamma=0.1, tol=1e-8, break_ties=True).fit(X[:200], y[:200])
    assert_array_equal(ours.predict(X[200:]), svc_ties.predict(X[200:]))


@pytest.mark.parametrize("wrapper", [OneVsOneClassifier, OneVsRestClassifier])
def test_a_precomputed_kernel_is_sliced_by_the_wrappers(wrapper, digits):
    X, y = digits
    K = rbf_kernel(X, gamma=0.1)
    gram = wrapper(ksvm.SoftMarginSVC(kernel="precomputed", C=10.0)).fit(K[:200, :200], y[:200])
    points = wrapper(ksvm.SoftMarginSVC(gamma=0.1, C=10.0)).fit(X[:200], y[:200])
    assert_array_equal(gram.predict(K[200:, :200]), points.predict(X[200:]))


def test_predict_proba_is_there_only_where_the_estimator_has_it():
    assert hasattr(ksvm.KernelLogisticRegression(), "predict_proba")
    assert not hasattr(ksvm.SoftMarginSVC(), "predict_proba")
    assert hasattr(OneVsRestClassifier(ksvm.KernelLogisticRegression()), "predict_proba")
    assert not hasattr(OneVsRestClassifier(ksvm.SoftMarginSVC()), "predict_proba")
    assert hasattr(CalibratedClassifierCV(ksvm.SoftMarginSVC()), "predict_proba")


def test_calibration_clone_pickle_and_search_with_string_labels(digits):
    X, y = digits
    labels = np.where(y % 2 == 1, "odd", "even")
    calibrated = CalibratedClassifierCV(ksvm.SoftMarginSVC(gamma=0.1), method="sigmoid", cv=3)
    proba = calibrated.fit(X[:200], labels[:200]).predict_proba(X[200:])
    assert_array_equal(calibrated.classes_, ["even", "odd"])
    assert_allclose(proba.sum(axis=1), 1.0) and np.all((proba > 0) & (proba < 1))
    model = ksvm.SoftMarginSVC(gamma=0.1).fit(X[:200], labels[:200])
    again = pickle.loads(pickle.dumps(model))
    assert_array_equal(again.predict(X[200:]), model.predict(X[200:]))
    fresh = clone(model).set_params(C=10.0)
    assert fresh.C == 10.0 and not hasattr(fresh, "classes_")
    search = GridSearchCV(
        make_pipeline(MinMaxScaler(), OneVsOneClassifier(ksvm.SoftMarginSVC())),
        {"onevsoneclassifier__estimator__C": [1.0, 10.0]},
        cv=2,
    ).fit(X, y)
    assert search.best_params_["onevsoneclassifier__estimator__C"] in (1.0, 10.0)
