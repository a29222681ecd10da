"""The LSVM stepper shows lsvm_linear's iterates, and its numbers are those of iteration (15)."""

import html
import warnings

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from ksvm.book.explorers.lsvm import lsvm_iterates, make_lsvm_explorer
from ksvm.datasets import make_noisy_2d, make_separable_2d
from ksvm.lsvm import lsvm_linear


@pytest.fixture(scope="module")
def explorer():
    return make_lsvm_explorer()


def iterate15(A, d, nu, eta, iters):
    """(15) with Q formed and solved by numpy: an independent transcription."""
    m = len(d)
    H = d[:, None] * np.hstack([A, -np.ones((m, 1))])
    Q = np.eye(m) / nu + H @ H.T
    u = np.linalg.solve(Q, np.ones(m))
    U = [u]
    for _ in range(iters):
        u = np.linalg.solve(Q, 1.0 + np.maximum(Q @ u - 1.0 - eta * u, 0.0))
        U.append(u)
    return np.array(U), Q


def test_the_last_iterate_is_lsvm_linears_answer(explorer):
    A, d = make_noisy_2d(40, flip=0.1, seed=1234)
    ref = lsvm_linear(A, d, nu=1.0, tol=4e-4, max_iter=60)
    last = explorer.params["i"][-1]
    assert explorer.params["i"] == list(range(ref.n_iter + 1)) and 30 <= last <= 45
    np.testing.assert_array_equal(explorer.iterates[last], ref.u)
    # the plane drawn in the last frame is lsvm_linear's
    drawn = np.r_[explorer.w[last], explorer.b[last]]
    np.testing.assert_allclose(drawn, np.r_[ref.w, ref.b], rtol=0, atol=1e-14)


def test_every_iterate_is_lsvm_linear_stopped_there():
    A, d = make_separable_2d(20, seed=3)
    U = lsvm_iterates(A, d, 2.0, 5, eta=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for i in (0, 3, 5):
            np.testing.assert_array_equal(
                U[i], lsvm_linear(A, d, nu=2.0, eta=0.5, max_iter=i, tol=1e-300).u
            )


def test_the_iterates_are_those_of_iteration_15(explorer):
    U, _Q = iterate15(explorer.X, explorer.y, 1.0, 1.9, len(explorer.iterates) - 1)
    np.testing.assert_allclose(explorer.iterates, U, rtol=0, atol=1e-10)


def test_the_step_bound_holds_and_is_pessimistic(explorer):
    U, Q = iterate15(explorer.X, explorer.y, 1.0, 1.9, len(explorer.iterates) - 1)
    q = np.linalg.eigvalsh(Q)
    rho = np.max(np.abs(1.0 - 1.9 / q))
    assert explorer.rho == pytest.approx(rho, rel=1e-10) and explorer.q_min == pytest.approx(
        q[0], rel=1e-10
    )
    steps = np.linalg.norm(np.diff(U, axis=0), axis=1)
    i = np.arange(len(steps))
    bound = rho**i * np.linalg.norm(Q @ (U[1] - U[0])) / q[0]
    assert np.all(steps <= bound * (1 + 1e-9))
    assert steps[-1] < 0.1 * bound[-1]  # far below: the observed rate beats rho
    assert explorer.rate < rho


@pytest.mark.slow
def test_the_step_button_and_the_numbers(explorer):
    box = explorer.widget()
    assert box.sliders["i"].value == 0
    first = box.picture.value
    box.button.click()
    assert box.sliders["i"].value == 1 and box.picture.value != first
    U, Q = iterate15(explorer.X, explorer.y, 1.0, 1.9, len(explorer.iterates) - 1)
    for i in (1, 7, explorer.params["i"][-1]):
        box.sliders["i"].value = i
        shown = explorer.shown
        assert box.numbers.value == html.escape(explorer.describe(shown))
        assert shown["i"] == i
        assert shown["||u^(i+1) - u^i||"] == pytest.approx(
            np.linalg.norm(U[i + 1] - U[i]), rel=1e-8
        )
        assert shown["objective"] == pytest.approx(0.5 * U[i] @ Q @ U[i] - U[i].sum(), rel=1e-12)
        assert shown["negative u_j"] == int(np.sum(U[i] < -1e-12))
    assert (
        np.linalg.norm(U[i] - U[i - 1]) <= 4e-4 < np.linalg.norm(U[i - 1] - U[i - 2])
    )  # Code 2's stop


def test_the_plane_settles_and_the_objective_rises_to_its_minimum_over_u_ge_0(explorer):
    U = explorer.iterates
    f = [explorer.render(i=i)[1]["objective"] for i in (0, explorer.params["i"][-1])]
    import matplotlib.pyplot as plt

    plt.close("all")
    assert f[0] < f[1]  # u^0 = Q^{-1}e minimises f without the bound u >= 0
    # u^0 has negative entries; the iteration pushes them towards u >= 0 (not exactly there)
    assert U[0].min() < -0.1 and U[-2].min() > -1e-3


def test_bad_input_is_refused():
    A, d = make_noisy_2d(10, seed=0)
    with pytest.raises(ValueError, match="both"):
        make_lsvm_explorer(A)
    with pytest.raises(ValueError, match="plane"):
        make_lsvm_explorer(np.hstack([A, A]), d)
    with pytest.raises(ValueError, match="eta"):
        make_lsvm_explorer(A, d, nu=1.0, eta=2.5)
