"""ksvm.datasets: shapes, labels, seeds, the promised properties, bad input."""

import ast
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.svm import SVC

from ksvm import datasets as ds
from ksvm.primal import is_linearly_separable

GENERATORS = {
    "cocianu_state": lambda seed: ds.make_cocianu_state(6, 7, seed=seed),
    "checkerboard": lambda seed: ds.make_checkerboard(50, seed=seed),
    "separable_2d": lambda seed: ds.make_separable_2d(20, seed=seed),
    "noisy_2d": lambda seed: ds.make_noisy_2d(30, seed=seed),
    "linear_large": lambda seed: ds.make_linear_large(100, 4, chunk_size=7, seed=seed),
}


@pytest.mark.parametrize("name", GENERATORS)
def test_generators_are_seeded_and_well_typed(name):
    X1, y1 = GENERATORS[name](0)
    X2, y2 = GENERATORS[name](0)
    X3, _ = GENERATORS[name](1)
    assert_array_equal(X1, X2)
    assert_array_equal(y1, y2)
    assert not np.array_equal(X1, X3)
    assert X1.dtype == np.float64 and X1.ndim == 2 and X1.shape[0] == y1.shape[0]
    assert y1.dtype == np.int64 and set(np.unique(y1)) <= {-1, 1}


def test_generator_objects_are_accepted_as_seeds():
    X1, _ = ds.make_checkerboard(10, seed=np.random.default_rng(5))
    X2, _ = ds.make_checkerboard(10, seed=5)
    assert_array_equal(X1, X2)


def test_cocianu_state_parameters_as_printed():
    (mu1, mu2), (S1, S2) = ds.COCIANU_STATE_MEANS, ds.COCIANU_STATE_COVARIANCES
    d = mu1 - mu2
    mahalanobis = d @ np.linalg.solve(S1 + S2, d)
    assert mahalanobis == pytest.approx(12.3844, rel=5e-3)  # the paper's value; ours is 12.417


def test_cocianu_state_sample_moments_and_order():
    X, y = ds.make_cocianu_state(3000, 4000, seed=0)
    assert_array_equal(y[:3000], 1)
    assert_array_equal(y[3000:], -1)
    for cls, mu, S in [(1, 0, 0), (-1, 1, 1)]:
        Xc = X[y == cls]
        assert np.allclose(Xc.mean(0), ds.COCIANU_STATE_MEANS[mu], atol=0.02)
        assert np.allclose(np.cov(Xc.T), ds.COCIANU_STATE_COVARIANCES[S], atol=0.01)


def test_cocianu_state_redraws_until_accepted():
    for seed in range(5):
        X, y = ds.make_cocianu_state(60, 70, accept=is_linearly_separable, seed=seed)
        assert is_linearly_separable(X, y)
        # independently: a hard-margin linear SVM classifies every point correctly
        assert SVC(kernel="linear", C=1e8).fit(X, y).score(X, y) == 1.0
    with pytest.raises(
        ValueError, match="No sample of 2000 \\+ 2000 points passed is_linearly_separable in 2"
    ):
        ds.make_cocianu_state(2000, 2000, accept=is_linearly_separable, max_tries=2, seed=0)


def test_cocianu_state_accepts_the_first_draw_it_is_shown():
    """The sample returned is the first draw ``accept`` takes, from the one stream of the seed."""
    seen = []

    def third(X, y):
        seen.append(X.copy())
        return len(seen) == 3

    X, _y = ds.make_cocianu_state(6, 7, accept=third, seed=4)
    rng = np.random.default_rng(4)
    draws = [ds.make_cocianu_state(6, 7, seed=rng)[0] for _ in range(3)]
    for a, b in zip(seen, draws, strict=True):
        assert_array_equal(a, b)
    assert_array_equal(X, draws[2])
    assert_array_equal(ds.make_cocianu_state(6, 7, seed=4)[0], draws[0])


