"""The LSVM dual solved two ways, against SVC, on the checkerboard.

For each size and ``nu`` the Gaussian-kernel LSVM dual (11) is solved by the
authors' fixed-point iteration (``lsvm_kernel``, Code 3, tol 1e-5) and by the
active-set Newton method (``lsvm_kernel_newton``); scikit-learn's ``SVC``
(libsvm, ``C = nu / 2``) solves the comparable hinge-loss problem.  All times
include the Gram matrix and the prediction of 20 000 test points, and are the
best of ``--repeat`` runs (the fixed point runs once, and only where
``m * nu`` is at most ``--fixed-point-limit``: its iterations grow like ``nu``
and each costs ``m^2``); BLAS runs on ``--threads`` threads (default 1, as
libsvm).  Prints iterations, test accuracy, the largest difference between the
two LSVM solutions relative to the largest u, and the ratios Newton / SVC and
fixed point / Newton measured in this run, and writes them to
benchmarks/results/lsvm_newton.json (read by the book's chapter on the Newton
solver).  Not a test: nothing is asserted.

    python benchmarks/bench_lsvm_newton.py [--sizes 1000 2000 5000] [--nu 1 10 100 1000]
"""

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
from _timing import best_of, blas_setting, blas_threads
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from ksvm import kernels
from ksvm.datasets import make_checkerboard
from ksvm.lsvm import augment, lsvm_kernel, lsvm_kernel_newton

GAMMA = 100.0
RESULTS = Path(__file__).resolve().parent / "results" / "lsvm_newton.json"


def lsvm(solver, X, y, X_test, nu, itmax):
    G = augment(X)
    K = kernels.rbf_kernel(G, gamma=GAMMA)
    if solver == "newton":
        r = lsvm_kernel_newton(K, y, nu, itmax=200)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            r = lsvm_kernel(K, y, nu, itmax=itmax, tol=1e-5)
    support = np.flatnonzero(y * (K @ (y * r.u)) < 1)  # as LagrangianSVC.support_
    f = kernels.rbf_kernel(augment(X_test), G[support], gamma=GAMMA) @ (y * r.u)[support]
    return r, f


def svc(X, y, X_test, nu):
    model = SVC(C=nu / 2, kernel="rbf", gamma=GAMMA, tol=1e-3).fit(X, y)
    return model, model.decision_function(X_test)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000])
    parser.add_argument("--nu", type=float, nargs="+", default=[1.0, 10.0, 100.0, 1000.0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--fixed-point-itmax", type=int, default=100_000)
    parser.add_argument("--fixed-point-limit", type=float, default=2e5,
                        help="run the fixed point only where m * nu is at most this (its "
                             "iterations grow like nu, each costs m^2)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    X_test, y_test = make_checkerboard(20_000, seed=1)
    records = []
    print(f"4 x 4 checkerboard, Gaussian kernel gamma = {GAMMA:g}; SVC with C = nu / 2; "
          f"{args.threads} BLAS thread(s), best of {args.repeat}")
    print(f"{'m':>5} {'nu':>6} | {'fixed pt [s]':>12} {'iter':>6} {'acc':>6} | {'Newton [s]':>10} "
          f"{'iter':>4} {'acc':>6} | {'SVC [s]':>7} {'acc':>6} | {'max |du|/u':>10} "
          f"{'Newton/SVC':>10} {'fixed/Newton':>12}", flush=True)
    with blas_threads(args.threads):
        print(f"BLAS: {blas_setting()}")
        for m in args.sizes:
            X, y = make_checkerboard(m, seed=0)
            for nu in args.nu:
                run_fp = m * nu <= args.fixed_point_limit
                if run_fp:
                    t_fp, (fp, f_fp) = best_of(
                        1, lambda: lsvm("fixed-point", X, y, X_test, nu, args.fixed_point_itmax)
                    )
                t_nt, (nt, f_nt) = best_of(args.repeat, lambda: lsvm("newton", X, y, X_test, nu, 0))
                t_svc, (model, f_svc) = best_of(args.repeat, lambda: svc(X, y, X_test, nu))

                def acc(f):
                    return float(np.mean(np.where(f >= 0, 1, -1) == y_test))

                record = {
                    "m": m, "nu": nu,
                    "fixed_point": {"seconds": t_fp, "iterations": fp.n_iter, "converged": fp.converged,
                                    "accuracy": acc(f_fp),
                                    "max_du_relative": float(np.abs(fp.u - nt.u).max() / nt.u.max())}
                    if run_fp else None,
                    "newton": {"seconds": t_nt, "iterations": nt.n_iter, "accuracy": acc(f_nt),
                               "support_vectors": int(np.sum(nt.u > 0))},
                    "svc": {"seconds": t_svc, "accuracy": acc(f_svc),
                            "support_vectors": int(model.support_.size)},
                }
                records.append(record)
                if run_fp:
                    fixed = (f"{t_fp:12.2f} {fp.n_iter:6d} {acc(f_fp):6.4f}", f"{t_fp / t_nt:12.1f}",
                             f"{record['fixed_point']['max_du_relative']:10.1e}")
                else:
                    fixed = (f"{'-':>12} {'-':>6} {'-':>6}", f"{'-':>12}", f"{'-':>10}")
                print(f"{m:5d} {nu:6g} | {fixed[0]} | {t_nt:10.2f} {nt.n_iter:4d} {acc(f_nt):6.4f} | "
                      f"{t_svc:7.2f} {acc(f_svc):6.4f} | {fixed[2]} {t_nt / t_svc:10.2f} {fixed[1]}",
                      flush=True)
    args.output.parent.mkdir(exist_ok=True)
    args.output.write_text(json.dumps({
        "gamma": GAMMA, "threads": args.threads, "repeat": args.repeat, "test_points": len(y_test),
        "fixed_point_tol": 1e-5, "fixed_point_itmax": args.fixed_point_itmax, "records": records,
    }, indent=1) + "\n")
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
