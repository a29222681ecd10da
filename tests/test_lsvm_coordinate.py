"""The kernel LSVM by greedy coordinate steps (lsvm_kernel_coordinate) against the exact
Newton solver and against a plain numpy transcription of its steps."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from ksvm import LagrangianSVC, kernels
from ksvm.columns import KernelColumns
from ksvm.datasets import make_checkerboard
from ksvm.lsvm import augment, dual_matrix, lsvm_kernel_coordinate, lsvm_kernel_newton
from ksvm.lsvm._coordinate_compiled import (
    CONVERGED,
    NEED_ROW,
    OUT_OF_STEPS,
    _pair_step,
    coordinate_steps,
    pair_steps,
)
from ksvm.lsvm.coordinate import _relaxation
from ksvm.lsvm.estimator import COORDINATE_NU, COORDINATE_NU_N, COORDINATE_UP_TO

from .conftest import frozen


def _problem(m, gamma=100.0, seed=0):
    X, y = make_checkerboard(m, seed=seed)
    G = augment(X)
    return G, np.where(y == 1, 1.0, -1.0), kernels.make_kernel("rbf", gamma=gamma)


def _violation(M, u):
    g = M @ u - 1.0
    return np.max(np.where(u > 0, np.abs(g), -g))


@pytest.mark.parametrize("pairs", [None, True, False])
@pytest.mark.parametrize("nu", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("m", [300, 2100])  # 2100: rows on demand, a warm start of three levels
def test_reaches_the_exact_solution(m, nu, pairs):
    G, y, k = _problem(m)
    K = k(G, G)
    exact = lsvm_kernel_newton(K, y, nu).u
    columns = KernelColumns(k, frozen(G))
    r = lsvm_kernel_coordinate(columns, frozen(y), nu, tol=1e-10, pairs=pairs)
    assert r.converged
    assert np.abs(r.u - exact).max() <= 1e-8 * exact.max()
    assert np.array_equal(r.u > 0, exact > 0)
    assert r.opt <= 1e-10
    # every row at most once: the cache holds them all
    assert 0 < r.kernel_values <= m * m


def test_few_points_have_every_row_computed_in_one_call():
    from ksvm.lsvm.coordinate import _WHOLE_UP_TO

    def counted(m):
        G, y, k = _problem(m)
        calls = []

        def kernel(A, B):
            if len(B) == m:  # rows (the diagonal comes in square blocks)
                calls.append(len(A))
            return k(A, B)

        r = lsvm_kernel_coordinate(KernelColumns(kernel, G), y, 1.0, tol=1e-8)
        assert r.converged
        exact = lsvm_kernel_newton(k(G, G), y, 1.0).u
        assert np.abs(r.u - exact).max() <= 1e-6 * exact.max()
        return calls, r.kernel_values

    calls, values = counted(_WHOLE_UP_TO)
    assert calls == [_WHOLE_UP_TO] and values == _WHOLE_UP_TO**2
    calls, values = counted(_WHOLE_UP_TO + 100)  # on demand: many calls, not every row
    assert len(calls) > 1 and values < (_WHOLE_UP_TO + 100) ** 2


def test_the_whole_matrix_is_solved_from_zero_and_rows_on_demand_from_a_warm_start(monkeypatch):
    from ksvm.lsvm import coordinate

    levels = []
    run = coordinate._Levels.run

    def spy(self, nu, points, u, tol):
        levels.append((points.size, bool(u.any())))
        return run(self, nu, points, u, tol)

    monkeypatch.setattr(coordinate._Levels, "run", spy)
    G, y, k = _problem(coordinate._WHOLE_UP_TO)
    whole = lsvm_kernel_coordinate(KernelColumns(k, G), y, 10.0, tol=1e-8)
    assert levels == [(coordinate._WHOLE_UP_TO, False)]  # one level, from u = 0
    levels.clear()
    few_rows = KernelColumns(k, G, cache_size=8 * G.shape[0] * 600 / 2**20)  # 600 rows
    warm = lsvm_kernel_coordinate(few_rows, y, 10.0, tol=1e-8)
    sizes = [size for size, _ in levels]
    assert sizes == sorted(sizes) and sizes[-1] == G.shape[0] and len(sizes) >= 3
    assert levels[-1][1]  # the top level starts from the lower ones' solution
    assert np.abs(warm.u - whole.u).max() <= 1e-6 * whole.u.max()


@pytest.mark.parametrize("omega", [0.7, 1.0, 1.3, 1.9])
def test_every_omega_converges_to_the_tolerance(omega):
    G, y, k = _problem(400)
    M = dual_matrix(k(G, G), y, 10.0)
    r = lsvm_kernel_coordinate(KernelColumns(k, G), y, 10.0, tol=1e-6, omega=omega)
    assert r.converged
    assert _violation(M, r.u) <= 1e-6 and r.u.min() >= 0.0


def test_a_cache_too_small_for_the_rows_gives_the_same_answer():
    G, y, k = _problem(1100)
    whole = lsvm_kernel_coordinate(KernelColumns(k, G), y, 1.0, tol=1e-9)
    tiny = KernelColumns(k, G, cache_size=8 * 1100 * 40 / 2**20)  # 40 rows
    small = lsvm_kernel_coordinate(tiny, y, 1.0, tol=1e-9)
    assert tiny.capacity == 40
    assert np.abs(small.u - whole.u).max() <= 1e-7 * whole.u.max()
    assert small.kernel_values > whole.kernel_values  # rows computed again


def _numpy_steps(M, u, steps, omega):
    """The greedy projected over-relaxed steps, written plainly from the definition."""
    u = u.copy()
    for _ in range(steps):
        g = M @ u - 1.0
        violation = np.where(u > 0, np.abs(g), np.maximum(-g, 0.0))
        i = int(np.argmax(violation))
        u[i] = max(0.0, u[i] - omega * g[i] / M[i, i])
    return u


def _steps_problem(active, nu):
    """The rows of 120 checkerboard points, all cached, and the dual matrix of all of
    them (``active`` None) or of 70 of them; ``u = 0`` and its ``g``."""
    G, y, k = _problem(120)
    K = k(G, G)
    points = (
        np.arange(120)
        if active is None
        else np.sort(np.random.default_rng(1).permutation(120)[:70])
    )
    Ky = K[np.ix_(points, points)]
    M = np.eye(points.size) / nu + y[points, None] * Ky * y[points]
    u, g = np.zeros(points.size), -np.ones(points.size)
    slot, used = np.arange(120), np.zeros(120, dtype=np.int64)
    return K, y, points, M, u, g, slot, used


@pytest.mark.parametrize("active", [None, "some"])
def test_compiled_steps_are_the_plain_steps(active):
    nu = 3.0
    K, y, points, M, u, g, slot, used = _steps_problem(active, nu)
    V, state = np.empty(points.size), np.empty(4)
    status = coordinate_steps(
        (K, slot, used), 0, (points, u, g, y[points], np.diag(M).copy()),
        1.0 / nu, 1.3, 0.0, 25, (V, state), False,
    )  # fmt: skip
    assert status == OUT_OF_STEPS and state[2] == 25 and state[3] == 25
    assert np.allclose(u, _numpy_steps(M, np.zeros(points.size), 25, 1.3), rtol=1e-12, atol=1e-14)
    assert np.allclose(g, M @ u - 1.0, atol=1e-12)


def _numpy_pair_steps(M, u, steps):
    """The greedy pair steps, written plainly: the worst violator ``i``, the partner of
    largest gain without the bounds, then the minimum over the two multipliers >= 0
    found among the four sets of them that can be 0, each solved as a linear system."""
    u = u.copy()
    for _ in range(steps):
        g = M @ u - 1.0
        i = int(np.argmax(np.where(u > 0, np.abs(g), np.maximum(-g, 0.0))))
        gains = np.zeros(len(u))
        for k in range(len(u)):
            if k != i and (u[k] > 0 or g[k] < 0):
                H = M[np.ix_([i, k], [i, k])]
                h = g[[i, k]]
                gains[k] = h @ np.linalg.solve(H, h)
        j = int(np.argmax(gains))
        pair = [i, j] if gains[j] > 0 else [i]
        H, h, now = M[np.ix_(pair, pair)], g[pair], u[pair]
        best, fall = now, 0.0
        for free in ([True, True], [True, False], [False, True], [False, False])[
            : 4 if len(pair) == 2 else 1
        ]:
            free = np.array(free[: len(pair)])
            new = np.zeros(len(pair))
            # the minimum with the others at 0: H_FF (new_F - now_F) = -(h_F - H_F0 now_0)
            F = np.flatnonzero(free)
            d0 = -now * ~free
            new[F] = now[F] + np.linalg.solve(
                H[np.ix_(F, F)], -(h[F] + H[np.ix_(F, ~free)] @ d0[~free])
            )
            if (new >= 0).all():
                d = new - now
                value = h @ d + d @ H @ d / 2
                if value < fall:
                    best, fall = new, value
        u[pair] = best
    return u


@pytest.mark.parametrize("active", [None, "some"])
def test_compiled_pair_steps_are_the_plain_pair_steps(active):
    nu = 30.0
    K, y, points, M, u, g, slot, used = _steps_problem(active, nu)
    V, W, state = np.empty(points.size), np.empty(points.size), np.empty(5)
    status = pair_steps(
        (K, slot, used), 0, (points, u, g, y[points], np.diag(M).copy()),
        1.0 / nu, 0.0, 40, (V, W, state), False,
    )  # fmt: skip
    assert status == OUT_OF_STEPS and state[2] == 40 and state[3] == 40
    plain = _numpy_pair_steps(M, np.zeros(points.size), 40)
    assert np.allclose(u, plain, rtol=1e-10, atol=1e-12)
    assert np.allclose(g, M @ u - 1.0, atol=1e-10)
    assert (u > 0).sum() > 10  # the steps went somewhere


def test_a_pair_step_is_the_minimum_over_the_two_bounds():
    # the KKT conditions of min h'd + d'Hd/2 over u + d >= 0, on random 2 x 2 problems
    rng = np.random.default_rng(3)
    for _ in range(2000):
        A = rng.normal(size=(2, 2))
        H = A @ A.T + 0.05 * np.eye(2)
        u = np.where(rng.random(2) < 0.4, 0.0, rng.exponential(size=2))
        h = rng.normal(size=2) * 3
        d = np.array(_pair_step(u[0], u[1], h[0], h[1], H[0, 0], H[0, 1], H[1, 1]))
        new, grad = u + d, h + H @ d
        scale = np.abs(h).max() + np.abs(H).max() * (np.abs(u).max() + np.abs(d).max())
        assert new.min() >= 0.0
        assert np.all(np.where(new > 0, np.abs(grad), np.maximum(-grad, 0.0)) <= 1e-9 * scale)


def test_pair_steps_take_fewer_steps_where_m_is_ill_conditioned():
    G, y, k = _problem(1100)
    single = lsvm_kernel_coordinate(KernelColumns(k, G), y, 100.0, pairs=False)
    pairs = lsvm_kernel_coordinate(KernelColumns(k, G), y, 100.0, pairs=True)
    assert single.converged and pairs.converged
    assert pairs.n_iter <= single.n_iter / 2
    assert np.abs(pairs.u - single.u).max() <= 2e-2 * single.u.max()


def test_pair_steps_need_two_rows_of_cache():
    G, y, k = _problem(50)
    one_row = KernelColumns(k, G, cache_size=8 * 50 / 2**20)
    assert one_row.capacity == 1
    with pytest.raises(ValueError, match="at least two rows"):
        lsvm_kernel_coordinate(one_row, y, 1.0, pairs=True)
    r = lsvm_kernel_coordinate(one_row, y, 1.0, tol=1e-8)  # None: single steps
    exact = lsvm_kernel_newton(k(G, G), y, 1.0).u
    assert r.converged and np.abs(r.u - exact).max() <= 1e-6 * exact.max()
    two_rows = KernelColumns(k, G, cache_size=8 * 2 * 50 / 2**20)
    r = lsvm_kernel_coordinate(two_rows, y, 30.0, tol=1e-8, pairs=True)
    exact = lsvm_kernel_newton(k(G, G), y, 30.0).u
    assert r.converged and np.abs(r.u - exact).max() <= 1e-6 * exact.max()


def _three_rows_missing(nu):
    """60 checkerboard points whose rows are cached but those of 5, 17 and 40, their dual
    matrix, and the problem at ``u = 0`` as the compiled steps take it."""
    G, y, k = _problem(60)
    K = k(G, G)
    M = dual_matrix(K, y, nu)
    slot = np.arange(60)
    slot[[5, 17, 40]] = -1
    used = np.zeros(60, dtype=np.int64)
    u, g = np.zeros(60), -np.ones(60)
    return K, M, slot, used, u, (np.arange(60), u, g, y, np.diag(M).copy())


def test_a_missing_partner_row_keeps_the_first_row_and_resumes():
    nu = 30.0
    K, M, slot, used, u, problem = _three_rows_missing(nu)
    V, W, state = np.empty(60), np.empty(60), np.empty(5)
    resume, misses = False, []
    while True:
        status = pair_steps((K, slot, used), 0, problem, 1 / nu, 1e-9, 10**5, (V, W, state), resume)
        if status != NEED_ROW:
            break
        misses.append((int(state[0]), int(state[4])))
        if state[4] >= 0:
            assert slot[int(state[4])] >= 0  # the first row of the pair is cached
        slot[int(state[0])] = int(state[0])
        resume = True
    assert status == CONVERGED
    assert misses and {i for i, _ in misses} <= {5, 17, 40}
    assert any(keep >= 0 for _, keep in misses)  # a partner was missing at least once
    assert _violation(M, u) <= 1e-9


def test_a_missing_row_stops_the_steps_and_they_resume():
    K, M, slot, used, u, problem = _three_rows_missing(1.0)
    V, state = np.empty(60), np.empty(4)
    steps, resume, misses = 0, False, []
    while True:
        status = coordinate_steps(
            (K, slot, used), 0, problem, 1.0, 1.0, 1e-9, 10**5, (V, state), resume
        )
        steps += int(state[2])
        if status != NEED_ROW:
            break
        i = int(state[0])
        misses.append(i)
        slot[i] = i  # the row is now "computed"
        resume = True
    assert status == CONVERGED
    assert misses and set(misses) <= {5, 17, 40}
    assert _violation(M, u) <= 1e-9


def test_running_out_of_steps_warns():
    G, y, k = _problem(800)
    with pytest.warns(ConvergenceWarning, match="coordinate solver stopped after 50 steps"):
        r = lsvm_kernel_coordinate(KernelColumns(k, G), y, 1.0, max_iter=50)
    assert not r.converged and r.n_iter == 50 and r.opt > 1e-3


@pytest.mark.parametrize("omega", [0.0, 2.0, -1.0, np.nan])
def test_omega_outside_zero_two_is_refused(omega):
    G, y, k = _problem(50)
    with pytest.raises(ValueError, match="omega must lie in"):
        lsvm_kernel_coordinate(KernelColumns(k, G), y, 1.0, omega=omega)


def test_labels_must_match_the_rows():
    G, y, k = _problem(50)
    with pytest.raises(ValueError, match="50 rows but y has 49"):
        lsvm_kernel_coordinate(KernelColumns(k, G), y[:49], 1.0)


def test_estimator_auto_takes_coordinate_steps_at_small_nu():
    X, y = make_checkerboard(1200, seed=0)
    X_test, y_test = make_checkerboard(4000, seed=1)
    small = LagrangianSVC(kernel="rbf", gamma=100, nu=COORDINATE_NU).fit(X, y)
    newton = LagrangianSVC(kernel="rbf", gamma=100, nu=COORDINATE_NU, solver="newton").fit(X, y)
    middle = LagrangianSVC(kernel="rbf", gamma=100, nu=COORDINATE_NU_N / 1200).fit(X, y)
    X_2, y_2 = make_checkerboard(2000, seed=0)  # at 1200 points every nu is below the rule
    large = LagrangianSVC(kernel="rbf", gamma=100, nu=100.0).fit(X_2, y_2)
    assert large._effective_nu(100.0, X_2) * 2000 > COORDINATE_NU_N  # near neighbours: Newton
    assert small.solver_ == "coordinate" and newton.solver_ == "newton"
    assert middle.solver_ == "coordinate" and large.solver_ == "newton"
    few = COORDINATE_UP_TO  # gamma = 10: nearest neighbours at 0.995, nu stays large
    for n, solver in ((few, "coordinate"), (few + 1, "newton")):
        clf = LagrangianSVC(kernel="rbf", gamma=10, nu=1000.0).fit(X[:n], y[:n])
        assert clf.solver_ == solver
    assert np.abs(small.u_ - newton.u_).max() <= 1e-2 * newton.u_.max()
    assert abs(small.score(X_test, y_test) - newton.score(X_test, y_test)) <= 2e-3
    assert np.array_equal(small.support_, np.flatnonzero(small.u_ > 0))
    assert small.n_kernel_rows_ == 1200  # the whole matrix, up to 2,000 points


def test_effective_nu_is_that_of_the_nearest_neighbours_kernel_values():
    X = np.random.default_rng(1).normal(size=(30, 3))  # fewer than the sample: every point
    model = LagrangianSVC(kernel="rbf", gamma=0.7)
    model._gamma = 0.7
    K = kernels.rbf_kernel(X, gamma=0.7)
    np.fill_diagonal(K, -np.inf)
    r = K.max(axis=1).mean()
    assert model._effective_nu(10.0, X) == pytest.approx(1.0 / (0.1 + 1.0 - r), rel=1e-12)
    # the points' own values are left out: duplicates of every point make it nu itself
    assert model._effective_nu(10.0, np.repeat(X, 2, axis=0)) == pytest.approx(10.0, rel=1e-12)


def test_estimator_auto_takes_coordinate_steps_on_spread_points_at_large_nu():
    # Points far apart next to 1/gamma: no two nearly the same, M well conditioned at any
    # nu; the coordinate steps reach SVC's tolerance, where nu * n alone would say Newton.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(800, 20))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=800) > 0, 1, -1)
    auto = LagrangianSVC(kernel="rbf", gamma="scale", nu=1000.0).fit(X, y)
    exact = LagrangianSVC(kernel="rbf", gamma="scale", nu=1000.0, solver="newton").fit(X, y)
    assert COORDINATE_NU_N < 1000.0 * 800
    assert auto._effective_nu(1000.0, X) * 800 < COORDINATE_NU_N
    assert auto.solver_ == "coordinate"
    assert np.abs(auto.u_ - exact.u_).max() <= 1e-2 * exact.u_.max()
    assert np.mean(auto.predict(X) == exact.predict(X)) >= 0.995
    # other kernels keep the rule on nu itself
    poly = LagrangianSVC(kernel="poly", degree=2, nu=1000.0).fit(X, y)
    assert poly.solver_ == "newton"


@pytest.mark.parametrize(
    ("nu", "omega"),
    [
        (1e-3, 1.3),
        (1.0, 1.3),
        (np.sqrt(5.0), 1.45),
        (5.0, 1.6),
        (np.sqrt(250.0), 1.725),
        (50.0, 1.85),
        (1e4, 1.85),
    ],
)
def test_step_length_rises_with_log_nu_through_its_three_knots(nu, omega):
    assert _relaxation(nu) == pytest.approx(omega, abs=1e-12)


def test_estimator_steps_take_the_length_of_the_effective_nu(monkeypatch):
    from ksvm.lsvm import estimator

    lengths = []

    def solver(*args, omega, **kwargs):
        lengths.append(omega)
        return lsvm_kernel_coordinate(*args, omega=omega, **kwargs)

    monkeypatch.setattr(estimator, "lsvm_kernel_coordinate", solver)
    # spread points (as the digits): the effective nu is far below nu, and so is the length
    rng = np.random.default_rng(5)
    X = rng.normal(size=(800, 20))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=800) > 0, 1, -1)
    spread = LagrangianSVC(kernel="rbf", gamma="scale", nu=100.0, solver="coordinate").fit(X, y)
    effective = spread._effective_nu(100.0, X)
    assert effective < 5.0 and lengths == [_relaxation(effective)]
    assert lengths[0] < _relaxation(100.0) - 0.2
    # near neighbours (the checkerboard): nu stays large, and so does the length
    Xc, yc = make_checkerboard(800, seed=0)
    near = LagrangianSVC(kernel="rbf", gamma=100.0, nu=100.0, solver="coordinate").fit(Xc, yc)
    assert lengths[1] == _relaxation(near._effective_nu(100.0, Xc)) > 1.75
    # other kernels: the solver's default, the length of nu itself
    LagrangianSVC(kernel="poly", degree=2, nu=100.0, solver="coordinate").fit(X, y)
    assert lengths[2] is None
    # up to nu = 1 the length is that of nu itself: no neighbours are looked for
    LagrangianSVC(kernel="rbf", gamma="scale", nu=1.0, solver="coordinate").fit(X, y)
    assert lengths[3] is None and _relaxation(1.0) == _relaxation(1e-3)


def test_a_newton_fit_below_the_compiled_rows_does_not_load_numba():
    # Loading numba and the compiled rows costs a fresh process most of a second: the
    # choice of solver must not.
    import subprocess
    import sys

    code = (
        "import sys; from ksvm.datasets import make_checkerboard; "
        "from ksvm.lsvm import LagrangianSVC; X, y = make_checkerboard(3000, seed=0); "
        "m = LagrangianSVC(kernel='rbf', gamma=100.0, nu=100.0).fit(X, y); "
        "print(m.solver_, 'numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["newton", "False"]


def test_estimator_coordinate_needs_a_kernel_whose_rows_it_computes():
    X, y = make_checkerboard(100, seed=0)
    with pytest.raises(ValueError, match="solver='coordinate'"):
        LagrangianSVC(solver="coordinate").fit(X, y)  # linear kernel
    with pytest.raises(ValueError, match="solver='coordinate'"):
        LagrangianSVC(kernel="sigmoid", solver="coordinate").fit(X, y)
    with pytest.raises(ValueError, match="eta"):
        LagrangianSVC(kernel="rbf", solver="coordinate", eta=0.1).fit(X, y)


def test_newton_on_many_points_computes_rows_by_the_compiled_kernel(monkeypatch):
    from ksvm import base
    from ksvm._rbf_compiled import RBFFewFeatures
    from ksvm.lsvm import estimator

    X, y = make_checkerboard(900, seed=3)
    blocks = LagrangianSVC(kernel="rbf", gamma=30, nu=100.0, solver="newton").fit(X, y)
    seen = []
    monkeypatch.setattr(estimator, "COMPILED_ROWS_FROM", 900)

    class Spy(base.KernelColumns):
        def __init__(self, kernel, X, **kwargs):
            seen.append(kernel)
            super().__init__(kernel, X, **kwargs)

    monkeypatch.setattr(base, "KernelColumns", Spy)  # where the estimators make their rows
    compiled = LagrangianSVC(kernel="rbf", gamma=30, nu=100.0, solver="newton").fit(X, y)
    assert compiled.solver_ == "newton" and isinstance(seen[0], RBFFewFeatures)
    assert np.abs(compiled.u_ - blocks.u_).max() <= 1e-9 * blocks.u_.max()
