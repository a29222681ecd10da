import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


def frozen(a):
    """A read-only float64 copy: any in-place write by the code under test raises."""
    a = np.array(a, dtype=np.float64)
    a.flags.writeable = False
    return a
