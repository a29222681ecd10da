"""Explicit Gaussian-kernel features (ksvm.features) against their defining identities,
scikit-learn's kernel_approximation, and the exact kernel LSVM."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from ksvm.datasets import make_checkerboard
from ksvm.features import NystroemFeatures, RandomFourierFeatures
from ksvm.kernels import rbf_kernel
from ksvm.lsvm import lsvm_kernel_newton, lsvm_linear

from .conftest import frozen


@parametrize_with_checks(
    [
        RandomFourierFeatures(),
        NystroemFeatures(n_components=5),
        NystroemFeatures(n_components=5, whiten=False),
    ]
)
def test_scikit_learn_compatible(estimator, check):
    check(estimator)


def points(n, seed=0, d=2):
    return np.random.default_rng(seed).random((n, d))


def rff_gram(X, D, gamma, seed):
    P = RandomFourierFeatures(n_components=D, gamma=gamma, random_state=seed).fit_transform(X)
    return P @ P.T


# ----------------------------------------------------------------- random Fourier features


def test_rff_equals_scikit_learn_rbfsampler_with_the_same_seed():
    """The docstring's promise: W and b are drawn as RBFSampler draws them."""
    X = points(200, d=3)
    ours = RandomFourierFeatures(n_components=300, gamma=2.5, random_state=7).fit(X)
    ref = RBFSampler(n_components=300, gamma=2.5, random_state=7).fit(X)
    assert_allclose(ours.random_weights_, ref.random_weights_, rtol=1e-15)
    assert_allclose(ours.transform(X), ref.transform(X), rtol=1e-12, atol=1e-14)


def test_rff_gram_approaches_the_gaussian_gram_as_D_grows():
    X = points(40)
    K = rbf_kernel(X, gamma=3.0)
    errors = [np.abs(rff_gram(X, D, 3.0, 0) - K).max() for D in (10, 100, 1000, 10000)]
    assert np.all(np.diff(errors) < 0), errors
    assert errors[-1] < 0.05


def test_rff_max_error_is_within_the_hoeffding_bound():
    """Each entry is the mean of D independent terms 2 cos(w'x + b) cos(w'z + b) in
    [-2, 2] with mean k(x, z): P(|error| >= t) <= 2 exp(-D t^2 / 8).  Over the
    N = n(n+1)/2 distinct entries, with probability at least 1 - delta every error is
    below t = sqrt(8 log(2 N / delta) / D)."""
    n, D, delta, gamma = 50, 20000, 1e-3, 5.0
    X = points(n, seed=1)
    P = RandomFourierFeatures(n_components=D, gamma=gamma, random_state=1).fit_transform(X)
    bound = np.sqrt(8.0 * np.log(2.0 * (n * (n + 1) / 2) / delta) / D)
    error = np.abs(P @ P.T - rbf_kernel(X, gamma=gamma)).max()
    assert error < bound  # bound ~0.092
    # ...and the bound is not vacuous: without the sqrt(2) (the classic slip) the
    # Gram is halved and the error is far above it.
    assert np.abs(P @ P.T / 2 - rbf_kernel(X, gamma=gamma)).max() > bound


def test_rff_mean_error_decreases_like_one_over_sqrt_D():
    X = points(30, seed=2)
    K = rbf_kernel(X, gamma=4.0)
    Ds = np.array([100, 300, 1000, 3000, 10000])
    mean_error = [
        np.mean([np.abs(rff_gram(X, D, 4.0, s) - K).mean() for s in range(4)]) for D in Ds
    ]
    slope = np.polyfit(np.log(Ds), np.log(mean_error), 1)[0]
    assert -0.6 <= slope <= -0.4, slope


