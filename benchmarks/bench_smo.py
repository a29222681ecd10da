"""Time ksvm's SMO against scikit-learn's SVC (libsvm) on RBF problems.

Both solve the same soft-margin dual to the same KKT tolerance; the time of
SoftMarginSVC includes computing the Gram matrix (libsvm computes kernel
values inside its solver).  Prints, per size, the best of a few runs of each,
the iterations, the relative difference of the dual objectives, and the
ratio ksvm / libsvm measured in this run.  Not a test: nothing is asserted.

    python benchmarks/bench_smo.py [--sizes 500 1000 2000 5000 10000] [--repeat 3]
"""

import argparse

import numpy as np
from _timing import best_of
from sklearn.svm import SVC

from ksvm import SoftMarginSVC, kernels
from ksvm.datasets import make_noisy_2d
from ksvm.smo import dual_objective


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 5000, 10000])
    parser.add_argument("--C", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"noisy 2-D data (10% flipped labels), RBF gamma={args.gamma}, tol={args.tol}")
    print(f"{'n':>6} {'C':>5} {'ksvm [s]':>9} {'libsvm [s]':>11} {'ratio':>6} {'iter ksvm':>10} {'iter libsvm':>12} {'obj rel diff':>13}")
    for n in args.sizes:
        X, y = make_noisy_2d(n, flip=0.1, seed=0)
        for C in args.C:
            params = dict(C=C, kernel="rbf", gamma=args.gamma, tol=args.tol)
            t_ours, ours = best_of(args.repeat, lambda: SoftMarginSVC(**params).fit(X, y))
            t_ref, ref = best_of(args.repeat, lambda: SVC(**params, cache_size=1000).fit(X, y))
            alpha = np.zeros(n)
            alpha[ref.support_] = np.abs(ref.dual_coef_[0])
            theirs = dual_objective(alpha, kernels.rbf_kernel(X, gamma=args.gamma), y)
            rel = abs(ours.dual_objective_ - theirs) / abs(theirs)
            print(f"{n:6d} {C:5g} {t_ours:9.3f} {t_ref:11.3f} {t_ours / t_ref:6.2f} "
                  f"{ours.n_iter_:10d} {ref.n_iter_[0]:12d} {rel:13.1e}")


if __name__ == "__main__":
    main()
