"""Submissions that try to get marks without the answers, or to harm the grader: the catalogue.

Every attack is a student version of an assignment (or a solution, where the attack has to
survive alongside correct code) with a few lines appended to its first task cell, as a student
could write them.  Each entry says the score the submission must get and a text that its report
must show.  The first four got full marks (or a check) from the grader that ran the checks in the
submission's own kernel.
"""

import base64
import copy
import io
import os
import signal
import site
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import numpy as np
import pytest

from assignments import grade, sandbox, wire
from assignments.checks import Outcome

ROOT = Path(__file__).resolve().parents[1]
ESCAPE = f"/tmp/ksvm-grade-escape-{os.getpid()}"  # a file that no attack may leave behind


@dataclass
class Attack:
    code: str  # appended to the first task cell
    score: int  # the score it must get, out of 3
    shows: str  # a text its report must contain
    assignment: str = "01_gram_mercer"
    base: str = "student"  # or "solutions": the attack rides on a correct submission
    limits: sandbox.Limits = sandbox.Limits(timeout=20, grace=2)
    isolate: bool | None = None  # None: a user id of its own when possible; False: the grader's


LOOP = sandbox.Limits(timeout=1.5, grace=1)

CATALOGUE = {
    # IPython's hooks and its handling of exceptions, in the kernel that ran the checks
    "ipython-custom-exception-handler": Attack(
        "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)", 0,
        "NotImplementedError: gaussian_gram: write your code here"),
    "ipython-input-transformer-blanks-the-checks": Attack(
        "get_ipython().input_transformers_cleanup.append(\n"
        "    lambda lines: ['pass\\n'] if lines and lines[0].startswith('# Check') else lines)", 0,
        "NotImplementedError: polynomial_gram: write your code here"),
    "ipython-showtraceback-silenced": Attack(
        "get_ipython().showtraceback = lambda *a, **k: None", 0,
        "NotImplementedError: is_mercer: write your code here"),
    # builtins
    "builtins-rebound": Attack(
        "import builtins\nbuiltins.NotImplementedError = builtins.AssertionError = Warning\n"
        "builtins.print = lambda *a, **k: None", 0, "Warning: gaussian_gram: write your code here"),
    # monkeypatching numpy, ksvm and the checks' helpers
    "numpy-monkeypatched": Attack(
        "np.allclose = lambda *a, **k: True\nnp.max = lambda *a, **k: 0.0\n"
        "np.testing.assert_allclose = lambda *a, **k: None\n"
        "gaussian_gram = polynomial_gram = lambda X, Y, *a: np.ones((len(X), len(Y)))", 0,
        "gaussian_gram differs from ksvm.kernels.rbf_kernel"),
    "ksvm-monkeypatched": Attack(
        "import ksvm.kernels\n"
        "ksvm.kernels.rbf_kernel = rbf_kernel = lambda X, Y=None, gamma=None: np.ones((len(X), len(Y)))\n"
        "gaussian_gram = lambda X, Y, gamma: np.ones((len(X), len(Y)))", 0,
        "ksvm cannot be used while the grader runs a submission"),
    "checks-helpers-monkeypatched": Attack(
        "import assignments.checks as c\nc.close = lambda *a, **k: True\n"
        "gaussian_gram = lambda X, Y, gamma: np.ones((len(X), len(Y)))", 0,
        "No module named 'assignments'"),
    # forged outputs: the kernel's printout, the grader's channel, and values that lie
    "forged-printout": Attack(
        "print('check 1 passed\\ncheck 2 passed\\ncheck 3 passed\\nscore: 3/3')", 0,
        "NotImplementedError: gaussian_gram"),
    "forged-replies": Attack(
        "import json, os\n"
        "for fd in os.listdir('/proc/self/fd'):\n"
        "    for seq in range(1, 400):\n"
        "        try:\n"
        "            os.write(int(fd), (json.dumps({'seq': seq, 'value': {'bool': True}}) + '\\n').encode())\n"
        "        except OSError:\n"
        "            break", 0, "is_mercer returned True for a matrix whose symmetric part is PSD but which is not symmetric"),
    "flooded-channel": Attack(
        "import os\n"
        "for fd in os.listdir('/proc/self/fd')[3:]:\n"
        "    try:\n"
        "        os.write(int(fd), b'x' * (20 << 20))\n"
        "    except OSError:\n"
        "        pass", 0, "it wrote more than 16 MB on the grader's channel"),
    "forged-lying-array": Attack(
        "class LyingArray(np.ndarray):\n"
        "    __eq__ = __sub__ = __abs__ = __array_ufunc__ = lambda *a, **k: np.float64(0.0)\n"
        "gaussian_gram = lambda X, Y, gamma: np.ones((len(X), len(Y))).view(LyingArray)", 0,
        "FAIL  Check 1: gaussian_gram"),
    "forged-lying-float": Attack(
        "class Liar(float):\n"
        "    __eq__ = __ne__ = __le__ = __ge__ = __lt__ = __gt__ = lambda *a: True\n"
        "    __sub__ = __rsub__ = __abs__ = lambda *a: Liar(0.0)\n"
        "rho1 = lambda K, y: Liar(0.5)", 0, "rho1 = 0.500000, expected", assignment="04_rho1"),
    "forged-memory-measurement": Attack(
        "honest = lsvm_linear\n"
        "def lsvm_linear(A, d, nu, itmax=100, tol=1e-5):\n"
        "    import resource, tracemalloc\n"
        "    resource.setrlimit(resource.RLIMIT_AS, (resource.getrlimit(resource.RLIMIT_AS)[1],) * 2)\n"
        "    tracemalloc.get_traced_memory = lambda: (0, 0)\n"
        "    np.diag(np.asarray(d, dtype=float)).sum()  # an m x m matrix\n"
        "    return honest(A, d, nu, itmax=itmax, tol=tol)", 2,
        "lsvm_linear allocated more than 18 MB for m = 3000 points in 4 dimensions: it forms an m x m matrix",
        assignment="02_lsvm_linear", base="solutions"),
    # checks that could fail open: NaN and inf answers, uncompared calls, answers replayed by call count
    # (a function that a later task cell defines is replaced after each cell, by an IPython event)
    "nan-from-rlsc-solve-on-larger-problems": Attack(
        "def nan_on_larger_problems(K, y, lam):\n"
        "    n = len(y)\n"
        "    A = np.block([[K + lam * np.eye(n), np.ones((n, 1))], [np.ones((1, n)), np.zeros((1, 1))]])\n"
        "    solution = np.linalg.solve(A, np.append(y, 0.0))\n"
        "    return (np.full(n, np.nan), np.nan) if n > 15 else (solution[:n], float(solution[n]))\n"
        "get_ipython().events.register('post_run_cell', lambda *_: globals().update(rlsc_solve=nan_on_larger_problems))",
        1, "rlsc_solve returned c with", assignment="03_rlsc_bordered", base="solutions"),
    "inf-and-nan-from-rlsc-solve": Attack(
        "def inf_on_larger_problems(K, y, lam):\n"
        "    n = len(y)\n"
        "    A = np.block([[K + lam * np.eye(n), np.ones((n, 1))], [np.ones((1, n)), np.zeros((1, 1))]])\n"
        "    solution = np.linalg.solve(A, np.append(y, 0.0))\n"
        "    if n > 15:\n"
        "        solution[0], solution[1] = np.inf, np.nan\n"
        "    return solution[:n], float(solution[n])\n"
        "get_ipython().events.register('post_run_cell', lambda *_: globals().update(rlsc_solve=inf_on_larger_problems))",
        1, "1 NaN and 1 infinite entries", assignment="03_rlsc_bordered", base="solutions"),
    "nan-from-bordered-system": Attack(
        "honest = bordered_system\n"
        "def bordered_system(K, y, lam):\n"
        "    A, rhs = honest(K, y, lam)\n"
        "    return A * np.nan, rhs", 0,
        "bordered_system returned A with", assignment="03_rlsc_bordered", base="solutions"),
    "nan-w-from-lsvm-linear": Attack(
        "honest = lsvm_linear\n"
        "def lsvm_linear(A, d, nu, itmax=100, tol=1e-5):\n"
        "    w, gamma, it = honest(A, d, nu, itmax=itmax, tol=tol)\n"
        "    return np.full_like(w, np.nan), gamma, it", 0,
        "lsvm_linear returned w with", assignment="02_lsvm_linear", base="solutions"),
    "inf-gamma-from-lsvm-linear-stopped-early": Attack(
        "honest = lsvm_linear\n"
        "def lsvm_linear(A, d, nu, itmax=100, tol=1e-5):\n"
        "    w, gamma, it = honest(A, d, nu, itmax=itmax, tol=tol)\n"
        "    return w, (np.inf if itmax < 100 else gamma), it", 1,
        "lsvm_linear returned gamma = inf", assignment="02_lsvm_linear", base="solutions"),
    "garbage-from-lsvm-linear-in-its-memory-limited-call": Attack(
        "honest = lsvm_linear\n"
        "def lsvm_linear(A, d, nu, itmax=100, tol=1e-5):\n"
        "    if len(A) == 3000:  # the call under a memory limit: answer without allocating anything\n"
        "        return np.zeros(A.shape[1]), 0.0, itmax\n"
        "    return honest(A, d, nu, itmax=itmax, tol=tol)", 2,
        "in the call under a memory limit", assignment="02_lsvm_linear", base="solutions"),
    "nan-from-the-gram-functions": Attack(
        "def nan_gram(X, Y, *args):\n"
        "    return np.full((len(X), len(Y)), np.nan)\n"
        "get_ipython().events.register('post_run_cell', lambda *_: globals().update(\n"
        "    gaussian_gram=nan_gram, polynomial_gram=nan_gram))", 1,
        "polynomial_gram returned G with", base="solutions"),
    # the answers that the solution gives in check 3, in the order of the checks of commit 08ec03b
    "is-mercer-replays-a-table-by-call-count": Attack(
        "answers = [True, True, True, False, True, False, False, False, True, True, False, 'raise', 'raise']\n"
        "calls = []\n"
        "def replay(K, tol=1e-8):\n"
        "    answer = answers[len(calls) % len(answers)]\n"
        "    calls.append(answer)\n"
        "    if answer == 'raise':\n"
        "        raise ValueError('K must be a square matrix')\n"
        "    return answer\n"
        "get_ipython().events.register('post_run_cell', lambda *_: globals().update(is_mercer=replay))", 2,
        "FAIL  Check 3: is_mercer", base="solutions"),
    "rho1-replays-a-table-by-call-count": Attack(
        "honest = rho1\n"
        "answers = [0.0, 1.0, 0.5, 1.0, 0.0, 0.5, 'raise', 'raise']\n"
        "calls = []\n"
        "def rho1(K, y):\n"
        "    calls.append(1)\n"
        "    if len(calls) <= 9:  # the 4 calls of check 1 and the 5 of check 2\n"
        "        return honest(K, y)\n"
        "    answer = answers[(len(calls) - 10) % len(answers)]\n"
        "    if answer == 'raise':\n"
        "        raise ValueError('a class needs two examples')\n"
        "    return answer", 2, "FAIL  Check 3: the edge cases", assignment="04_rho1", base="solutions"),
    # ksvm through the back doors
    "ksvm-through-dunder-import": Attack(
        "gaussian_gram = lambda X, Y, gamma: getattr(__import__('ksvm.kernels', fromlist=['_']),\n"
        "                                           'rbf' + '_kernel')(X, Y, gamma=gamma)", 0,
        "ModuleNotFoundError: No module named 'ksvm': ksvm cannot be used"),
    "ksvm-through-importlib": Attack(
        "import importlib\n"
        "def gaussian_gram(X, Y, gamma):\n"
        "    return importlib.import_module('ksvm.kernels').rbf_kernel(X, Y, gamma=gamma)", 0,
        "ksvm cannot be used while the grader runs a submission"),
    "ksvm-from-its-source-path": Attack(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'Refuse' not in getattr(f, '__name__', '')]\n"
        "from ksvm.kernels import rbf_kernel as gaussian_gram", 0,
        "a submission may not use ksvm or the solutions"),
    "ksvm-through-the-editable-install": Attack(
        f"import site\nsite.addsitedir({site.getsitepackages()[0]!r})\n"
        "import sys\nsys.meta_path[:] = [f for f in sys.meta_path if 'Refuse' not in getattr(f, '__name__', '')]\n"
        "from ksvm.kernels import rbf_kernel as gaussian_gram", 0,
        "a submission may not use ksvm or the solutions"),
    "solution-read-from-disk": Attack(
        "import json\n"
        f"nb = json.load(open({str(ROOT / 'assignments' / 'solutions' / '01_gram_mercer.ipynb')!r}))\n"
        "exec('\\n'.join(''.join(c['source']) for c in nb['cells'] if 'BEGIN SOLUTION' in ''.join(c['source'])))",
        0, "a submission may not use ksvm or the solutions"),
    # SystemExit, os._exit, killing the kernel or the grader
    "system-exit": Attack(
        "import sys\ngaussian_gram = lambda X, Y, gamma: sys.exit(0)\nexit()\nraise SystemExit(3)", 0,
        "SystemExit: 0"),
    "os-exit": Attack("import os\nos._exit(0)", 0,
                      "its process ended with exit status 0 (sys.exit, os._exit or a crash) (cell 3)"),
    "kills-its-kernel": Attack("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", 0,
                               "its process was ended by the signal SIGKILL"),
    "kills-the-grader": Attack("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", 0,
                               "it tried to send a signal to the process"),
    # time, memory, processes, output, files, network, limits
    "endless-loop": Attack("while True:\n    pass", 0, "was interrupted after the timeout of 1.5 s",
                           limits=LOOP),
    "endless-loop-deaf-to-interrupts": Attack(
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass", 0,
        "it did not stop within 1 s of the interrupt that followed the timeout of 1.5 s", limits=LOOP),
    "endless-loop-in-a-graded-call": Attack(
        "def gaussian_gram(X, Y, gamma):\n    while True:\n        pass", 0,
        "TimeoutError: gaussian_gram was interrupted after the timeout of 1.5 s", limits=LOOP),
    "memory-bomb": Attack("blocks = [np.empty(10**7) for _ in iter(int, 1)]", 0,
                          "90% or more of its limit of 2048 MB"),
    "fork": Attack("import os\nos.fork()", 0, "it tried to start a process (os.fork)"),
    "fork-from-a-correct-submission": Attack("import os\nos.fork()", 0, "it tried to start a process (os.fork)",
                                             base="solutions"),
    "shell-command": Attack("import subprocess\nsubprocess.run(['sh', '-c', 'echo pwned'])", 0,
                            "it tried to start a process (subprocess.Popen)"),
    "huge-print": Attack("print('x' * 10**8)", 0, "it printed more than 1 MB"),
    "file-outside-the-work-directory": Attack(
        f"open({ESCAPE!r}, 'w').write('x')", 0, f"it tried to write {ESCAPE}, outside its working directory"),
    "file-outside-through-a-link": Attack(
        f"import os\nos.symlink({os.path.dirname(ESCAPE)!r}, 'out')\nopen('out/{os.path.basename(ESCAPE)}', 'w')",
        0, f"it tried to write {ESCAPE}, outside its working directory"),
    "network": Attack("import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)", 0,
                      "it tried to use the network (socket.connect)"),
    "raises-its-limits": Attack("import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))", 0,
                                "it tried to raise a hard resource limit"),
    "guard-tampered": Attack(
        "import gc\nfor f in gc.get_objects():\n    if getattr(f, '__name__', '') == 'guard':\n"
        "        f.__code__ = (lambda *a: None).__code__", 0, "it tried to change the grader's guard"),
    # the same harm, with the worker under the grader's own user id (the grader not run as root)
    "fork-same-user": Attack("import os\nos.fork()", 0, "it tried to start a process (os.fork)", isolate=False),
    "file-outside-same-user": Attack(f"open({ESCAPE!r}, 'w').write('x')", 0,
                                     f"it tried to write {ESCAPE}", isolate=False),
    "kills-the-grader-same-user": Attack("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", 0,
                                         "it tried to send a signal to the process", isolate=False),
}


