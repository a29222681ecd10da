"""How every benchmark times: best of a few runs, with the BLAS threads it says.

A ratio of two times is only meaningful when both are measured the same way in
the same run: each script times ksvm and scikit-learn with :func:`best_of`,
inside :func:`blas_threads`, and prints :func:`blas_setting` with its results,
so that a reader knows how many BLAS threads the numbers had.
"""

import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from threadpoolctl import threadpool_info, threadpool_limits


def best_of(repeat, run):
    """Call ``run()`` ``repeat`` times; return the shortest wall time and the first result."""
    best, first = float("inf"), None
    for k in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
        if k == 0:
            first = result
    return best, first


@contextlib.contextmanager
def blas_threads(threads):
    """Pin the BLAS libraries (numpy's and scipy's OpenBLAS) to ``threads`` threads;
    None leaves them as they are."""
    if threads is None:
        yield
    else:
        with threadpool_limits(limits=threads, user_api="blas"):
            yield


def blas_setting():
    """One line: each BLAS library loaded, its kernels and its thread count."""
    return "; ".join(
        f"{info['internal_api']} {info.get('architecture', '?')} x {info['num_threads']} threads"
        for info in threadpool_info()
        if info["user_api"] == "blas"
    )


def peak_rss_bytes():
    """The process's peak resident memory so far, in bytes (Linux reports kilobytes).

    Run each measurement in a fresh process to read its own peak."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def in_fresh_process(module, function, args, threads=None):
    """``module.function(*args)`` in a new Python process, its JSON result returned.

    A fresh process has its own peak memory (:func:`peak_rss_bytes`) and its own
    BLAS thread count (``threads`` sets the environment before numpy loads).
    A run that fails returns ``{"failed": the end of its stderr}``.
    """
    code = (
        f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        f"import {module} as b; print(json.dumps(b.{function}(*{args!r})))"
    )
    env = dict(os.environ)
    if threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(threads)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        print(out.stderr[-2000:], file=sys.stderr)
        return {"failed": out.stderr[-500:]}
    return json.loads(out.stdout.strip().splitlines()[-1])
