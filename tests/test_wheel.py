"""The package as it is distributed: its licences, its citation and its wheel.

The code is under BSD-3-Clause (``LICENSE``), the book's text and figures under
CC BY 4.0 (``LICENSE-TEXT``); ``CITATION.cff`` says how to cite both, and must agree
with ``pyproject.toml`` on the version, the licence and the authors.

The slow test builds the wheel, installs it (not editable) into a fresh virtual
environment outside the repository, and uses it from a directory outside the
repository, as a user who ran ``pip install ksvm`` would.  It needs PyPI (the build
needs setuptools, the install numpy, scipy and scikit-learn); where the package index
is unreachable it is skipped and says so.
"""

import datetime
import email.parser
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

#: What ``import ksvm`` must not need: the extras ``ksvm[book]`` and ``ksvm[dask]``.
OPTIONAL = ("matplotlib", "ipywidgets", "IPython", "dask", "distributed", "zarr")

#: What goes into the wheel (everything else in the repository is the book and its tests).
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "ksvm", "assignments")


# --- licences and citation ------------------------------------------------------------


def test_the_licence_files_are_the_ones_pyproject_names():
    code = (ROOT / "LICENSE").read_text()
    text = (ROOT / "LICENSE-TEXT").read_text()
    assert PYPROJECT["license"] == "BSD-3-Clause"
    assert code.startswith("BSD 3-Clause License\n\nCopyright (c) 2026, The ksvm authors.")
    assert "Neither the name of the copyright holder" in code
    assert text.startswith("Creative Commons Attribution 4.0 International")
    assert "Section 8 \u2013 Interpretation." in text  # the legal code, to its end
    assert all((ROOT / name).is_file() for name in PYPROJECT["license-files"])


def test_the_citation_agrees_with_pyproject_and_the_book():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    for key in ("cff-version", "message", "title", "authors", "type", "version", "license"):
        assert cff.get(key), f"CITATION.cff has no {key!r}"
    assert cff["cff-version"] == "1.2.0"
    assert cff["type"] == "software"
    assert cff["version"] == PYPROJECT["version"]
    assert cff["license"] == PYPROJECT["license"]
    assert cff["authors"] == PYPROJECT["authors"] == [{"name": "The ksvm authors"}]
    datetime.date.fromisoformat(str(cff["date-released"]))

    book = yaml.safe_load((ROOT / "_config.yml").read_text())
    cited = cff["preferred-citation"]
    assert cited["type"] == "book"
    assert cited["title"] == book["title"]
    assert cited["authors"] == cff["authors"]
    assert [a["name"] for a in cited["authors"]] == [book["author"]]
    assert cited["license"] == "CC-BY-4.0"


# --- the wheel ------------------------------------------------------------------------


def run(*command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)


def clean_environment():
    """This process's environment without what would make the repository importable."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.fixture(scope="module")
def index_reachable():
    result = run(
        sys.executable,
        "-m",
        "pip",
        "index",
        "versions",
        "setuptools",
        "--retries",
        "0",
        "--timeout",
        "10",
        env=clean_environment(),
    )
    if result.returncode != 0:
        pytest.skip(f"the package index is unreachable: {result.stderr.strip()[-300:]}")


USE = """
import importlib.util, json, sys
import ksvm
from ksvm import SoftMarginSVC
from ksvm.datasets import make_separable_2d

X, y = make_separable_2d(60, seed=0)
model = SoftMarginSVC(C=10.0, kernel="linear").fit(X, y)
print(json.dumps({
    "file": ksvm.__file__,
    "score": model.score(X, y),
    "converged": bool(model.converged_),
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in OPTIONAL),
    "installed": [name for name in OPTIONAL if importlib.util.find_spec(name)],
}))
"""


@pytest.mark.slow  # builds a wheel and a virtual environment: about 40 s
def test_the_wheel_installs_and_fits_outside_the_repository(tmp_path, index_reachable):
    # a copy of what the wheel is made of, so that the build leaves nothing in the tree
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    wheels = tmp_path / "wheels"
    env = clean_environment()
    built = run(
        sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-w", str(wheels), env=env
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = wheels.glob("ksvm-*.whl")

    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"ksvm-{PYPROJECT['version']}.dist-info"
        metadata = email.parser.Parser().parsestr(archive.read(f"{info}/METADATA").decode())
        assert archive.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    assert metadata["Version"] == PYPROJECT["version"]
    assert metadata["License-Expression"] == "BSD-3-Clause"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert {"dask", "book"} <= set(metadata.get_all("Provides-Extra"))
    assert "ksvm/__init__.py" in names and "ksvm/lsvm/dask.py" in names
    assert not [n for n in names if n.startswith(("tests/", "book/", "tools/"))]

    # a fresh environment outside the repository, installed into by this environment's
    # pip (`pip --python`: no copy of pip to install first); the versions of numpy, scipy
    # and scikit-learn are those of this environment, so pip's cache has them
    venv = tmp_path / "venv"
    made = run(sys.executable, "-m", "venv", "--without-pip", str(venv), env=env)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    frozen = run(sys.executable, "-m", "pip", "freeze", "--exclude-editable", env=env).stdout
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(
        "".join(line + "\n" for line in frozen.splitlines() if "==" in line and "ksvm" not in line)
    )
    installed = run(
        *(sys.executable, "-m", "pip", "--python", str(python), "install", "--no-compile"),
        *(str(wheel), "-c", str(constraints)),
        env=env,
    )
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = f"OPTIONAL = {OPTIONAL!r}\n{USE}"
    used = run(str(python), "-c", code, cwd=elsewhere, env=env)
    assert used.returncode == 0, used.stderr[-3000:]
    result = json.loads(used.stdout.splitlines()[-1])

    # the installed copy, not the repository's
    assert Path(result["file"]).is_relative_to(venv), result["file"]
    assert result["converged"] and result["score"] == 1.0
    # the extras are neither installed by the plain install nor needed by import ksvm
    assert result["installed"] == [] and result["loaded"] == []
