"""The checks of the course assignments: one definition, run by the notebooks and by the grader.

A check is a generator function ``check(rng)``.  It draws its inputs with ``rng``, yields each
call of the student's function as a `Call` (the arguments: numpy arrays, numbers, booleans),
is sent back an `Outcome` (what the call returned or raised, as plain data), and raises
`AssertionError` with a diagnosis when an outcome is wrong.  It computes the right answers
itself, with ``ksvm``, and never touches the student's function.  So the same code runs in two
places:

* in the student's notebook, the check cell calls ``check_1(gaussian_gram)``: the calls are
  made at once in the student's kernel, and the diagnosis is the feedback;
* in the grader (``assignments/grade.py``), the generator runs in the grader's own process, and
  each call is made by the worker process that ran the submission
  (``assignments/sandbox.py``); only the inputs go there, only data comes back.

In both places a returned value goes through the same encoding (``assignments/wire.py``), so a
check sees the same thing in the notebook as in the grader.  Each assignment is a module here
with its checks in ``CHECKS``; `for_assignment` finds it from the assignment's name.
"""

import importlib
import json
import sys
import tracemalloc
from dataclasses import dataclass, field

import numpy as np

from assignments.wire import decode, encode, read_exception, typename

__all__ = ["Call", "Check", "Outcome", "SubmissionError", "call", "check", "close", "for_assignment",
           "parts", "relative_error", "typename", "vector_and_number"]

#: The assignments, by the name in their notebook's metadata, and the module of their checks.
MODULES = {
    "01_gram_mercer": "assignments.checks.gram_mercer",
    "02_lsvm_linear": "assignments.checks.lsvm_linear",
    "03_rlsc_bordered": "assignments.checks.rlsc_bordered",
    "04_rho1": "assignments.checks.rho1",
}


def for_assignment(name):
    """The module of the checks of the assignment ``name``, or None."""
    module = MODULES.get(name)
    return importlib.import_module(module) if module else None


@dataclass
class Call:
    """One call of the student's function: positional and keyword arguments, all plain data.

    ``memory`` (bytes), if given, is what the call may allocate: the notebook measures it with
    ``tracemalloc``, the grader runs the call with only that much more address space.
    """

    args: tuple
    kwargs: dict = field(default_factory=dict)
    memory: int | None = None


def call(*args, memory=None, **kwargs):
    """The `Call` of the student's function with these arguments (what a check yields)."""
    return Call(args, kwargs, memory)


class SubmissionError(Exception):
    """The student's function raised ``name``; in the grader, this stands for that exception."""

    def __init__(self, name, message):
        super().__init__(message)
        self.name, self.message = name, message


@dataclass
class Outcome:
    """What a call gave: ``raised`` names the classes of the exception it raised (most derived
    first), empty if it returned ``returned`` (plain data).  ``peak`` is the memory it
    allocated, where that was measured."""

    function: str
    returned: object = None
    raised: tuple = ()
    message: str = ""
    peak: int | None = None
    exception: BaseException | None = None  # the exception itself, in the notebook only

    def raised_a(self, name):
        """Whether the call raised an instance of the class ``name`` (or of a subclass)."""
        return name in self.raised

    @property
    def result(self):
        """What the function returned; if it raised, that exception (in the grader, a `SubmissionError`)."""
        if not self.raised:
            return self.returned
        if self.raised_a("ValueError") and "read-only" in self.message:
            raise AssertionError(f"{self.function} writes into its input array ({self.message}): work on a copy")
        if self.exception is not None:
            raise self.exception
        raise SubmissionError(self.raised[0], self.message)

    def expect_raised(self, name, why):
        """Pass if the call raised ``name`` (or a subclass); otherwise fail, saying ``why`` it should have.

        A stub's NotImplementedError, an AssertionError and a write into a read-only input are
        raised as they are.
        """
        if self.raised_a(name) and "read-only" not in self.message:
            return
        if not self.raised:
            raise AssertionError(f"{why}; it returned {self.returned!r}")
        if self.raised_a("AssertionError") or self.raised_a("NotImplementedError") or "read-only" in self.message:
            self.result
        raise AssertionError(f"{why}; it raised {self.raised[0]}: {self.message}")

    @classmethod
    def from_reply(cls, function, reply):
        """The outcome that the grader reads from a worker's reply (untrusted; checked)."""
        from assignments.wire import WireError

        try:
            if set(reply) == {"seq", "value"}:
                return cls(function, returned=decode(reply["value"]))
            if set(reply) == {"seq", "raised"}:
                names, message = read_exception(reply["raised"])
                return cls(function, raised=names, message=message)
            raise WireError(f"keys {sorted(reply)}")
        except WireError as exc:
            return cls(function, raised=("UnreadableResult",), message=f"the grader could not read the result: {exc}")