def test_rff_mean_square_error_is_the_variance_of_one_term_over_D():
    """E (phi(x)'phi(z) - k)^2 = (1 - k^2 + k^4 / 2) / D (module docstring): 1/D where
    k is near 0, 1/(2D) on the diagonal where k = 1."""
    X = points(30, seed=3)
    K = rbf_kernel(X, gamma=20.0)
    D, seeds = 100, 1000
    sq = np.mean([(rff_gram(X, D, 20.0, s) - K) ** 2 for s in range(seeds)], axis=0)
    ratio = D * sq / (1.0 - K**2 + K**4 / 2)
    assert ratio.mean() == pytest.approx(1.0, abs=0.05)
    assert np.diag(ratio).mean() == pytest.approx(1.0, abs=0.05)
    assert D * np.diag(sq).mean() == pytest.approx(0.5, abs=0.025)


# ----------------------------------------------------------------------------- Nystroem


def test_nystroem_tiny_case_by_hand():
    """Landmarks 0 and 1 in one dimension, gamma = log 2: K_DD = [[1, 1/2], [1/2, 1]] and
    k_D(2) = (1/16, 1/2), so k~(2, 2) = k_D K_DD^{-1} k_D' = 19/64, while every pair
    with a landmark is exact: k~(2, 0) = k(2, 0) = 1/16."""
    nys = NystroemFeatures(n_components=2, gamma=np.log(2.0), random_state=0).fit([[0.0], [1.0]])
    phi2, phi0 = nys.transform([[2.0], [0.0]])
    assert phi2 @ phi2 == pytest.approx(19 / 64, rel=1e-12)
    assert phi2 @ phi0 == pytest.approx(1 / 16, rel=1e-12)
    assert nys.rank_ == 2


def test_nystroem_is_exact_on_the_landmarks():
    X = points(500, seed=4)
    nys = NystroemFeatures(n_components=80, gamma=20.0, random_state=4).fit(X)
    L = nys.component_indices_
    Phi = nys.transform(X)
    K = rbf_kernel(X, X[L], gamma=20.0)
    assert_allclose(Phi[L] @ Phi[L].T, K[L], atol=1e-8)
    assert_allclose(Phi @ Phi[L].T, K, atol=1e-8)  # any pair with a landmark is exact
    assert np.all(np.diag(rbf_kernel(X, gamma=20.0) - Phi @ Phi.T) >= -1e-10)  # K - Phi Phi' PSD


def test_nystroem_gram_is_the_pinv_formula():
    X = points(300, seed=5)
    nys = NystroemFeatures(n_components=60, gamma=10.0, random_state=5).fit(X)
    K_mD = rbf_kernel(X, nys.components_, gamma=10.0)
    expected = (
        K_mD @ np.linalg.pinv(rbf_kernel(nys.components_, gamma=10.0), hermitian=True) @ K_mD.T
    )
    Phi = nys.transform(X)
    assert_allclose(Phi @ Phi.T, expected, atol=1e-8)


def test_nystroem_with_every_point_a_landmark_is_the_kernel():
    X = points(120, seed=6)
    Phi = NystroemFeatures(n_components=120, gamma=15.0, random_state=6).fit_transform(X)
    assert_allclose(Phi @ Phi.T, rbf_kernel(X, gamma=15.0), atol=1e-8)


def test_nystroem_cuts_off_the_rounding_noise_of_a_singular_K_DD():
    """Duplicated landmarks make K_DD singular: the rank drops, the features stay bounded,
    and the approximation is still exact on the landmarks."""
    X = np.repeat(points(10, seed=7), 3, axis=0)  # each point three times
    nys = NystroemFeatures(n_components=30, gamma=5.0, random_state=0).fit(X)
    Phi = nys.transform(X)
    assert nys.rank_ == 10
    assert np.abs(Phi).max() < 10.0
    assert_allclose(Phi @ Phi.T, rbf_kernel(X, gamma=5.0), atol=1e-8)


