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

A check must not fail open.  It reads every value of an outcome through `finite`, `number`,
`whole_number` or `boolean`, which refuse NaN, inf and what is not a number, before it compares
it; it writes every comparison so that it passes only when it holds (``if not (err <= tol):``
fails a NaN, ``if err > tol:`` would not); it compares the answer of every call it makes; and
it draws its cases with ``rng`` and asks them through `in_random_order`, so that no table of
answers replayed by the count of calls can pass.
"""

import importlib
import inspect
import json
import sys
import threading
import tracemalloc
import warnings
from dataclasses import dataclass, field

import numpy as np

from assignments.wire import Opaque, decode, encode, read_exception, typename

__all__ = [
    "Call",
    "Check",
    "Outcome",
    "SubmissionError",
    "boolean",
    "call",
    "check",
    "close",
    "finite",
    "for_assignment",
    "in_random_order",
    "number",
    "parts",
    "quietly",
    "relative_error",
    "typename",
    "vector",
    "vector_and_number",
    "vector_number_and_count",
    "whole_number",
]

#: The assignments, by the name in their notebook's metadata, and the module of their checks.
MODULES = {
    "01_gram_mercer": "assignments.checks.gram_mercer",
    "02_lsvm_linear": "assignments.checks.lsvm_linear",
    "03_rlsc_bordered": "assignments.checks.rlsc_bordered",
    "04_rho1": "assignments.checks.rho1",
    "05_smo": "assignments.checks.smo",
    "06_svm_decision": "assignments.checks.svm_decision",
    "07_klr_newton": "assignments.checks.klr_newton",
    "08_lsvm_kernel": "assignments.checks.lsvm_kernel",
    "09_weighted_ascent": "assignments.checks.weighted_ascent",
    "10_capstone": "assignments.checks.capstone",
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
        """What the function returned; if it raised, that exception is raised again (in the
        grader, as a `SubmissionError`)."""
        if not self.raised:
            return self.returned
        self.raise_again()

    def raise_again(self):
        """Raise the exception the call raised (a write into a read-only input as a hint)."""
        if self.raised_a("ValueError") and "read-only" in self.message:
            raise AssertionError(
                f"{self.function} writes into its input array ({self.message}): work on a copy"
            )
        if self.exception is not None:
            raise self.exception
        raise SubmissionError(self.raised[0], self.message)

    def expect_raised(self, name, why):
        """Pass if the call raised ``name`` (or a subclass); otherwise fail, saying ``why`` it
        should have.

        A stub's NotImplementedError, an AssertionError and a write into a read-only input are
        raised as they are.
        """
        if self.raised_a(name) and "read-only" not in self.message:
            return
        if not self.raised:
            raise AssertionError(f"{why}; it returned {self.returned!r}")
        if (
            self.raised_a("AssertionError")
            or self.raised_a("NotImplementedError")
            or "read-only" in self.message
        ):
            self.raise_again()
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
            return cls(
                function,
                raised=("UnreadableResult",),
                message=f"the grader could not read the result: {exc}",
            )


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
        """Drive the check: ``invoke(Call) -> Outcome`` makes each call.

        Raises if the check fails."""
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
        self.run(local_invoke(function, self.function, forbidden_of(self)), rng)
        print(f"check {self.number} passed")


def check(number, title, function):
    """Make the generator function below a `Check` of the student's function named ``function``."""
    return lambda generate: Check(number, title, function, generate)


def _read_only(value):
    if isinstance(value, np.ndarray):
        value = np.array(value)
        value.flags.writeable = False
    return value


def forbidden_of(check):
    """The packages that the function of ``check`` may not use: ``ksvm``, and the ``FORBIDDEN``
    names of its assignment's module (such as ``"sklearn.svm"``, where scikit-learn's answer is
    what the check compares with)."""
    module = sys.modules.get(getattr(check.generate, "__module__", ""), None)
    return ("ksvm", *getattr(module, "FORBIDDEN", ()))


def _forbidden_caller(frame, forbidden):
    module = frame.f_globals.get("__name__", "")
    if isinstance(module, str):
        for package in forbidden:
            if module == package or module.startswith(package + "."):
                return package, f"{module}.{frame.f_code.co_name}"
    return None


