"""Time ksvm's RLSC and kernel RLR against scikit-learn.

Part 1, RLSC: ``RLSClassifier`` (direct Cholesky and conjugate gradients)
against ``KernelRidge`` with the same RBF kernel and ``alpha = lambda``.  The
problems differ by the bias: RLSC has an unpenalised ``b`` (the bordered
system), KernelRidge has none; the table prints how often the two classify a
test point alike.  Both times include computing the Gram matrix.

Part 2, RLR: ``KernelLogisticRegression`` with the polynomial kernel
``(x'z + 1)^p`` against ``LogisticRegression(C = 1/lambda)`` on the explicit
features of that kernel (``ksvm.polynomial_map.polynomial_feature_map``): the same
problem exactly, so the table prints the largest difference of the decision
functions too.  The kernel side works with ``n x n`` matrices, the explicit
side with ``n x D`` features, ``D = C(d + p, p)``.

Prints the best of a few runs of each and the ratio ksvm / scikit-learn
measured in this run.  Not a test: nothing is asserted.

    python benchmarks/bench_rennie.py [--sizes 1000 2000 5000 10000] [--repeat 2]
"""

import argparse

import numpy as np
from _timing import best_of
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LogisticRegression

from ksvm import KernelLogisticRegression, RLSClassifier
from ksvm.datasets import make_noisy_2d
from ksvm.polynomial_map import n_polynomial_features, polynomial_feature_map


def bench_rlsc(sizes, lam, gamma, repeat):
    print(f"RLSC on noisy 2-D data (10% flipped), RBF gamma={gamma}, lambda={lam}")
    print(
        f"{'n':>6} {'direct [s]':>11} {'cg [s]':>8} {'cg iter':>8} {'KernelRidge [s]':>16} "
        f"{'direct/KR':>10} {'cg/KR':>6} {'same sign':>10}"
    )
    for n in sizes:
        X, y = make_noisy_2d(n, flip=0.1, seed=0)
        X_test, _ = make_noisy_2d(2000, flip=0.1, seed=1)
        t_dir, direct = best_of(repeat, lambda: RLSClassifier(lam=lam, gamma=gamma).fit(X, y))
        t_cg, cg = best_of(
            repeat, lambda: RLSClassifier(lam=lam, gamma=gamma, solver="cg", tol=1e-8).fit(X, y)
        )
        t_kr, kr = best_of(
            repeat, lambda: KernelRidge(alpha=lam, kernel="rbf", gamma=gamma).fit(X, y)
        )
        same = np.mean(np.sign(direct.decision_function(X_test)) == np.sign(kr.predict(X_test)))
        print(
            f"{n:6d} {t_dir:11.3f} {t_cg:8.3f} {cg.n_iter_:8d} {t_kr:16.3f} "
            f"{t_dir / t_kr:10.2f} {t_cg / t_kr:6.2f} {same:10.4f}"
        )


def bench_rlr(sizes, lam, d, degree, repeat):
    D = n_polynomial_features(d, degree)
    print(
        f"\nRLR, polynomial kernel (x'z + 1)^{degree} on {d} features (D = {D} explicit "
        f"features), lambda={lam}; ksvm tol 1e-8 (Newton), 1e-6 (L-BFGS); "
        f"LogisticRegression(C={1 / lam:g}, lbfgs, tol=1e-8)"
    )
    print(
        f"{'n':>6} {'newton [s]':>11} {'iter':>5} {'lbfgs [s]':>10} {'iter':>6} "
        f"{'LogReg [s]':>11} {'newton/LR':>10} {'lbfgs/LR':>9} {'max |f diff|':>13}"
    )
    rng = np.random.default_rng(0)
    for n in sizes:
        X = rng.normal(size=(n, d)) / np.sqrt(d)
        y = np.where(X[:, 0] ** 2 + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n) > 0.1, 1, -1)
        params = dict(lam=lam, kernel="poly", degree=degree, gamma=1.0, coef0=1.0, tol=1e-8)
        t_new, newton = best_of(repeat, lambda: KernelLogisticRegression(**params).fit(X, y))
        t_lb, lbfgs = best_of(
            repeat,
            lambda: KernelLogisticRegression(**{**params, "tol": 1e-6}, solver="lbfgs").fit(X, y),
        )

        def explicit():
            Phi = polynomial_feature_map(X, degree, coef0=1.0)
            return LogisticRegression(C=1.0 / lam, tol=1e-8, max_iter=10000).fit(Phi, y)

        t_lr, lr = best_of(repeat, explicit)
        Phi = polynomial_feature_map(X, degree, coef0=1.0)
        diff = np.abs(newton.decision_function(X) - lr.decision_function(Phi)).max()
        print(
            f"{n:6d} {t_new:11.3f} {newton.n_iter_:5d} {t_lb:10.3f} {lbfgs.n_iter_:6d} "
            f"{t_lr:11.3f} {t_new / t_lr:10.1f} {t_lb / t_lr:9.1f} {diff:13.1e}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000, 10000])
    parser.add_argument("--rlr-sizes", type=int, nargs="+", default=[500, 1000, 2000])
    parser.add_argument("--lam", type=float, default=1.0)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    bench_rlsc(args.sizes, args.lam, args.gamma, args.repeat)
    bench_rlr(args.rlr_sizes, args.lam, d=10, degree=2, repeat=args.repeat)


if __name__ == "__main__":
    main()
