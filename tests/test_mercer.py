"""check_mercer: hand-checkable matrices, the sigmoid counterexample, rounding-level noise."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_array_equal

from ksvm import kernels
from ksvm.datasets import load_breast_cancer_pm
from ksvm.mercer import check_mercer

from .conftest import frozen


def test_hand_checkable_matrices():
    report = check_mercer([[2.0, 1.0], [1.0, 2.0]])  # eigenvalues 1 and 3
    assert report.is_psd and report.symmetric
    assert report.min_eigenvalue == pytest.approx(1.0)
    assert report.max_eigenvalue == pytest.approx(3.0)
    report = check_mercer([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues -1 and 3
    assert not report.is_psd
    assert report.min_eigenvalue == pytest.approx(-1.0)
    assert check_mercer([[1.0, 1.0], [1.0, 1.0]]).is_psd  # singular PSD: eigenvalue 0
    assert check_mercer([[0.0]]).is_psd


def test_asymmetric_matrix_is_not_psd_even_with_positive_eigenvalues():
    report = check_mercer([[2.0, 1.0], [0.0, 2.0]])
    assert not report.symmetric and not report.is_psd
    assert report.max_asymmetry == 1.0


def test_sigmoid_counterexample_by_hand():
    """tanh(x z) on the points 1 and 2: det = tanh(1) tanh(4) - tanh(2)^2 < 0."""
    G = kernels.sigmoid_kernel([[1.0], [2.0]], gamma=1.0, coef0=0.0)
    det = math.tanh(1) * math.tanh(4) - math.tanh(2) ** 2
    assert det < -0.16
    assert np.linalg.det(G) == pytest.approx(det)
    report = check_mercer(G)
    assert not report.is_psd and report.symmetric
    # the smallest eigenvalue of [[a, b], [b, c]], independently of eigvalsh
    a, b, c = G[0, 0], G[0, 1], G[1, 1]
    assert report.min_eigenvalue == pytest.approx((a + c) / 2 - math.hypot((a - c) / 2, b))


def test_sigmoid_counterexample_on_real_data():
    X, _ = load_breast_cancer_pm()
    X = (X - X.mean(0)) / X.std(0)
    G = kernels.sigmoid_kernel(X[:100], gamma=0.5, coef0=1.0)
    report = check_mercer(G)
    assert not report.is_psd
    assert report.min_eigenvalue < -1e3 * report.tol
    # a direction with z'Gz < 0, found without trusting the report
    _w, V = np.linalg.eigh(G)
    z = V[:, 0]
    assert float(z @ G @ z) < 0


def test_rounding_level_negative_eigenvalues_are_tolerated(rng):
    """A linear-kernel Gram matrix with n > d is singular; rounding makes some
    eigenvalues slightly negative.  They must not be reported as a violation."""
    X = rng.standard_normal((200, 3)) * 1e3
    G = kernels.linear_kernel(X)
    report = check_mercer(G)
    assert report.min_eigenvalue < 0  # rounding noise is really there ...
    assert report.is_psd  # ... and within the tolerance


def test_verdict_does_not_depend_on_scale(rng):
    X = rng.standard_normal((30, 2))
    for scale in [1e-8, 1.0, 1e8]:
        assert check_mercer(scale * kernels.rbf_kernel(X, gamma=1.0)).is_psd
        assert not check_mercer(scale * (kernels.rbf_kernel(X, gamma=1.0) - 2 * np.eye(30))).is_psd


def test_default_tolerance_formula():
    K = np.diag([3.0, -2.0, 1.0])  # ||K||_2 = 3
    assert check_mercer(K).tol == 10 * 3 * np.finfo(np.float64).eps * 3
    assert check_mercer(np.diag([0.5, 0.25])).tol == 10 * 2 * np.finfo(np.float64).eps  # floor 1


def test_all_ones_matrices_are_psd():
    """Rank one, eigenvalues n and 0: eigvalsh returns slightly negative zeros."""
    for n in range(1, 60):
        assert check_mercer(np.ones((n, n))).is_psd


def test_explicit_tolerance():
    K = np.array([[1.0, 0.0], [0.0, -1e-6]])
    assert not check_mercer(K).is_psd
    assert check_mercer(K, tol=1e-5).is_psd
    assert check_mercer(K, tol=1e-5).tol == 1e-5


@settings(max_examples=50, deadline=None)
@given(
    Phi=arrays(
        np.float64, st.tuples(st.integers(1, 15), st.integers(1, 6)), elements=st.floats(-100, 100)
    ),
)
def test_no_false_alarm_on_gram_matrices_of_explicit_features(Phi):
    assert check_mercer(Phi @ Phi.T).is_psd


@settings(max_examples=50, deadline=None)
@given(
    Phi=arrays(
        np.float64, st.tuples(st.integers(2, 15), st.integers(1, 6)), elements=st.floats(-100, 100)
    ),
    i=st.integers(0, 14),
)
def test_a_clearly_negative_direction_is_found(Phi, i):
    G = Phi @ Phi.T
    i %= len(G)
    G[i, i] -= 1.0 + np.trace(G)  # e_i' G e_i < 0
    assert not check_mercer(G).is_psd


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.ones((2, 3)), "must be square"),
        ([1.0, 2.0], "Expected 2D array"),
        ([[np.nan]], "NaN"),
        (np.empty((0, 0)), "0 sample"),
        ([["a"]], "could not convert|numeric"),
    ],
)
def test_bad_input(bad, message):
    with pytest.raises(ValueError, match=message):
        check_mercer(bad)


@pytest.mark.parametrize("tol", [0.0, -1.0, np.nan, "small"])
def test_bad_tolerance(tol):
    with pytest.raises(ValueError, match="tol"):
        check_mercer(np.eye(2), tol=tol)


def test_input_is_not_modified(rng):
    A = rng.standard_normal((5, 5))
    K = frozen(A)
    check_mercer(K)
    assert_array_equal(K, A)


def test_report_prints_its_verdict_and_rounding_noise_as_zero(rng):
    assert str(check_mercer([[1.0, 2.0], [2.0, 1.0]])) == (
        "NOT PSD (n=2): symmetric, eigenvalues in [-1, 3], tol=1.33e-14"
    )
    X = rng.standard_normal((50, 2))
    report = check_mercer(kernels.linear_kernel(X))  # rank 2: 48 zero eigenvalues
    assert report.min_eigenvalue != 0
    assert "eigenvalues in [0, " in str(report)
    assert "not symmetric (max |K_ij - K_ji| = 1)" in str(check_mercer([[2.0, 1.0], [0.0, 2.0]]))
