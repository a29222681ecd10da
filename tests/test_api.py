"""What ``import ksvm`` gives a user, and what it leaves alone.

The library is the methods, their estimators and the data sets; the chapters' own
support (``ksvm.book``: printed claims, listings, explorers, figures) and the Dask
solvers are imported on their own, so that the library needs neither matplotlib,
ipywidgets nor Dask.  Each import is tried in a fresh interpreter, since this test
process may already hold any of them.

What it gives is ``ksvm.__all__``: every library module and every estimator, each a
public name of its module, and every module's ``__all__`` names what the module has.
"""

import functools
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


#: Every function of ksvm.datasets is numpy: a chunk of the large sets is drawn without
#: Dask; the Dask arrays made of such chunks, and Zarr, are ksvm.lsvm.dask_data.
DRAW_CHUNKS = (
    "import ksvm.datasets as d\n"
    "d.linear_large_chunk(1, 10, 25, 3, seed=0), d.checkerboard_chunk(0, 10, 25, seed=0)"
)

#: What a user does first, in this order: each step's statement imports ksvm before
#: anything else, so that the modules loaded after a step are those its statement loads
#: alone, plus what the steps before it loaded (which must be clean themselves).
STEPS = {"ksvm": "import ksvm", "ksvm.datasets": DRAW_CHUNKS, "ksvm.book": "import ksvm.book"}


@functools.cache
def fresh_steps():
    """The steps run one after another in a new interpreter (one, since an interpreter that
    imports scikit-learn takes a second): the modules loaded after each, by step, and the
    public names and ``__all__`` of ksvm after ``import ksvm``."""
    code = ["import json, sys", "loaded = {}"]
    for name, statement in STEPS.items():
        code += [statement, f"loaded[{name!r}] = sorted(sys.modules)"]
        if name == "ksvm":  # before an import of a submodule adds its name
            code += [
                "names = [sorted(n for n in vars(ksvm) if not n.startswith('_')), ksvm.__all__]"
            ]
    code += ["print(json.dumps([loaded, names]))"]
    result = subprocess.run(
        [sys.executable, "-c", "\n".join(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def fresh_import(step):
    """The top-level packages and the ksvm modules loaded by the step (and those before it)."""
    return set(fresh_steps()[0][step])


@pytest.mark.parametrize("step", STEPS)
def test_the_library_loads_no_plotting_widgets_or_dask(step):
    loaded = fresh_import(step)
    assert sorted(name for name in loaded if name.split(".")[0] in OPTIONAL) == []


def test_import_ksvm_loads_no_book_support():
    assert sorted(name for name in fresh_import("ksvm") if name.startswith("ksvm.book")) == []


def test_the_chunked_data_as_dask_arrays_and_in_zarr_live_with_the_dask_solvers():
    pytest.importorskip("dask")
    pytest.importorskip("zarr")
    from ksvm import datasets
    from ksvm.lsvm import dask_data

    moved = ["make_chunked", "read_zarr", "write_zarr"]
    assert dask_data.__all__ == moved
    assert [name for name in moved if hasattr(datasets, name) or name in datasets.__all__] == []


# The submodules that ``import ksvm`` leaves to be imported on their own (ksvm's docstring).
ON_THEIR_OWN = {"book", "lsvm_dask"}


def public_modules():
    """Every module and package of ksvm whose dotted name has no part that starts with "_"."""
    names = [info.name for info in pkgutil.walk_packages(ksvm.__path__, "ksvm.")]
    return [name for name in names if not any(part.startswith("_") for part in name.split("."))]


def test_the_top_level_namespace_is_its_all():
    exposed, listed = fresh_steps()[1]
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
    for module in map(
        importlib.import_module, sorted(f"ksvm.{name}" for name in submodules - ON_THEIR_OWN)
    ):
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if (
                isinstance(obj, type)
                and issubclass(obj, BaseKernelClassifier)
                and name not in base.__all__
            ):
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
