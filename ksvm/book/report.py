"""Numbers as the chapters print them: checked claims, not rounding noise.

Every chapter of the book is re-executed by nbval, on the reader's machine,
and what it prints is compared character for character with what is stored.
The last digits of a floating-point result depend on the order of its sums,
which changes with the CPU, the BLAS kernels and the number of threads: an
error printed as ``3.2e-15`` on one machine is ``4.4e-15`` on another, and an
iterative solver that stops on a tolerance may take 4043 iterations on one
and 4078 on the other.  A chapter therefore prints what does not change:

* a bound that is checked before it is printed (:func:`below`): the claim
  "the two agree to ``< 1e-10``" holds on every machine, the digits of the
  difference do not;
* a number rounded to digits that are stable, with the sign of a rounded
  zero dropped (:func:`fixed`), so that ``-0.0000`` and ``0.0000`` are one
  output;
* relative errors measured one way throughout the book (:func:`rel_err`).

Counts that depend on the path of an iterative solver are printed in cells
that nbval does not compare, next to an assertion that states the claim.

A chapter also shows the package's own code, so that the page and the tested
code cannot drift apart: :func:`listing` turns a function or class of ``ksvm``
into a listing with a caption that names it (``ksvm.smo.smo_step``).
"""

import ast
import inspect
import textwrap

import numpy as np

__all__ = ["Listing", "below", "fixed", "listing", "rel_err"]


def rel_err(a, b):
    """The largest entry of ``|a - b|``, relative to the largest entry of ``|b|``.

    Parameters
    ----------
    a, b : array-like of the same shape
        ``b`` is the reference.

    Returns
    -------
    err : float
        ``max |a - b| / max |b|``; the absolute difference if ``b`` is all zero.

    Raises
    ------
    ValueError
        If the shapes differ.

    Examples
    --------
    >>> rel_err([1.0, 2.0], [1.0, 2.5])
    0.2
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"rel_err compares arrays of one shape, got {a.shape} and {b.shape}.")
    diff = float(np.max(np.abs(a - b), initial=0.0))
    scale = float(np.max(np.abs(b), initial=0.0))
    return diff / scale if scale > 0 else diff


def below(value, limit):
    """Check that ``value < limit`` and return the claim ``'< limit'`` to print.

    The printed text is the bound, never the digits of ``value``, so it is the
    same on every machine; the check makes the claim fail loudly where it does
    not hold.  Choose ``limit`` with a margin over the values seen: for an error
    at rounding level, a hundred times what one machine prints.

    Parameters
    ----------
    value : float
        The measured quantity (an error, a residual, a gap); NaN fails.
    limit : float > 0
        The claimed bound.

    Returns
    -------
    claim : str
        ``'< 1e-10'`` for ``limit = 1e-10``.

    Raises
    ------
    AssertionError
        If ``value`` is not below ``limit`` (the message gives both).

    Examples
    --------
    >>> below(3.2e-15, 1e-12)
    '< 1e-12'
    >>> below(2e-6, 1e-4), below(0.3, 0.5)
    ('< 1e-4', '< 0.5')
    >>> below(0.02, 1e-2)
    Traceback (most recent call last):
    ...
    AssertionError: the claim '< 1e-2' fails: the value is 0.02
    """
    value, text = float(value), _limit_text(limit)
    if not value < limit:
        raise AssertionError(f"the claim '< {text}' fails: the value is {value:.3g}")
    return f"< {text}"


def _limit_text(limit):
    """A power of ten below 1 as ``1e-5``; any other limit as ``:g`` prints it."""
    if 0 < limit < 1:
        exponent = round(np.log10(limit))
        if limit == 10.0**exponent:
            return f"1e{exponent}"
    return f"{limit:g}"


def fixed(value, digits=4):
    """``value`` with ``digits`` decimals, and no minus sign on a rounded zero.

    Parameters
    ----------
    value : float
    digits : int >= 0, default=4

    Returns
    -------
    text : str

    Examples
    --------
    >>> fixed(-3e-17), fixed(2 / 3, 3), fixed(-0.5, 1)
    ('0.0000', '0.667', '-0.5')
    """
    return f"{round(float(value), digits) + 0.0:.{digits}f}"


class Listing:
    """The source of a function or class, shown as a captioned code listing.

    In Jupyter and in the built book it renders as Markdown: a caption naming
    the object (``ksvm.module.name``) above a highlighted code block.  As plain
    text (``repr``) it is the caption and the code.  Made by :func:`listing`.

    Attributes
    ----------
    qualified_name : str
        ``module.name`` of the object shown.
    code : str
        The source shown, dedented, without the docstring unless asked for.
    """

    def __init__(self, qualified_name, code):
        self.qualified_name = qualified_name
        self.code = code

    def caption(self):
        return f"Listing: {self.qualified_name}"

    def _repr_markdown_(self):
        fence = "````" if "```" in self.code else "```"
        return f"**Listing** `{self.qualified_name}`\n\n{fence}python\n{self.code}\n{fence}\n"

    def __repr__(self):
        return f"{self.caption()}\n\n{self.code}"


def listing(obj, docstring=False):
    """The source of ``obj`` as a :class:`Listing`, for a chapter to display.

    Parameters
    ----------
    obj : function or class
        Defined in a Python source file (a builtin has no source to show).
    docstring : bool, default=False
        Keep the docstring; by default it is dropped, since the chapter's text
        says what the docstring says.

    Returns
    -------
    shown : Listing

    Raises
    ------
    TypeError
        If ``obj`` is not a function or class, or its source cannot be found.

    Examples
    --------
    >>> shown = listing(fixed)
    >>> shown.qualified_name
    'ksvm.book.report.fixed'
    >>> print(shown.code.splitlines()[0])
    def fixed(value, digits=4):
    >>> "Examples" in shown.code
    False
    """
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        raise TypeError(f"listing shows a function or a class, got {type(obj).__name__}.")
    try:
        source = textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError) as exc:
        raise TypeError(f"the source of {obj.__qualname__} cannot be found: {exc}") from None
    if not docstring:
        source = _without_docstrings(source)
    name = f"{obj.__module__}.{obj.__qualname__}"
    return Listing(name, source.rstrip("\n"))


def _without_docstrings(source):
    """``source`` with the docstring of its function or class (and methods) removed."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    drop = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                if len(body) == 1:
                    continue  # a docstring-only body: keep it, or the code would not parse
                drop.update(range(body[0].lineno - 1, body[0].end_lineno))
    return "".join(line for i, line in enumerate(lines) if i not in drop)