def test_the_data_sets_import_no_solver():
    """Of ksvm, datasets imports the input checks and nothing else, in any function."""
    modules = set()
    for node in ast.walk(ast.parse(Path(ds.__file__).read_text())):
        if (
            isinstance(node, ast.ImportFrom) and node.level
        ):  # from .module import ..., from . import module
            modules |= {node.module} if node.module else {a.name for a in node.names}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = (
                [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            )
            modules |= {name.removeprefix("ksvm.") for name in names if name.startswith("ksvm.")}
    assert modules == {"_validation"}


def test_is_linearly_separable_hand_cases():
    xor = [[0, 0], [1, 1], [0, 1], [1, 0]]
    assert not is_linearly_separable(xor, [1, 1, -1, -1])
    assert is_linearly_separable(xor, [1, -1, -1, -1])  # one corner off
    with pytest.raises(ValueError, match="exactly two classes"):
        is_linearly_separable(xor, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="4 rows but y has 3"):
        is_linearly_separable(xor, [1, -1, 1])


def test_checkerboard_labels_are_cell_parity():
    X, y = ds.make_checkerboard(2000, seed=3)
    assert X.min() >= 0 and X.max() < 1
    row, col = (X * 4).astype(int).T
    assert_array_equal(y, np.where((row + col) % 2 == 0, 1, -1))
    assert_array_equal(ds.checkerboard_labels([[0.1, 0.1], [0.3, 0.1], [0.3, 0.3]]), [1, -1, 1])
    assert 0.45 < np.mean(y == 1) < 0.55
    assert not is_linearly_separable(X, y)


def test_separable_2d_has_the_promised_margin():
    for margin in [0.0, 1.0, 2.0]:
        X, y = ds.make_separable_2d(100, margin=margin, seed=7)
        signed = y * (X[:, 0] + X[:, 1]) / np.sqrt(2)
        assert signed.min() >= margin / 2
    assert np.sum(y == 1) == 50


def test_noisy_2d_flips_labels_at_the_requested_rate():
    X, y, clean = ds.make_noisy_2d(20000, flip=0.2, return_clean=True, seed=0)
    assert abs(np.mean(y != clean) - 0.2) < 0.01
    assert_array_equal(clean, np.where(X[:, 1] > 0.5 * np.sin(np.pi * X[:, 0]), 1, -1))
    _, y0, clean0 = ds.make_noisy_2d(100, flip=0.0, return_clean=True, seed=0)
    assert_array_equal(y0, clean0)


def test_linear_large_does_not_depend_on_chunk_size():
    X1, y1, w1, b1 = ds.make_linear_large(1000, 5, chunk_size=1000, return_coef=True, seed=9)
    X2, y2, w2, b2 = ds.make_linear_large(1000, 5, chunk_size=37, return_coef=True, seed=9)
    assert_array_equal(X1, X2)
    assert_array_equal(y1, y2)
    assert_array_equal(w1, w2)
    assert b1 == b2
    assert np.linalg.norm(w1) == pytest.approx(1.0)


def test_linear_large_labels_follow_the_hyperplane():
    X, y, w, b = ds.make_linear_large(20000, 10, noise=0.0, return_coef=True, seed=1)
    assert_array_equal(y, np.where(X @ w - b >= 0, 1, -1))
    X, y, w, b = ds.make_linear_large(20000, 10, noise=0.2, return_coef=True, seed=1)
    agreement = np.mean(y == np.where(X @ w - b >= 0, 1, -1))
    assert 0.75 < agreement < 0.95


def test_linear_large_memory_is_the_result_plus_a_few_chunks():
    n, d, chunk = 200_000, 10, 10_000
    tracemalloc.start()
    try:
        X, y = ds.make_linear_large(n, d, chunk_size=chunk, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    result = X.nbytes + y.nbytes
    assert peak < result + 6 * chunk * d * 8


def test_breast_cancer_labels():
    X, y = ds.load_breast_cancer_pm()
    data = load_breast_cancer()
    assert_array_equal(X, data.data)
    assert_array_equal(y == 1, data.target_names[data.target] == "malignant")
    assert X.shape == (569, 30) and np.sum(y == 1) == 212


def test_digits_two_class_task():
    X, y = ds.load_digits_binary(3, 8)
    digits = load_digits()
    assert X.shape == (np.isin(digits.target, [3, 8]).sum(), 64)
    assert np.sum(y == 1) == np.sum(digits.target == 3)
    X, y = ds.load_digits_binary(positive=[1, 3, 5, 7, 9], negative=[0, 2, 4, 6, 8])
    assert X.shape == (1797, 64)
    assert_array_equal(y == 1, digits.target % 2 == 1)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ds.make_cocianu_state(0, 70), "n_pos must be an integer >= 1"),
        (lambda: ds.make_cocianu_state(60, 7.5), "n_neg must be an integer >= 1"),
        (lambda: ds.make_checkerboard(-5), "n_samples must be an integer >= 1"),
        (lambda: ds.make_checkerboard(10, board=1), "board must be an integer >= 2"),
        (lambda: ds.checkerboard_labels(np.ones((3, 3))), "two-dimensional; X has 3 columns"),
        (lambda: ds.checkerboard_labels([[np.nan, 0.0]]), "NaN"),
        (lambda: ds.make_separable_2d(1), "n_samples must be an integer >= 2"),
        (lambda: ds.make_separable_2d(10, margin=-1.0), r"margin must be in \[0, 4\]"),
        (lambda: ds.make_noisy_2d(10, flip=0.5), r"flip must be in \[0.0, 0.5\)"),
        (lambda: ds.make_noisy_2d(10, flip=np.nan), "flip must be finite"),
        (lambda: ds.make_linear_large(0), "n_samples must be an integer >= 1"),
        (lambda: ds.make_linear_large(10, noise=-0.1), "noise must be >= 0"),
        (lambda: ds.make_linear_large(10, chunk_size=0), "chunk_size must be an integer >= 1"),
        (lambda: ds.load_digits_binary(3, 3), "share the digits"),
        (lambda: ds.load_digits_binary(10, 3), "digit 0-9"),
        (lambda: ds.load_digits_binary([], 3), "digit 0-9"),
        (lambda: is_linearly_separable([[1.0, np.inf]], [1]), "infinity"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