def attacked(attack):
    folder = ROOT / "assignments" / attack.base
    nb = copy.deepcopy(nbformat.read(folder / f"{attack.assignment}.ipynb", as_version=4))
    task = next(c for c in nb.cells if c.cell_type == "code" and c.get("id", "").startswith("task"))
    task.source += "\n" + attack.code
    return nb


@pytest.fixture(scope="module")
def graded():
    def run(name):
        attack = CATALOGUE[name]
        return grade.grade_notebook(attacked(attack), limits=attack.limits, isolate=attack.isolate)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(CATALOGUE, pool.map(run, CATALOGUE)))


@pytest.mark.parametrize("name", CATALOGUE)
def test_attack(graded, name):
    attack, result = CATALOGUE[name], graded[name]
    report = grade.format_result(result)
    assert result.total == 3 and result.score == attack.score, report
    assert attack.shows in report, report
    assert not os.path.exists(ESCAPE)


def test_the_catalogue_is_complete():
    assert len(CATALOGUE) >= 12
    topics = ["ipython", "builtins", "numpy", "ksvm", "checks-helpers", "forged", "system-exit", "os-exit",
              "endless-loop", "memory-bomb", "fork", "huge-print", "file-outside"]
    for topic in topics:
        assert any(name.startswith(topic) for name in CATALOGUE), topic


