"""The repository's code is formatted and linted by Ruff, as configured in pyproject.toml.

Both run here, so the README's test command (and CI, which runs it) fails on a file
that Ruff would reformat or on any finding of its linter.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args):
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [("check", "--no-cache", "."), ("format", "--no-cache", "--check", ".")],
    ids=["lint", "format"],
)
def test_ruff_finds_nothing(args):
    result = ruff(*args)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_sees_a_badly_formatted_file(tmp_path):
    """The check can fail: Ruff, run as above, objects to a long line and an unused import."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nx = [" + ", ".join(["1"] * 60) + "]\n")
    config = ("--no-cache", "--config", str(ROOT / "pyproject.toml"))
    linted = ruff("check", *config, bad)
    assert linted.returncode == 1 and "E501" in linted.stdout and "F401" in linted.stdout
    formatted = ruff("format", "--check", *config, bad)
    assert formatted.returncode == 1 and "1 file would be reformatted" in formatted.stdout