def local_invoke(function, name, forbidden=("ksvm",)):
    """Make calls of ``function`` in this process: the notebook's side of `Check.run`.

    The arguments are passed as read-only copies.  A call that runs any code of a ``forbidden``
    package (ksvm, and what the assignment names), however it reached it (a name, an alias,
    importlib, ``__import__``), fails the check.
    """

    def invoke(request):
        args = [_read_only(a) for a in request.args]
        kwargs = {k: _read_only(v) for k, v in request.kwargs.items()}
        used = []

        def profile(frame, event, arg):
            if event == "call" and not used:
                caller = _forbidden_caller(frame, forbidden)
                if caller:
                    used.append(caller)

        previous = sys.getprofile()
        if request.memory is not None:
            tracemalloc.start()
        sys.setprofile(profile)
        try:
            returned = function(*args, **kwargs)
        except Exception as exc:
            outcome = Outcome(
                name,
                raised=tuple(c.__name__ for c in type(exc).__mro__ if c is not object),
                message=str(exc),
                exception=exc,
            )
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
            package, caller = used[0]
            raise AssertionError(
                f"{name} calls {caller} from {package}: write it yourself with numpy "
                f"({package} is the reference that the checks compare with)"
            )
        return outcome

    return invoke


_WARNINGS = threading.Lock()


def quietly(category, function, *args, **kwargs):
    """``function(*args, **kwargs)`` with the warnings of ``category`` ignored (a reference that
    warns when it stops at max_iter, as the check asks it to).

    The grader runs the checks of two submissions at once, in threads, and
    `warnings.catch_warnings` changes the filters of the whole process: two such blocks that
    overlap can leave a filter on, or let the warning through.  Every check that silences a
    warning does it here, one at a time."""
    with _WARNINGS, warnings.catch_warnings():
        warnings.simplefilter("ignore", category)
        return function(*args, **kwargs)


def in_random_order(rng, cases):
    """Ask the cases of a check in an order drawn with ``rng``; judge them in their own order.

    ``cases`` is a list of pairs ``(call(...), judge)``.  The calls are made in a random order,
    so that a function which replays a table of answers by the count of its calls cannot pass;
    then ``judge(outcome)`` runs for each case in the order of the list, and raises
    AssertionError if its outcome is wrong.  So a wrong function gets the diagnosis of the
    first case of the list that it gets wrong, whatever the order of the calls.  A judge may be
    a generator function: it can ask more calls to diagnose the mistake.  After a call that
    timed out, no more calls are made.  Use it as ``yield from in_random_order(rng, cases)``.
    """
    outcomes = {}
    for i in rng.permutation(len(cases)):
        outcomes[i] = yield cases[i][0]
        if outcomes[i].raised_a("TimeoutError"):
            break
    for i, (_, judge) in enumerate(cases):
        if i in outcomes:
            verdict = judge(outcomes[i])
            if inspect.isgenerator(verdict):
                yield from verdict


def _where(where):
    return f" {where}" if where else ""


def _real_array(value, function, what, where=""):
    """``value``, the part ``what`` of an answer of ``function``, as an array of floats; an
    AssertionError if it is not real numbers (booleans, complex numbers, None, an object)."""
    if isinstance(value, Opaque):
        value._refuse()
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as exc:  # a ragged list, ...
        raise AssertionError(
            f"{function} returned {what} that is not an array of numbers ({exc}){_where(where)}"
        ) from None
    kind = array.dtype.kind
    if kind == "c":
        raise AssertionError(
            f"{function} returned {what} of complex numbers{_where(where)}: return real numbers "
            "(take .real where the imaginary parts are rounding errors)"
        )
    if kind == "b":
        raise AssertionError(f"{function} returned {what} of booleans{_where(where)}, not numbers")
    if kind not in "iuf":
        raise AssertionError(
            f"{function} returned {what} of type {typename(value)}{_where(where)}, not numbers"
        )
    return array.astype(float)


def _refuse_non_finite(array, function, what, where="", hint=""):
    """AssertionError if any entry of ``array`` is NaN or infinite, saying how many of each."""
    nan, inf = int(np.isnan(array).sum()), int(np.isinf(array).sum())
    if not (nan == 0 and inf == 0):
        if array.ndim == 0:
            text = f"{what} = {float(array)}"
        else:
            counts = " and ".join(
                f"{k} {kind}" for k, kind in ((nan, "NaN"), (inf, "infinite")) if k
            )
            text = (
                f"{what} with {counts} {'entry' if nan + inf == 1 else 'entries'} "
                f"out of {array.size}"
            )
        raise AssertionError(
            f"{function} returned {text}{_where(where)}" + (f": {hint}" if hint else "")
        )
    return array