class Check:
    """A check of one student's function: ``Check N: title`` (the first line of its cell)."""

    def __init__(self, number, title, function, generate):
        self.number, self.title, self.function, self.generate = number, title, function, generate
        self.__doc__ = generate.__doc__

    @property
    def name(self):
        return f"Check {self.number}: {self.title}"

    def __repr__(self):
        return f"<{self.name}>"

    def run(self, invoke, rng):
        """Drive the check: ``invoke(Call) -> Outcome`` makes each call.  Raises if the check fails."""
        steps = self.generate(rng)
        try:
            request = next(steps)
            while True:
                request = steps.send(invoke(request))
        except StopIteration:
            return
        finally:
            steps.close()

    def __call__(self, function, rng=None):
        """Run the check on ``function`` here (in the notebook) and print that it passed."""
        rng = np.random.default_rng() if rng is None else rng
        self.run(local_invoke(function, self.function), rng)
        print(f"check {self.number} passed")


def check(number, title, function):
    """Make the generator function below a `Check` of the student's function named ``function``."""
    return lambda generate: Check(number, title, function, generate)


def _read_only(value):
    if isinstance(value, np.ndarray):
        value = np.array(value)
        value.flags.writeable = False
    return value


def _ksvm_caller(frame):
    module = frame.f_globals.get("__name__", "")
    if isinstance(module, str) and (module == "ksvm" or module.startswith("ksvm.")):
        return f"{module}.{frame.f_code.co_name}"
    return None


def local_invoke(function, name):
    """Make calls of ``function`` in this process: the notebook's side of `Check.run`.

    The arguments are passed as read-only copies.  A call that runs any code of ksvm, however
    it reached it (a name, an alias, importlib, ``__import__``), fails the check.
    """

    def invoke(request):
        args = [_read_only(a) for a in request.args]
        kwargs = {k: _read_only(v) for k, v in request.kwargs.items()}
        used = []

        def profile(frame, event, arg):
            if event == "call" and not used:
                caller = _ksvm_caller(frame)
                if caller:
                    used.append(caller)

        previous = sys.getprofile()
        if request.memory is not None:
            tracemalloc.start()
        sys.setprofile(profile)
        try:
            returned = function(*args, **kwargs)
        except Exception as exc:
            outcome = Outcome(name, raised=tuple(c.__name__ for c in type(exc).__mro__ if c is not object),
                              message=str(exc), exception=exc)
        else:
            outcome = Outcome(name, returned=decode(json.loads(json.dumps(encode(returned)))))
        finally:
            sys.setprofile(previous)
            if request.memory is not None:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
        if request.memory is not None:
            outcome.peak = peak
        if used:
            raise AssertionError(
                f"{name} calls {used[0]} from ksvm: write it yourself with numpy "
                "(ksvm is the reference that the checks compare with)")
        return outcome

    return invoke


def relative_error(a, b):
    """max |a - b| / max(1, max |b|)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def close(a, b, tol=1e-9):
    """Same shape, and `relative_error` at most ``tol``."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and relative_error(a, b) <= tol


def parts(out, k, what):
    """``out`` if it is a tuple of ``k`` parts; else AssertionError '{what}, got <type>'."""
    if not (isinstance(out, tuple) and len(out) == k):
        raise AssertionError(f"{what}, got {typename(out)}")
    return out


def vector_and_number(vector, number, n, names, stacked, where=""):
    """A vector of ``n`` floats and a number, the two parts of an answer named ``names``.

    A vector of n + 1 entries fails with the message ``stacked`` (the number stacked onto it).
    """
    vector = np.asarray(vector, dtype=float)
    if vector.shape == (n + 1,):
        raise AssertionError(stacked)
    if vector.shape != (n,):
        raise AssertionError(f"{names[0]} must be a vector of shape ({n},), got shape {vector.shape}{where}")
    if np.ndim(number) != 0:
        raise AssertionError(f"{names[1]} must be a number, got an array of shape {np.shape(number)}{where}")
    return vector, number
