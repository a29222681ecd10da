"""The shared estimator machinery: kernel names, gamma, labels, and KernelMeanClassifier."""

import pickle
import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks

import ksvm
from ksvm import (
    GradientAscentSVC,
    KernelLogisticRegression,
    KernelMeanClassifier,
    LagrangianSVC,
    RLSClassifier,
    SoftMarginSVC,
    kernels,
    polynomial_map,
)
from ksvm._validation import encode_binary_labels
from ksvm.base import KERNELS, make_kernel, resolve_gamma
from ksvm.datasets import make_noisy_2d, make_separable_2d

from .conftest import frozen


@parametrize_with_checks(
    [
        KernelMeanClassifier(),
        KernelMeanClassifier(kernel="linear"),
        KernelMeanClassifier(kernel="poly", degree=2, gamma="auto"),
        KernelMeanClassifier(kernel="precomputed"),
    ]
)
def test_scikit_learn_compatible(estimator, check):
    check(estimator)


# --- make_kernel and resolve_gamma -------------------------------------------------------


@pytest.mark.parametrize(
    "name, direct",
    [
        ("linear", lambda X, Y: kernels.linear_kernel(X, Y)),
        ("poly", lambda X, Y: kernels.polynomial_kernel(X, Y, degree=4, gamma=0.5, coef0=2.0)),
        ("rbf", lambda X, Y: kernels.rbf_kernel(X, Y, gamma=0.5)),
        ("exponential", lambda X, Y: kernels.exponential_kernel(X, Y, gamma=0.5)),
        ("sigmoid", lambda X, Y: kernels.sigmoid_kernel(X, Y, gamma=0.5, coef0=2.0)),
    ],
)
def test_make_kernel_names_the_kernels(name, direct, rng):
    X, Y = rng.standard_normal((5, 3)), rng.standard_normal((4, 3))
    k = make_kernel(name, gamma=0.5, degree=4, coef0=2.0)
    if name == "rbf":  # the fast Gaussian block: rbf_kernel to rounding (see test_kernels.py)
        assert_allclose(k(X, Y), direct(X, Y), rtol=0, atol=1e-14)
    else:
        assert_array_equal(k(X, Y), direct(X, Y))
    assert_array_equal(k(X), direct(X, X))


def test_make_kernel_checks_only_the_parameters_a_kernel_uses():
    make_kernel("linear", gamma=-1.0, degree=0)  # linear uses none of them
    make_kernel("rbf", degree=0.5)  # rbf ignores degree
    with pytest.raises(ValueError, match="gamma must be > 0"):
        make_kernel("rbf", gamma=-1.0)
    with pytest.raises(ValueError, match="degree must be an integer"):
        make_kernel("poly", degree=0)
    with pytest.raises(ValueError, match="coef0 must be finite"):
        make_kernel("sigmoid", coef0=np.nan)


def test_make_kernel_rejects_unknown_names():
    with pytest.raises(ValueError, match="kernel must be one of 'linear', 'poly'"):
        make_kernel("gaussian")
    with pytest.raises(ValueError, match="kernel must be one of"):
        make_kernel(3)
    assert set(KERNELS) == {"linear", "poly", "rbf", "exponential", "sigmoid"}


def test_callable_kernel_output_is_checked(rng):
    X = rng.standard_normal((4, 2))
    assert_allclose(make_kernel(lambda A, B: A @ B.T)(X), X @ X.T)
    with pytest.raises(ValueError, match=r"shape \(4,\).*\(4, 4\)"):
        make_kernel(lambda A, B: A[:, 0])(X)
    with pytest.raises(ValueError, match="NaN or infinite"):
        make_kernel(lambda A, B: np.full((len(A), len(B)), np.nan))(X)


def test_resolve_gamma():
    X = np.array([[0.0, 2.0], [2.0, 0.0]])  # variance 1 over all entries
    assert resolve_gamma("scale", X) == pytest.approx(0.5)
    assert resolve_gamma("auto", X) == 0.5
    assert resolve_gamma("scale", np.ones((3, 2))) == 1.0  # constant data
    assert resolve_gamma(2, X) == 2.0
    for bad in ["large", 0, -1.0, np.inf]:
        with pytest.raises(ValueError, match="gamma"):
            resolve_gamma(bad, X)


