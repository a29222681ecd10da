"""What ``import ksvm`` gives a user, and what it leaves alone.

The library is the methods, their estimators and the data sets; the chapters' own
support (``ksvm.book``: printed claims, listings, explorers, figures) and the Dask
solvers are imported on their own, so that the library needs neither matplotlib,
ipywidgets nor Dask.  Each import is tried in a fresh interpreter, since this test
process may already hold any of them.
"""

import json
import subprocess
import sys

import pytest

OPTIONAL = ("matplotlib", "ipywidgets", "IPython", "PIL", "dask", "distributed", "zarr")


def fresh_import(statement):
    """The top-level packages and the ksvm modules loaded by ``statement`` in a new interpreter."""
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(result.stdout.splitlines()[-1]))


@pytest.mark.parametrize("statement", ["import ksvm", "import ksvm.book", "import ksvm.datasets"])
def test_the_library_loads_no_plotting_widgets_or_dask(statement):
    loaded = fresh_import(statement)
    assert sorted(name for name in loaded if name.split(".")[0] in OPTIONAL) == []


def test_import_ksvm_loads_no_book_support():
    assert sorted(name for name in fresh_import("import ksvm") if name.startswith("ksvm.book")) == []