# Values that are not plain data never reach the checks.


@pytest.mark.parametrize("forged", [
    {"value": {"other": "x", "repr": "y", "extra": 1}},
    {"value": {"array": "not base64!"}},
    {"value": {"scalar": "O", "value": 1}},
    {"value": {"scalar": "V8", "value": 1}},
    {"value": {"float": "1.0"}},
    {"value": {"int": True}},
    {"value": {"tuple": [{"tuple": [{"tuple": [{"tuple": [{"tuple": [{"none": None}]}]}]}]}]}},
    {"raised": {"names": "ValueError", "message": "x"}},
    {"value": {"bool": True}, "extra": 1},
])
def test_malformed_replies_are_unreadable_results(forged):
    outcome = Outcome.from_reply("f", {"seq": 1, **forged})
    assert outcome.raised == ("UnreadableResult",)
    with pytest.raises(Exception, match="could not read the result"):
        outcome.result


def _npy(array=None, header=None, cut=None, allow_pickle=False):
    buffer = io.BytesIO()
    if header is None:
        np.save(buffer, array, allow_pickle=allow_pickle)
    else:
        np.lib.format.write_array_header_1_0(buffer, header)
    return {"array": base64.b64encode(buffer.getvalue()[:cut]).decode()}


def test_pickled_object_huge_and_truncated_arrays_are_refused():
    for array in (np.array([object()]), np.array(["text"])):
        assert set(wire.encode(array)) == {"other", "repr"}
    forged = {
        "not plain numbers": _npy(np.array([{"a": 1}], dtype=object), allow_pickle=True),
        "larger than allowed": _npy(header={"descr": "<f8", "fortran_order": False, "shape": (10**9,)}),
        "truncated or malformed": _npy(np.zeros((100, 100)), cut=300),
    }
    for match, value in forged.items():
        with pytest.raises(wire.WireError, match=match):
            wire.decode(value)