# --- two-class labels --------------------------------------------------------------------


@pytest.mark.parametrize(
    "y, classes",
    [
        ([3, 7, 7, 3], [3, 7]),
        (["no", "yes", "yes"], ["no", "yes"]),
        ([-1, 1, 1], [-1, 1]),
        ([0.0, 1.0, 0.0], [0.0, 1.0]),
        ([False, True], [False, True]),
    ],
)
def test_any_two_labels_map_to_plus_minus_one_and_back(y, classes):
    y_pm, found = encode_binary_labels(y)
    assert_array_equal(found, classes)
    assert set(y_pm.tolist()) == {-1.0, 1.0}
    assert_array_equal(found[(y_pm > 0).astype(int)], np.asarray(y))


@pytest.mark.parametrize(
    "y, message",
    [
        ([1, 1, 1], "exactly two classes, got 1 class"),
        ([1, 2, 3], "exactly two classes, got 3 classes"),
        ([0.5, 1.5, 2.5], "Unknown label type"),
        ([[0, 1], [1, 0]], "one-dimensional"),
        ([], "empty"),
    ],
)
def test_bad_labels(y, message):
    with pytest.raises(ValueError, match=message):
        encode_binary_labels(y)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, bool])
@pytest.mark.parametrize("n_classes", [1, 2, 3])
def test_integer_labels_are_read_as_scikit_learn_reads_them(dtype, n_classes):
    # Integer and boolean labels skip type_of_target, which reads them as the encoding
    # does: 'binary' up to two values (accepted if two), 'multiclass' above.
    from sklearn.utils.multiclass import type_of_target

    if dtype is bool and n_classes == 3:
        return
    y = np.random.default_rng(n_classes).integers(0, n_classes, 50).astype(dtype)
    classes = np.unique(y)
    assert classes.size == n_classes
    if n_classes == 2:
        assert type_of_target(y) == "binary"
        y_pm, found = encode_binary_labels(y)
        assert_array_equal(found, classes)
        assert found.dtype == y.dtype
        assert_array_equal(y_pm, np.where(y == classes[1], 1.0, -1.0))
        return
    expected = {1: ("binary", "got 1 class"), 3: ("multiclass", "target is multiclass")}
    y_type, message = expected[n_classes]
    assert type_of_target(y) == y_type
    with pytest.raises(ValueError, match=message):
        encode_binary_labels(y)


# --- KernelMeanClassifier against a brute-force computation in feature space -----------------


def test_kernel_mean_classifier_equals_explicit_feature_space_means(rng):
    X, y = make_noisy_2d(80, seed=1)
    X_test = rng.uniform(-1, 1, size=(40, 2))
    clf = KernelMeanClassifier(kernel="poly", degree=3, gamma=1.0, coef0=1.0).fit(X, y)
    Phi, Phi_test = (
        polynomial_map.polynomial_feature_map(X, 3),
        polynomial_map.polynomial_feature_map(X_test, 3),
    )
    mu_pos, mu_neg = Phi[y == 1].mean(0), Phi[y == -1].mean(0)
    expected = np.array([np.sum((p - mu_neg) ** 2) - np.sum((p - mu_pos) ** 2) for p in Phi_test])
    assert_allclose(clf.decision_function(X_test), expected, rtol=1e-10, atol=1e-10)
    assert_array_equal(clf.predict(X_test), np.where(expected > 0, 1, -1))


def test_precomputed_kernel_gives_the_same_classifier(rng):
    X, y = make_noisy_2d(60, seed=2)
    X_test = rng.uniform(-1, 1, size=(25, 2))
    direct = KernelMeanClassifier(kernel="rbf", gamma=2.0).fit(X, y)
    pre = KernelMeanClassifier(kernel="precomputed").fit(kernels.rbf_kernel(X, gamma=2.0), y)
    assert_allclose(
        pre.decision_function(kernels.rbf_kernel(X_test, X, gamma=2.0)),
        direct.decision_function(X_test),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="one column per training sample"):
        pre.decision_function(np.ones((3, 5)))
    with pytest.raises(ValueError, match="must be square"):
        KernelMeanClassifier(kernel="precomputed").fit(np.ones((60, 3)), y)


