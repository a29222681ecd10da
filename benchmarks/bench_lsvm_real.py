"""The kernel LSVM against SVC on data nobody tuned the solvers to: fit times alone.

Two data sets that ship with scikit-learn, standardised: the breast cancer set (569
points, 30 features) and the digits as even against odd (1797 points, 64 features).
For each ``nu``, ``LagrangianSVC(kernel='rbf', gamma='scale', nu=nu)`` with its default
solver (each record says which one ran) and ``SVC(C=nu/2, kernel='rbf',
gamma='scale')`` are fitted on the training part of each of 5 stratified folds, back
to back; each fit is repeated ``--repeat`` times and the shortest kept, and the
folds' shortest times are added up.  The accuracy is the mean over the held-out
folds.  BLAS runs on one thread (pinned and printed), as libsvm.  Not a test: nothing
is asserted.

    python benchmarks/bench_lsvm_real.py [--repeat 7] [--json benchmarks/results/lsvm_real.json]
"""

import argparse
import json
import time
from pathlib import Path

from _timing import blas_setting, blas_threads
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from ksvm.lsvm import LagrangianSVC

NUS = (1.0, 10.0, 100.0, 1000.0)


def data_sets():
    """``{name: (X standardised, y)}``."""
    cancer = load_breast_cancer()
    digits = load_digits()
    return {
        "breast cancer": (StandardScaler().fit_transform(cancer.data), cancer.target),
        "digits, even / odd": (StandardScaler().fit_transform(digits.data), digits.target % 2),
    }


def shortest_fit(model, X, y, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        model.fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best


def run(X, y, nu, repeat):
    """Summed shortest fit times and mean held-out accuracy of both, over 5 folds."""
    record = {"lsvm": {"seconds": 0.0, "accuracy": 0.0}, "svc": {"seconds": 0.0, "accuracy": 0.0}}
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0).split(X, y)
    for train, test in folds:
        lsvm = LagrangianSVC(kernel="rbf", gamma="scale", nu=nu)
        svc = SVC(C=nu / 2, kernel="rbf", gamma="scale", tol=1e-3)
        for key, model in (("lsvm", lsvm), ("svc", svc)):
            record[key]["seconds"] += shortest_fit(model, X[train], y[train], repeat)
            record[key]["accuracy"] += model.score(X[test], y[test]) / 5
        record["lsvm"]["solver"] = lsvm.solver_
    record["ratio"] = record["lsvm"]["seconds"] / record["svc"]["seconds"]
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None, help="store the runs here")
    args = parser.parse_args()
    results = []
    with blas_threads(1):
        print(f"BLAS: {blas_setting()}; 5 folds, best of {args.repeat} fits each, summed")
        print(f"{'data':<20} {'nu':>6} {'solver':<10} {'LSVM [s]':>9} {'SVC [s]':>8} "
              f"{'ratio':>6} {'acc LSVM':>9} {'acc SVC':>8}")  # fmt: skip
        for name, (X, y) in data_sets().items():
            for nu in NUS:
                r = run(X, y, nu, args.repeat)
                r.update(data=name, nu=nu, n=int(X.shape[0]), d=int(X.shape[1]))
                results.append(r)
                lsvm, svc = r["lsvm"], r["svc"]
                print(
                    f"{name:<20} {nu:6g} {lsvm['solver']:<10} {lsvm['seconds']:9.4f} "
                    f"{svc['seconds']:8.4f} {r['ratio']:6.2f} {lsvm['accuracy']:9.4f} "
                    f"{svc['accuracy']:8.4f}",
                    flush=True,
                )
        blas = blas_setting()
    if args.json:
        args.json.write_text(
            json.dumps({"blas": blas, "repeat": args.repeat, "runs": results}, indent=1)
        )
        print(f"written to {args.json}")


if __name__ == "__main__":
    main()
