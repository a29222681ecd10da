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
"""

import numpy as np

__all__ = ["rel_err", "below", "fixed"]


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
