"""Shared fixtures: the repository's models and reference data, found from this file."""
import pathlib
import threading
import time

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


def stamps_inside(call):
    """Runs call() in a worker thread while this thread takes a time stamp every millisecond.
    Returns (number of stamps inside the middle half of the call, the call's duration in s).
    A call that holds the GIL leaves no stamp there: this thread can run only before the call
    takes the GIL or after it gives it back."""
    window = {}

    def run():
        window["start"] = time.perf_counter()
        call()
        window["end"] = time.perf_counter()

    worker = threading.Thread(target=run)
    stamps = []
    worker.start()
    while worker.is_alive():
        stamps.append(time.perf_counter())
        time.sleep(1e-3)
    worker.join()
    start, end = window["start"], window["end"]
    quarter = (end - start) / 4
    return sum(start + quarter < t < end - quarter for t in stamps), end - start
