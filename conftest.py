"""Collection for the whole repository; the tests' own setup is tests/conftest.py.

`pytest -m "not slow"`, the edit-test loop, leaves out the chapters and the assignment
solutions (tests/conftest.py marks every notebook slow).  When the marker expression
leaves out what is slow, the notebooks are not even read: collecting them would only
parse them to deselect them.
"""


def _leaves_out_slow(config):
    """True if ``-m`` deselects a test whose one marker is ``slow``, as a notebook is."""
    markexpr = config.getoption("markexpr", "")
    if not markexpr:
        return False
    try:
        from _pytest.mark.expression import Expression

        return not Expression.compile(markexpr).evaluate(lambda name, **kwargs: name == "slow")
    except Exception:  # pytest's expression API moved: collect everything, as before
        return False


def pytest_ignore_collect(collection_path, config):
    if collection_path.suffix == ".ipynb" and _leaves_out_slow(config):
        return True
    return None
