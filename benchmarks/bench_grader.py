"""Time the course grader on a class's worth of submissions: ``grade.py --jobs 2`` on 40 notebooks.

The 40 submissions are the four reference solutions, ten copies of each, so that every check runs
to the end (a stub fails early and would time less).  The grader runs in a fresh Python process,
as an instructor starts it, ``--repeat`` times; printed: the best wall time and CPU time of the
whole run (the grader and its workers), the time per submission, and the BLAS threads.  Not a
test: nothing is asserted.

    python benchmarks/bench_grader.py [--tree PATH] [--copies 10] [--jobs 2] [--repeat 3] [--json PATH]

``--tree`` grades with the grader of another checkout of the repository (a worktree of an earlier
commit, for a before-and-after ratio measured in one run); it defaults to this one.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("01_gram_mercer", "02_lsvm_linear", "03_rlsc_bordered", "04_rho1")


def run(tree, folder, jobs):
    """Wall and CPU seconds (this process's children) of one grading of every notebook in ``folder``."""
    files = sorted(str(p) for p in folder.glob("*.ipynb"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "assignments/grade.py", *files, "--jobs", str(jobs),
                           "--json", str(folder / "grades.json")],
                          cwd=tree, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1",
                               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    grades = json.loads((folder / "grades.json").read_text())
    if any(g["score"] != g["total"] for g in grades):
        raise SystemExit("a reference solution did not get full marks:\n" + done.stdout)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose grader runs")
    parser.add_argument("--copies", type=int, default=10, help="copies of each solution (default: 10)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    with tempfile.TemporaryDirectory(prefix="ksvm-bench-grader-") as folder:
        folder = Path(folder)
        for name in NAMES:
            for copy in range(args.copies):
                shutil.copy(tree / "assignments" / "solutions" / f"{name}.ipynb", folder / f"{name}-{copy:02d}.ipynb")
        runs = [run(tree, folder, args.jobs) for _ in range(args.repeat)]
    wall, cpu = min(w for w, _ in runs), min(c for _, c in runs)
    count = args.copies * len(NAMES)
    result = dict(tree=str(tree), submissions=count, jobs=args.jobs, repeat=args.repeat, wall_s=round(wall, 2),
                  cpu_s=round(cpu, 2), wall_per_submission_s=round(wall / count, 3), blas_threads=1)
    print(json.dumps(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