def test_nystroem_matches_scikit_learn():
    """Same seed, same landmarks (the same permutation draw), and then the same features:
    both use the symmetric root U S^{-1/2} U'.  The Gram Phi Phi' does not depend on
    which root is used (Phi R for orthogonal R gives the same Gram), so compare it too,
    and with every point a landmark both give K itself."""
    X = points(400, seed=8)
    ours = NystroemFeatures(n_components=50, gamma=10.0, random_state=3).fit(X)
    ref = Nystroem(kernel="rbf", gamma=10.0, n_components=50, random_state=3).fit(X)
    assert_array_equal(ours.component_indices_, ref.component_indices_)
    P, R = ours.transform(X), ref.transform(X)
    assert_allclose(P @ P.T, R @ R.T, atol=1e-8)
    assert_allclose(P, R, atol=1e-7)
    small = X[:100]
    P = NystroemFeatures(n_components=100, gamma=10.0, random_state=0).fit_transform(small)
    R = Nystroem(kernel="rbf", gamma=10.0, n_components=100, random_state=1).fit_transform(small)
    assert_allclose(P @ P.T, R @ R.T, atol=1e-8)


def test_reduced_kernel_of_rsvm_is_the_rectangular_kernel():
    X = points(300, seed=9)
    rsvm = NystroemFeatures(n_components=40, gamma=7.0, whiten=False, random_state=9).fit(X)
    assert rsvm.normalization_ is None
    X_new = points(70, seed=10)
    assert_array_equal(
        rsvm.transform(X_new), rbf_kernel(X_new, X[rsvm.component_indices_], gamma=7.0)
    )


# ------------------------------------------------------------------- both transformers


TRANSFORMERS = [
    lambda **kw: RandomFourierFeatures(n_components=64, gamma=3.0, **kw),
    lambda **kw: NystroemFeatures(n_components=64, gamma=3.0, **kw),
    lambda **kw: NystroemFeatures(n_components=64, gamma=3.0, whiten=False, **kw),
]


@pytest.mark.parametrize("make", TRANSFORMERS, ids=["rff", "nystroem", "rsvm"])
def test_random_state_reproduces_and_changes_the_features(make):
    X = points(200, seed=11)
    a = make(random_state=5).fit_transform(X)
    assert_array_equal(a, make(random_state=5).fit_transform(X))
    assert_array_equal(a, make(random_state=np.random.RandomState(5)).fit_transform(X))
    assert not np.allclose(a, make(random_state=6).fit_transform(X))


@pytest.mark.parametrize("make", TRANSFORMERS, ids=["rff", "nystroem", "rsvm"])
def test_transform_by_blocks_is_invisible(make, monkeypatch):
    """Row i of the output depends on row i of X only.  Nystroem's features multiply the
    kernel row by N = K_DD^{+1/2}, which amplifies rounding in it (the distances are
    computed block by block) by up to ||N||: the tolerance scales with ||N|| (here about
    1e6, a nearly singular K_DD), and the features without N agree to rounding."""
    X = points(1000, seed=12)
    est = make(random_state=0).fit(X)
    N = getattr(est, "normalization_", None)
    atol = 1e-14 * (1.0 if N is None else np.linalg.norm(N, 2))
    whole = est.transform(X)  # one block of 1000 x 64 entries
    monkeypatch.setattr("ksvm.kernels._BLOCK_BYTES", 64 * 7 * 8)  # blocks of 7 rows (block_rows)
    by_blocks = est.transform(X)
    assert by_blocks.shape == (1000, 64) and by_blocks.dtype == np.float64
    assert_allclose(by_blocks, whole, rtol=1e-13, atol=atol)
    for i in (0, 6, 7, 999):
        assert_allclose(est.transform(X[i : i + 1])[0], whole[i], rtol=1e-13, atol=atol)


@pytest.mark.parametrize("make", TRANSFORMERS, ids=["rff", "nystroem", "rsvm"])
def test_inputs_are_not_modified(make):
    X = points(100, seed=13)
    X_ro = frozen(X)
    make(random_state=0).fit(X_ro).transform(X_ro)
    assert_array_equal(X_ro, X)