def test_an_honest_submission_under_the_graders_user_id():
    result = grade.grade_file(ROOT / "assignments" / "solutions" / "04_rho1.ipynb", isolate=False)
    assert result.score == result.total == 3 and result.notes == [], grade.format_result(result)


def test_ordinary_habits_do_not_stop_a_correct_submission():
    """Plots, magics, warnings and files in the working directory are not attacks."""
    nb = copy.deepcopy(nbformat.read(ROOT / "assignments" / "solutions" / "01_gram_mercer.ipynb", as_version=4))
    nb.cells[1].source = "%matplotlib inline\n" + nb.cells[1].source
    nb.cells.append(nbformat.v4.new_code_cell(
        "import matplotlib.pyplot as plt\nimport tempfile, warnings\nfrom IPython.display import display\n"
        "G = gaussian_gram(np.eye(3), np.eye(3), 1.0)\nplt.imshow(G)\nplt.savefig('gram.png')\nplt.show()\n"
        "np.save('gram.npy', G)\ndisplay(np.load('gram.npy'))\nwarnings.warn('a warning')\n"
        "with tempfile.TemporaryDirectory() as d:\n    open(d + '/x.txt', 'w').write('x')\n"
        "%timeit -n1 -r1 gaussian_gram(G, G, 1.0)", id="habits"))
    result = grade.grade_notebook(nb)
    assert result.score == result.total == 3 and result.notes == [], grade.format_result(result)


def test_an_endless_loop_is_interrupted_when_the_grader_was_started_ignoring_sigint():
    # A grader started in the background of a script or under nohup ignores SIGINT, and its
    # workers would inherit that across exec: the interrupt after a timeout must still work.
    attack = CATALOGUE["endless-loop"]
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        result = grade.grade_notebook(attacked(attack), limits=attack.limits, isolate=attack.isolate)
    finally:
        signal.signal(signal.SIGINT, previous)
    report = grade.format_result(result)
    assert result.score == 0 and attack.shows in report, report
