"""Shared fixtures: the repository's models and reference data, found from this file."""
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
REFERENCE = ROOT / "tests" / "reference"


def model(name):
    return str(MODELS / name)


@pytest.fixture
def ur5():
    import mbt
    return mbt.load_urdf(model("ur5.urdf"))


@pytest.fixture
def ur5_ctx(ur5):
    import numpy as np
    ctx = ur5.context()
    rng = np.random.default_rng(7)
    ctx.q = rng.uniform(-2, 2, ur5.nq)
    ctx.v = rng.uniform(-1, 1, ur5.nv)
    return ctx
