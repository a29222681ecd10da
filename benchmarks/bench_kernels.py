"""Time the Gram matrices of ksvm.kernels against sklearn.metrics.pairwise, and its blocks.

Prints, for each kernel and size, the best of several runs for each library
and the ratio ksvm / scikit-learn measured in this one run (below 1 means
ksvm is faster).  Then the blocks the estimators compute through
``make_kernel``: a prediction block ``k(T, X)`` of 2000 test points against
the training points, and blocks of rows ``k(X[rows], X)`` written into a
buffer, as the rows solvers' cache asks for them (the Gaussian block the
solvers use).  Not a test: nothing here asserts a time.

    python benchmarks/bench_kernels.py [--repeat 5]
"""

import argparse

import numpy as np
from _timing import best_of, blas_setting
from sklearn.metrics import pairwise

from ksvm import kernels

PAIRS = {
    "linear": (kernels.linear_kernel, pairwise.linear_kernel, {}),
    "poly": (
        kernels.polynomial_kernel,
        pairwise.polynomial_kernel,
        {"degree": 3, "gamma": 0.1, "coef0": 1.0},
    ),
    "rbf": (kernels.rbf_kernel, pairwise.rbf_kernel, {"gamma": 0.1}),
    "sigmoid": (kernels.sigmoid_kernel, pairwise.sigmoid_kernel, {"gamma": 0.01, "coef0": 0.5}),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"BLAS: {blas_setting()}")
    print(f"{'kernel':8} {'n':>6} {'d':>4} {'ksvm [ms]':>10} {'sklearn [ms]':>13} {'ratio':>6}")
    for n, d in [(1000, 10), (3000, 50), (5000, 100)]:
        X = rng.standard_normal((n, d))
        for name, (ours, theirs, params) in PAIRS.items():
            t_ours = best_of(args.repeat, lambda: ours(X, **params))[0]
            t_theirs = best_of(args.repeat, lambda: theirs(X, **params))[0]
            print(
                f"{name:8} {n:6d} {d:4d} {1e3 * t_ours:10.1f} {1e3 * t_theirs:13.1f} "
                f"{t_ours / t_theirs:6.2f}"
            )
    blocks(rng, args.repeat)


def blocks(rng, repeat):
    """The blocks of make_kernel's kernels: prediction, and rows into a buffer."""
    print(f"\n{'block':16} {'m':>6} {'d':>4} {'rows':>5} {'ksvm [ms]':>10}")
    params = {"gamma": 0.1, "degree": 3, "coef0": 1.0}
    for m, d in [(20000, 10), (5000, 100)]:
        X, T = rng.standard_normal((m, d)), rng.standard_normal((2000, d))
        for name in ["linear", "poly", "rbf"]:
            k = kernels.make_kernel(name, **params)
            t = best_of(repeat, lambda: k(T, X))[0]
            print(f"{'predict ' + name:16} {m:6d} {d:4d} {2000:5d} {1e3 * t:10.1f}")
        rbf = kernels.RBFBlock(0.1, X)  # what the rows solvers give their cache
        for rows in [16, 256]:
            idx = rng.choice(m, rows, replace=False)
            out = np.empty((rows, m))
            t = best_of(5 * repeat, lambda: rbf(X[idx], X, out=out))[0]
            print(f"{'rows rbf':16} {m:6d} {d:4d} {rows:5d} {1e3 * t:10.2f}")


if __name__ == "__main__":
    main()
