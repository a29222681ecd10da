"""ksvm.book.report: the claims a chapter prints are checked, and print the same everywhere."""

import inspect

import numpy as np
import pytest

from ksvm.book import report
from ksvm.book.report import below, fixed, rel_err


def test_rel_err_against_a_loop():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    expected = max(abs(x - y) for x, y in zip(a.ravel(), b.ravel(), strict=True)) / max(
        abs(y) for y in b.ravel()
    )
    assert rel_err(a, b) == pytest.approx(expected, rel=1e-15)
    assert rel_err([0.0, 1e-3], [0.0, 0.0]) == 1e-3  # a zero reference: the absolute difference
    with pytest.raises(ValueError, match="one shape"):
        rel_err(np.ones(3), np.ones(4))


@pytest.mark.parametrize("value", [0.0, 1e-300, 3.2e-15, 9.99e-13])
def test_below_prints_the_bound_not_the_value(value):
    assert below(value, 1e-12) == "< 1e-12"


@pytest.mark.parametrize(
    ("limit", "text"),
    [
        (1e-5, "< 1e-5"),
        (1e-4, "< 1e-4"),
        (0.1, "< 1e-1"),
        (0.05, "< 0.05"),
        (1.0, "< 1"),
        (2e-8, "< 2e-08"),
    ],
)
def test_below_writes_powers_of_ten_one_way(limit, text):
    assert below(0.0, limit) == text


@pytest.mark.parametrize("value", [1e-12, 2e-12, np.inf, np.nan])
def test_below_fails_when_the_claim_does(value):
    with pytest.raises(AssertionError, match="the claim '< 1e-12' fails"):
        below(value, 1e-12)


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (-0.0, 4, "0.0000"),
        (-4e-5, 4, "0.0000"),
        (-6e-5, 4, "-0.0001"),
        (2.5, 0, "2"),
        (1 / 3, 2, "0.33"),
    ],
)
def test_fixed_has_one_zero(value, digits, text):
    assert fixed(value, digits) == text


# --- listing: the package's source, shown with a caption -------------------------


def test_listing_shows_the_real_source_without_its_docstring():
    from ksvm.smo import smo

    shown = report.listing(smo)
    assert shown.qualified_name == "ksvm.smo.smo"
    source = inspect.getsource(smo)
    body_lines = [line for line in shown.code.splitlines() if line.strip()]
    # every line shown is a line of the real source, in order, and the docstring is gone
    it = iter(source.splitlines())
    assert all(any(line == s for s in it) for line in body_lines)
    assert smo.__doc__.strip().splitlines()[0] not in shown.code
    compile(shown.code, "<listing>", "exec")


def test_listing_keeps_the_docstring_when_asked_and_renders_markdown():
    shown = report.listing(report.fixed, docstring=True)
    assert report.fixed.__doc__.strip().splitlines()[0] in shown.code
    md = shown._repr_markdown_()
    assert md.startswith("**Listing** `ksvm.book.report.fixed`")
    assert "```python\n" in md and md.rstrip().endswith("```")
    assert repr(shown).startswith("Listing: ksvm.book.report.fixed\n")


def test_listing_of_a_class_drops_method_docstrings_and_still_parses():
    from ksvm.base import BaseKernelClassifier

    shown = report.listing(BaseKernelClassifier)
    assert shown.code.startswith("class BaseKernelClassifier(")
    compile(shown.code, "<listing>", "exec")
    for name, method in vars(BaseKernelClassifier).items():
        doc = getattr(method, "__doc__", None)
        if callable(method) and doc and len(doc.strip()) > 20:
            assert doc.strip().splitlines()[0] not in shown.code, name


def test_listing_refuses_what_has_no_source():
    with pytest.raises(TypeError, match="function or a class"):
        report.listing(3.0)
    with pytest.raises(TypeError, match="cannot be found"):
        report.listing(type("Made", (), {}))
