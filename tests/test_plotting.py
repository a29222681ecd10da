"""ksvm.book.plotting: the boundary drawn is where the decision function is zero."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from ksvm import SoftMarginSVC
from ksvm.book.plotting import CLASS_COLORS, plot_classes, plot_decision
from ksvm.datasets import make_separable_2d


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def test_the_zero_line_of_a_linear_function_is_drawn_where_it_is_zero(ax):
    w, b = np.array([2.0, -1.0]), 0.3
    X = np.array([[-1.0, -1.0], [1.0, 1.0]])
    lines = plot_decision(ax, lambda Z: Z @ w + b, X, levels=(0.0,), shade=False)
    vertices = np.vstack([p.vertices for p in lines.get_paths() if len(p.vertices)])
    assert len(vertices) > 10
    # on a 200-point grid, linear interpolation of a linear function is exact
    np.testing.assert_allclose(vertices @ w + b, 0.0, atol=1e-10)


def test_a_fitted_estimator_is_drawn_through_its_decision_function(ax):
    X, y = make_separable_2d(30, seed=0)
    est = SoftMarginSVC(kernel="linear", C=10.0).fit(X, y)
    lines = plot_decision(ax, est, X)
    assert [float(v) for v in lines.levels] == [-1.0, 0.0, 1.0]
    vertices = np.vstack([p.vertices for p in lines.get_paths()[1:2]])
    np.testing.assert_allclose(est.decision_function(vertices), 0.0, atol=1e-8)


def test_plot_classes_draws_each_class_in_its_colour_and_rings_support_vectors(ax):
    X, y = make_separable_2d(30, seed=1)
    plot_classes(ax, X, y, support=[0, 3])
    first, second, rings = ax.collections
    assert len(first.get_offsets()) == np.sum(y == 1)
    assert len(second.get_offsets()) == np.sum(y == -1)
    np.testing.assert_allclose(
        first.get_facecolor()[0][:3], matplotlib.colors.to_rgb(CLASS_COLORS[1])
    )
    np.testing.assert_allclose(rings.get_offsets(), X[[0, 3]])


@pytest.mark.parametrize(
    "X, y, message",
    [
        (np.zeros((4, 3)), np.array([1, 1, -1, -1]), "shape \\(n, 2\\)"),
        (np.zeros((4, 2)), np.array([1, 1, -1]), "one label per point"),
        (np.zeros((4, 2)), np.array([0, 1, 0, 1]), "-1 and \\+1"),
    ],
)
def test_bad_points_or_labels_get_a_clear_error(ax, X, y, message):
    with pytest.raises(ValueError, match=message):
        plot_classes(ax, X, y)


def test_a_decision_function_that_returns_nonsense_is_refused(ax):
    X = np.array([[0.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="one finite value per point"):
        plot_decision(ax, lambda Z: np.full(len(Z), np.nan), X)
    with pytest.raises(ValueError, match="one finite value per point"):
        plot_decision(ax, lambda Z: Z, X)
