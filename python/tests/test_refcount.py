"""Reference counting: 10⁵ calls of each kind (returning new arrays, writing into out=,
failing) leave the reference counts of every object involved unchanged and leak no memory
(tracemalloc follows Python objects and numpy's array buffers)."""
import sys
import tracemalloc

import numpy as np

import mbt

N = 100_000


def _calls(ctx):
    vdot = np.linspace(-1, 1, 6)
    out6, M = np.empty(6), np.empty((6, 6))
    bad = np.zeros(5)

    def failing():
        try:
            ctx.inverse_dynamics(bad)
        except ValueError:
            pass
        try:
            ctx.body_pose("nose")
        except mbt.NotFoundError:
            pass

    return [
        lambda: ctx.inverse_dynamics(vdot),
        lambda: ctx.inverse_dynamics(vdot, out=out6),
        lambda: ctx.mass_matrix(out=M),
        lambda: ctx.mass_matrix(),
        lambda: ctx.forward_dynamics(vdot),
        lambda: ctx.body_pose("tool0"),
        lambda: ctx.jacobian_spatial_velocity("tool0"),
        lambda: ctx.q,
        lambda: ctx.kinetic_energy(),
        failing,
    ], (vdot, out6, M, bad)


def test_no_reference_or_memory_leak(ur5_ctx):
    calls, arrays = _calls(ur5_ctx)
    watched = (ur5_ctx, ur5_ctx.tree) + arrays
    for call in calls:
        call()                       # warm-up: caches, interned names
        before = [sys.getrefcount(o) for o in watched]
        tracemalloc.start()
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(N):
            call()
        end, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert [sys.getrefcount(o) for o in watched] == before
        # One leaked 6-double array per call would be > 10 MB.
        assert end - start < 64 * 1024, f"{end - start} bytes kept after {N} calls"


def test_batch_calls_do_not_leak(ur5):
    batch = mbt.Batch(ur5, num_threads=2)
    x = np.zeros((4, 12))
    status = np.zeros(4, dtype=np.int32)
    watched = (batch, ur5, x, status)
    for call in (lambda: batch.inverse_dynamics(x, status=status),
                 lambda: batch.forward_kinematics(x[:, :6])):
        call()
        before = [sys.getrefcount(o) for o in watched]
        tracemalloc.start()
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(N // 10):
            call()
        end, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert [sys.getrefcount(o) for o in watched] == before
        assert end - start < 64 * 1024


def test_objects_are_freed(ur5):
    """A context keeps its tree alive; both go when the last reference does."""
    n = sys.getrefcount(ur5)
    ctxs = [ur5.context() for _ in range(10)]
    assert sys.getrefcount(ur5) == n + 10
    q = ctxs[0].q                  # a view keeps its context alive
    del ctxs
    assert sys.getrefcount(ur5) == n + 1
    del q
    assert sys.getrefcount(ur5) == n
