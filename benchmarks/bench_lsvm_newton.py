"""The LSVM dual solved two ways, against SVC, on the checkerboard.

For each size and ``nu`` the Gaussian-kernel LSVM dual (11) is solved by the
authors' fixed-point iteration (``lsvm_kernel``, Code 3, tol 1e-5) and by the
active-set Newton method (``lsvm_kernel_newton``); scikit-learn's ``SVC``
(libsvm, ``C = nu / 2``) solves the comparable hinge-loss problem.  All times
include the Gram matrix and the prediction of 20 000 test points.  Prints
iterations, test accuracy, the largest difference between the two LSVM
solutions, and the ratios Newton / SVC and fixed point / Newton measured in
this run.  Not a test: nothing is asserted.

    python benchmarks/bench_lsvm_newton.py [--sizes 1000 2000 5000] [--nu 10 100 1000]
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from ksvm import kernels
from ksvm.datasets import make_checkerboard
from ksvm.lsvm import lsvm_kernel, lsvm_kernel_newton

GAMMA = 100.0


def lsvm(solver, X, y, X_test, nu):
    start = time.perf_counter()
    G, G_test = (np.hstack([Z, -np.ones((len(Z), 1))]) for Z in (X, X_test))
    K = kernels.rbf_kernel(G, gamma=GAMMA)
    if solver == "newton":
        r = lsvm_kernel_newton(K, y, nu, itmax=200)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            r = lsvm_kernel(K, y, nu, itmax=100_000, tol=1e-5)
    f = kernels.rbf_kernel(G_test, G, gamma=GAMMA) @ (y * r.u)
    return time.perf_counter() - start, r, f


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000])
    parser.add_argument("--nu", type=float, nargs="+", default=[10.0, 100.0, 1000.0])
    args = parser.parse_args()
    X_test, y_test = make_checkerboard(20_000, seed=1)
    print(f"4 x 4 checkerboard, Gaussian kernel gamma = {GAMMA:g}; SVC with C = nu / 2")
    print(f"{'m':>5} {'nu':>6} | {'fixed pt [s]':>12} {'iter':>6} {'acc':>6} | {'Newton [s]':>10} "
          f"{'iter':>4} {'acc':>6} | {'SVC [s]':>7} {'acc':>6} | {'max |du|':>8} "
          f"{'Newton/SVC':>10} {'fixed/Newton':>12}")
    for m in args.sizes:
        X, y = make_checkerboard(m, seed=0)
        for nu in args.nu:
            t_fp, fp, f_fp = lsvm("fixed-point", X, y, X_test, nu)
            t_nt, nt, f_nt = lsvm("newton", X, y, X_test, nu)
            start = time.perf_counter()
            svc = SVC(C=nu / 2, kernel="rbf", gamma=GAMMA, tol=1e-3).fit(X, y)
            f_svc = svc.decision_function(X_test)
            t_svc = time.perf_counter() - start

            def acc(f):
                return np.mean(np.where(f >= 0, 1, -1) == y_test)

            print(f"{m:5d} {nu:6g} | {t_fp:12.2f} {fp.it:6d} {acc(f_fp):6.4f} | {t_nt:10.2f} "
                  f"{nt.it:4d} {acc(f_nt):6.4f} | {t_svc:7.2f} {acc(f_svc):6.4f} | "
                  f"{np.abs(fp.u - nt.u).max():8.1e} {t_nt / t_svc:10.2f} {t_fp / t_nt:12.1f}")


if __name__ == "__main__":
    main()