@pytest.mark.parametrize("cls", [RandomFourierFeatures, NystroemFeatures])
@pytest.mark.parametrize(
    "params, X, message",
    [
        ({"gamma": 0.0}, None, "gamma must be > 0"),
        ({"gamma": -1.0}, None, "gamma must be > 0"),
        ({"gamma": np.inf}, None, "gamma must be finite"),
        ({"n_components": 0}, None, "n_components must be an integer >= 1"),
        ({"n_components": 2.0}, None, "n_components must be an integer >= 1"),
        ({}, [[0.0, np.nan]] * 20, "Input X contains NaN"),
        ({}, [[0.0, np.inf]] * 20, "Input X contains infinity"),
        ({}, [1.0, 2.0], "Expected 2D array"),
    ],
)
def test_bad_input_to_fit(cls, params, X, message):
    X = points(20) if X is None else X
    with pytest.raises(ValueError, match=message):
        cls(**{"n_components": 5, **params}).fit(X)


@pytest.mark.parametrize("cls", [RandomFourierFeatures, NystroemFeatures])
def test_bad_input_to_transform(cls):
    est = cls(n_components=5, random_state=0).fit(points(20))
    with pytest.raises(ValueError, match=r"X has 3 features, but .* is expecting 2 features"):
        est.transform(points(4, d=3))
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.transform([[0.5, np.nan]])


def test_nystroem_refuses_more_landmarks_than_points():
    with pytest.raises(ValueError, match="n_components = 21 is larger than n_samples = 20"):
        NystroemFeatures(n_components=21).fit(points(20))


# ------------------------------------------------------------- LSVM on the features


def test_lsvm_on_features_is_liblinears_squared_hinge():
    """lsvm_linear on Phi solves (7) with A = Phi, which is LinearSVC's squared hinge
    with C = nu / 2 and the intercept penalised (intercept_scaling = 1)."""
    X, y = make_checkerboard(1000, seed=2)
    Phi = NystroemFeatures(n_components=40, gamma=30.0, random_state=0).fit_transform(X)
    nu = 1000.0 / len(y)  # large enough that the fixed point takes ~200 iterations
    r = lsvm_linear(Phi, y, nu, max_iter=5000, tol=1e-10)
    ref = LinearSVC(C=nu / 2, loss="squared_hinge", intercept_scaling=1, tol=1e-12, max_iter=100000)
    ref.fit(Phi, y)
    assert r.converged and r.n_iter > 100
    assert_allclose(r.w, ref.coef_[0], atol=1e-5)
    assert r.b == pytest.approx(ref.intercept_[0], abs=1e-5)


@pytest.fixture(scope="module")
def checkerboard_exact():
    """The exact Gaussian-kernel LSVM on 2000 checkerboard points, and its test accuracy."""
    X, y = make_checkerboard(2000, seed=0)
    X_test, y_test = make_checkerboard(10000, seed=1)
    gamma, nu = 100.0, 1000.0 / len(y)
    r = lsvm_kernel_newton(rbf_kernel(X, gamma=gamma), y, nu)
    accuracy = np.mean(
        np.where(rbf_kernel(X_test, X, gamma=gamma) @ (y * r.u) >= 0, 1, -1) == y_test
    )
    return X, y, X_test, y_test, gamma, nu, accuracy


@pytest.mark.parametrize(
    "transformer, slack",
    [
        (NystroemFeatures(n_components=300, gamma=100.0, random_state=0), 0.01),
        (RandomFourierFeatures(n_components=1000, gamma=100.0, random_state=0), 0.02),
    ],
    ids=["nystroem-300", "rff-1000"],
)
@pytest.mark.slow
def test_lsvm_on_features_is_as_accurate_as_the_exact_kernel(
    checkerboard_exact, transformer, slack
):
    X, y, X_test, y_test, _gamma, nu, exact = checkerboard_exact
    assert exact > 0.95
    Phi = transformer.fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        r = lsvm_linear(Phi, y, nu, max_iter=1000, tol=1e-5)
    scores = transformer.transform(X_test) @ r.w + r.b
    accuracy = np.mean(np.where(scores >= 0, 1, -1) == y_test)
    assert accuracy >= exact - slack, (accuracy, exact)