def test_callable_kernel_estimator(rng):
    X, y = make_noisy_2d(50, seed=3)
    by_name = KernelMeanClassifier(kernel="linear").fit(X, y)
    by_callable = KernelMeanClassifier(kernel=lambda A, B: A @ B.T).fit(X, y)
    assert_allclose(by_callable.decision_function(X), by_name.decision_function(X), rtol=1e-12)


def test_estimator_does_not_modify_its_inputs():
    X, y = make_noisy_2d(30, seed=4)
    X_ro, y_ro = frozen(X), y.copy()
    y_ro.flags.writeable = False
    clf = KernelMeanClassifier().fit(X_ro, y_ro)
    clf.predict(X_ro)
    assert_array_equal(X_ro, X)
    assert_array_equal(y_ro, y)


def test_estimator_bad_hyper_parameters_fail_at_fit():
    X, y = make_noisy_2d(30, seed=5)
    for params, message in [
        ({"gamma": -1.0}, "gamma must be > 0"),
        ({"gamma": "wide"}, "gamma must be 'scale', 'auto'"),
        ({"kernel": "poly", "degree": 0}, "degree must be an integer"),
        ({"kernel": "cosine"}, "kernel must be one of"),
    ]:
        with pytest.raises(ValueError, match=message):
            KernelMeanClassifier(**params).fit(X, y)


# --- a fitted model keeps its support vectors, not the training set ----------------------


def _pickled_bytes(n, seed=0):
    """SoftMarginSVC (Gaussian kernel) on n well-separated points: few support vectors."""
    X, y = make_separable_2d(n, margin=1.0, seed=seed)
    model = SoftMarginSVC(C=10.0, gamma=0.5).fit(X, y)
    return X, model, len(pickle.dumps(model))


def test_a_pickled_model_grows_with_its_support_vectors_not_with_n():
    X, model, size = _pickled_bytes(2000)
    n_sv = len(model.support_)
    assert n_sv < 60
    assert size < X.nbytes / 10
    per_sv = X.shape[1] * 8 + 8 + 8  # a row of support_vectors_, its index and dual_coef_
    _, small, small_size = _pickled_bytes(200)
    # what is left once the support vectors are paid for does not depend on n
    assert abs((size - n_sv * per_sv) - (small_size - len(small.support_) * per_sv)) < 500


@pytest.mark.parametrize("cls", [SoftMarginSVC, LagrangianSVC, RLSClassifier, KernelMeanClassifier])
def test_no_fitted_attribute_but_the_support_vectors_holds_training_rows(cls):
    X, y = make_noisy_2d(150, seed=3)
    model = cls(kernel="rbf", gamma=2.0).fit(X, y)
    rows = sorted(
        name
        for name, value in vars(model).items()
        if isinstance(value, np.ndarray) and value.ndim == 2 and value.shape[1] == X.shape[1]
    )
    assert rows == ["support_vectors_"]
    assert not hasattr(model, "X_fit_")
    assert_array_equal(model.support_vectors_, X[model.support_])


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_prediction_reads_the_support_vectors_alone(kernel, rng):
    X, y = make_noisy_2d(120, seed=4)
    X_test = rng.uniform(-1, 1, size=(30, 2))
    model = SoftMarginSVC(kernel=kernel, gamma=1.0).fit(X, y)
    scores = model.decision_function(X_test)
    X[:] = np.nan  # the training set is gone: the model never looks at it again
    assert_array_equal(model.decision_function(X_test), scores)
    k = make_kernel(kernel, gamma=1.0, degree=3, coef0=1.0)
    expected = k(X_test, model.support_vectors_) @ model.dual_coef_[0] + model.intercept_[0]
    assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)


def test_fit_is_the_base_class_s_and_every_estimator_solves_through_a_hook():
    from ksvm.base import BaseKernelClassifier

    for cls in [
        SoftMarginSVC,
        LagrangianSVC,
        RLSClassifier,
        KernelMeanClassifier,
        KernelLogisticRegression,
        GradientAscentSVC,
    ]:
        assert cls.fit is BaseKernelClassifier.fit
        assert "_solve" in vars(cls)


