"""What ``import ksvm`` gives a user, and what it leaves alone.

The library is the methods, their estimators and the data sets; the chapters' own
support (``ksvm.book``: printed claims, listings, explorers, figures) and the Dask
solvers are imported on their own, so that the library needs neither matplotlib,
ipywidgets nor Dask.  Each import is tried in a fresh interpreter, since this test
process may already hold any of them.

What it gives is ``ksvm.__all__``: every library module and every estimator, each a
public name of its module, and every module's ``__all__`` names what the module has.
"""

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys

import pytest

import ksvm
from ksvm import base
from ksvm.base import BaseKernelClassifier

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


# The submodules that ``import ksvm`` leaves to be imported on their own (ksvm's docstring).
ON_THEIR_OWN = {"book", "lsvm_dask"}


def public_modules():
    """Every module and package of ksvm whose dotted name has no part that starts with "_"."""
    names = [info.name for info in pkgutil.walk_packages(ksvm.__path__, "ksvm.")]
    return [name for name in names if not any(part.startswith("_") for part in name.split("."))]


def test_the_top_level_namespace_is_its_all():
    code = "import json, ksvm\nprint(json.dumps([sorted(n for n in vars(ksvm) if not n.startswith('_')), ksvm.__all__]))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    exposed, listed = json.loads(result.stdout)
    assert len(listed) == len(set(listed))
    assert sorted(listed) == exposed


@pytest.mark.parametrize("name", public_modules())
def test_every_name_in_a_modules_all_exists(name):
    module = importlib.import_module(name)
    listed = getattr(module, "__all__", [])
    assert len(listed) == len(set(listed)), f"{name}.__all__ names something twice"
    assert [n for n in listed if not hasattr(module, n)] == []
    if not hasattr(module, "__path__"):  # a module, not a package of modules
        assert listed, f"{name} has no __all__"


def test_the_top_level_covers_every_library_module_and_estimator():
    submodules = {name.split(".")[1] for name in public_modules()}
    assert submodules - ON_THEIR_OWN - set(ksvm.__all__) == set()
    assert set(ksvm.__all__) & ON_THEIR_OWN == set()
    estimators = {}
    for module in map(importlib.import_module, sorted(f"ksvm.{name}" for name in submodules - ON_THEIR_OWN)):
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseKernelClassifier) and name not in base.__all__:
                estimators[name] = obj
    assert len(estimators) >= 6
    assert {name: getattr(ksvm, name, None) for name in estimators} == estimators


def test_a_top_level_name_is_a_public_name_of_its_module():
    for name in ksvm.__all__:
        obj = getattr(ksvm, name)
        if inspect.ismodule(obj):
            assert obj.__name__ == f"ksvm.{name}"
        else:
            home = importlib.import_module(obj.__module__)
            assert name in home.__all__ and getattr(home, name) is obj
