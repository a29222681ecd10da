"""ksvm.report: the claims a chapter prints are checked, and print the same everywhere."""

import numpy as np
import pytest

from ksvm.report import below, fixed, rel_err


def test_rel_err_against_a_loop():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    expected = max(abs(x - y) for x, y in zip(a.ravel(), b.ravel())) / max(abs(y) for y in b.ravel())
    assert rel_err(a, b) == pytest.approx(expected, rel=1e-15)
    assert rel_err([0.0, 1e-3], [0.0, 0.0]) == 1e-3  # a zero reference: the absolute difference
    with pytest.raises(ValueError, match="one shape"):
        rel_err(np.ones(3), np.ones(4))


@pytest.mark.parametrize("value", [0.0, 1e-300, 3.2e-15, 9.99e-13])
def test_below_prints_the_bound_not_the_value(value):
    assert below(value, 1e-12) == "< 1e-12"


@pytest.mark.parametrize(("limit", "text"), [(1e-5, "< 1e-5"), (1e-4, "< 1e-4"), (0.1, "< 1e-1"),
                                             (0.05, "< 0.05"), (1.0, "< 1"), (2e-8, "< 2e-08")])
def test_below_writes_powers_of_ten_one_way(limit, text):
    assert below(0.0, limit) == text


@pytest.mark.parametrize("value", [1e-12, 2e-12, np.inf, np.nan])
def test_below_fails_when_the_claim_does(value):
    with pytest.raises(AssertionError, match="the claim '< 1e-12' fails"):
        below(value, 1e-12)


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [(-0.0, 4, "0.0000"), (-4e-5, 4, "0.0000"), (-6e-5, 4, "-0.0001"), (2.5, 0, "2"), (1 / 3, 2, "0.33")],
)
def test_fixed_has_one_zero(value, digits, text):
    assert fixed(value, digits) == text
