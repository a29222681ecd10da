"""The feature-space explorer: the map, the plane against scikit-learn's SVC, the turning widget."""

import html

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest
from sklearn.svm import SVC

from ksvm.book.explorers.kernel_trick import (
    _plane_in_box,
    make_circle_data,
    make_feature_space_explorer,
    quadratic_map,
)
from ksvm.primal import is_linearly_separable


@pytest.fixture(scope="module")
def explorer():
    return make_feature_space_explorer()


def test_the_map_by_hand():
    np.testing.assert_allclose(
        quadratic_map([[2.0, 3.0], [1.0, -1.0]]),
        [[4.0, 6.0 * np.sqrt(2.0), 9.0], [1.0, -np.sqrt(2.0), 1.0]],
    )
    with pytest.raises(ValueError, match="R\\^2"):
        quadratic_map(np.ones((3, 3)))


def test_the_map_is_the_kernel(rng):
    X, Z = rng.standard_normal((30, 2)), rng.standard_normal((20, 2))
    loop = np.array([[(x @ z) ** 2 for z in Z] for x in X])
    np.testing.assert_allclose(quadratic_map(X) @ quadratic_map(Z).T, loop, rtol=1e-12, atol=1e-12)


def test_the_data_are_separable_by_a_circle_and_not_by_a_line():
    X, y = make_circle_data(60)
    r = np.linalg.norm(X, axis=1)
    assert np.all(r[y == 1] < 0.45) and np.all(r[y == -1] >= 0.75) and np.sum(y == 1) == 20
    assert not is_linearly_separable(X, y)
    assert is_linearly_separable(quadratic_map(X), y)


def test_the_plane_is_scikit_learns(explorer):
    X, y = explorer.X, explorer.y
    svc = SVC(kernel="poly", degree=2, gamma=1.0, coef0=0.0, C=1e10, tol=1e-10).fit(X, y)
    w_sk = svc.dual_coef_[0] @ quadratic_map(svc.support_vectors_)
    np.testing.assert_allclose(explorer.w, w_sk, rtol=0, atol=1e-3 * np.abs(w_sk).max())
    assert explorer.b == pytest.approx(svc.intercept_[0], abs=1e-3 * np.abs(w_sk).max())
    margins = y * (explorer.Phi @ explorer.w + explorer.b)
    assert margins.min() == pytest.approx(1.0, abs=1e-3)  # hard margin: the support vectors at 1
    # the preimage of the plane is (nearly) a circle inside the empty ring
    assert abs(explorer.w[1]) < 0.1 * abs(explorer.w[0])
    assert (
        0.45 < np.sqrt(-explorer.b / explorer.w[0]) < 0.75
        and 0.45 < np.sqrt(-explorer.b / explorer.w[2]) < 0.75
    )


def test_the_plane_polygon_lies_on_the_plane_and_in_the_box():
    w, b = np.array([1.0, 0.2, 1.0]), -1.0
    lo, hi = np.zeros(3), np.ones(3)
    P = _plane_in_box(w, b, lo, hi)
    assert len(P) >= 3
    np.testing.assert_allclose(P @ w + b, 0.0, atol=1e-12)
    assert np.all(lo - 1e-12 <= P) and np.all(hi + 1e-12 >= P)
    assert len(_plane_in_box(w, 10.0, lo, hi)) == 0  # misses the box


def test_turning_changes_the_picture_and_the_numbers_are_right(explorer):
    assert explorer.params["azimuth"] == list(range(0, 360, 30)) and explorer.params[
        "elevation"
    ] == [10, 30, 60]
    box = explorer.widget()
    first = box.picture.value
    box.sliders["azimuth"].value = 120
    second = box.picture.value
    assert second != first
    box.sliders["elevation"].value = 60
    assert box.picture.value != second
    shown = explorer.shown
    assert box.numbers.value == html.escape(explorer.describe(shown))
    X = explorer.X
    by_map = quadratic_map(X) @ quadratic_map(X).T
    assert shown["max |phi(x)'phi(z) - (x'z)^2|"] == np.max(np.abs(by_map - (X @ X.T) ** 2))
    assert shown["max |phi(x)'phi(z) - (x'z)^2|"] < 1e-14
    assert [shown[k] for k in ("w1", "w2", "w3", "b")] == pytest.approx(
        [*explorer.w, explorer.b], abs=5e-4
    )
    assert shown["errors"] == 0


def test_bad_input_is_refused():
    X, _y = make_circle_data(20)
    with pytest.raises(ValueError, match="both"):
        make_feature_space_explorer(X)
    with pytest.raises(ValueError, match="radii"):
        make_circle_data(20, inner=0.8, outer=0.5)