def finite(value, function, what, where="", hint=""):
    """``value``, the part ``what`` of an answer of ``function``, as an array of finite floats.

    Every value that a check reads from an outcome goes through here (or `number`, `boolean`,
    `whole_number`) before it is compared: a comparison such as ``err > tol`` is False when err
    is NaN, so without this a NaN answer would pass it.  Fails with an AssertionError that names
    ``function``, ``what``, what was wrong and ``where`` (the case), then ``hint``, if given.
    """
    return _refuse_non_finite(
        _real_array(value, function, what, where), function, what, where, hint
    )


def number(value, function, what, where="", hint=""):
    """``value``, the part ``what`` of an answer of ``function``, as one finite float
    (see `finite`)."""
    array = _real_array(value, function, what, where)
    if array.ndim != 0:
        raise AssertionError(
            f"{function} must return {what} as one number, got an array of shape "
            f"{array.shape}{_where(where)}"
        )
    return float(_refuse_non_finite(array, function, what, where, hint))


def vector(value, function, what, n, where="", per=""):
    """``value``, the part ``what`` of an answer of ``function``, as a vector of ``n`` finite
    floats (see `finite`); ``per`` says what its entries stand for (", one per example")."""
    array = finite(value, function, what, where)
    if array.shape != (n,):
        raise AssertionError(
            f"{function} must return {what} as a vector of shape ({n},){per}, got shape "
            f"{array.shape}{_where(where)}"
        )
    return array


def whole_number(value, function, what, where=""):
    """``value``, the part ``what`` of an answer of ``function``, as an int: an integer, or a float
    without a fractional part (not a boolean, not NaN or infinite)."""
    x = number(value, function, what, where)
    if not x.is_integer():
        raise AssertionError(f"{what} must be an integer, got {x!r}{_where(where)}")
    return int(x)


def boolean(value, function, where=""):
    """``value``, an answer of ``function`` that must be True or False
    (``bool`` or ``numpy.bool_``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise AssertionError(
            f"{function} must return True or False, got {value!r} of type "
            f"{typename(value)}{_where(where)}"
        )
    return bool(value)


def relative_error(a, b):
    """max |a - b| / max(1, max |b|), where ``b`` is the (finite) reference;
    NaN if ``a`` has a NaN."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def close(a, b, tol=1e-9):
    """Same shape, and `relative_error` at most ``tol`` (False if ``a`` has a NaN)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(a.shape == b.shape and relative_error(a, b) <= tol)


def parts(out, k, what):
    """``out`` if it is a tuple of ``k`` parts; else AssertionError '{what}, got <type>'."""
    if not (isinstance(out, tuple) and len(out) == k):
        raise AssertionError(f"{what}, got {typename(out)}")
    return out


def vector_and_number(vector, value, n, names, stacked, where="", function="the function"):
    """A vector of ``n`` finite floats and a finite number, the two parts of an answer of
    ``function`` named ``names``.

    A vector of n + 1 entries fails with the message ``stacked`` (the number stacked onto it).
    """
    vector = _real_array(vector, function, names[0], where)
    if vector.shape == (n + 1,):
        raise AssertionError(stacked)
    if vector.shape != (n,):
        raise AssertionError(
            f"{names[0]} must be a vector of shape ({n},), got shape {vector.shape}{_where(where)}"
        )
    return _refuse_non_finite(vector, function, names[0], where), number(
        value, function, names[1], where
    )


def vector_number_and_count(outcome, function, names, n, stacked, where=""):
    """The answer ``(vector, number, count)`` of ``function`` (``(w, b, n_iter)``): a vector of
    ``n`` finite floats, a finite number and an integer, named ``names`` (the count's name may
    say what it counts: ``"n_iter (the number of iterations)"``).  ``stacked`` is the message
    for a vector of n + 1 entries (the number stacked onto it)."""
    short = [name.split(" ")[0] for name in names]
    vector, value, count = parts(
        outcome.result, 3, f"{function} must return the tuple ({', '.join(short)})"
    )
    vector, value = vector_and_number(
        vector, value, n, tuple(short[:2]), stacked, where=where, function=function
    )
    return vector, value, whole_number(count, function, names[2], where)