# --- one set of validators, each (value, name), for estimators, functions and transformers ----


def test_every_single_value_validator_takes_value_and_name():
    import inspect

    from ksvm import _validation

    single = [
        name
        for name in _validation.__all__
        if name.startswith("check_")
        and name not in ("check_pair", "check_gram_labels", "check_matrix_labels")
    ]
    for name in single:
        parameters = list(inspect.signature(getattr(_validation, name)).parameters)
        assert parameters[1] == "name", name
    assert _validation.check_C(2, "C") == 2.0
    with pytest.raises(ValueError, match="lam must be > 0"):
        _validation.check_C(-1.0, "lam")


BAD_ARGUMENTS = {
    "primal_qp tol": (
        lambda: ksvm.primal.primal_qp([[0.0], [1.0]], [0, 1], tol=-1.0),
        "tol must be > 0",
    ),
    "primal_hinge max_iter": (
        lambda: ksvm.primal.primal_hinge([[0.0], [1.0]], [0, 1], max_iter=0),
        "max_iter must be an integer >= 1",
    ),
    "labels per row": (
        lambda: ksvm.primal.is_linearly_separable([[0.0], [1.0]], [0, 1, 1]),
        "X has 2 rows but y has 3 labels",
    ),
    "nonnegative": (
        lambda: ksvm.ascent.weighted_ascent(np.eye(2), [0, 1], nonnegative="abs"),
        "nonnegative must be one of 'clip', 'none'",
    ),
    "reading": (
        lambda: ksvm.class_statistics.class_biases(np.eye(2), [0, 1], [1.0, 1.0], reading="edge"),
        "reading must be one of 'margin', 'boundary'",
    ),
    "rlsc lam": (lambda: ksvm.rlsc.rlsc_direct(np.eye(2), [0, 1], lam=0.0), "lam must be > 0"),
    "rlr lam": (lambda: ksvm.rlr.rlr_newton(np.eye(2), [0, 1], lam=-1.0), "lam must be > 0"),
    "whiten": (
        lambda: ksvm.features.NystroemFeatures(whiten="yes").fit(np.eye(3)),
        "whiten must be True or False",
    ),
    "n_components": (
        lambda: ksvm.features.RandomFourierFeatures(n_components=0).fit(np.eye(3)),
        "n_components must be an integer >= 1",
    ),
    "gamma": (
        lambda: ksvm.features.RandomFourierFeatures(gamma="wide").fit(np.eye(3)),
        "gamma must be 'scale', 'auto'",
    ),
}


@pytest.mark.parametrize("call, message", BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS)
def test_functions_and_transformers_check_their_arguments_with_the_same_validators(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_transformers_check_their_parameters_before_the_data():
    with pytest.raises(ValueError, match="n_components"):
        ksvm.features.RandomFourierFeatures(n_components=-1).fit("not an array")


@pytest.mark.parametrize(
    "estimator",
    [
        SoftMarginSVC(gamma=2.0),
        SoftMarginSVC(kernel="poly", degree=2, C=0.1),
        LagrangianSVC(kernel="rbf", gamma=2.0),
    ],
    ids=["SoftMarginSVC rbf", "SoftMarginSVC poly", "LagrangianSVC rbf"],
)
def test_scores_of_many_points_are_formed_a_block_at_a_time(estimator):
    """Beyond 16 MB of kernel values the test block is formed a block of rows at a time
    (20,000 points against 16,000 support vectors would take 2.6 GB at once); the scores
    are those of the whole block."""
    X, y = make_noisy_2d(300, flip=0.1, seed=4)
    model = estimator.fit(X, y)
    support = model.support_vectors_
    step = kernels.block_rows(len(support))
    X_new = np.random.default_rng(0).uniform(-2, 2, size=(6 * step + 7, 2))
    whole = (
        model._kernel_function()(model._kernel_points(X_new), model._kernel_points(support))
        @ model.dual_coef_[0]
        + model.intercept_[0]
    )
    tracemalloc.start()
    scores = model.decision_function(X_new)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert_allclose(scores, whole, rtol=1e-13, atol=1e-13)
    assert peak < 0.4 * 8 * len(X_new) * len(support)  # never the whole block at once
