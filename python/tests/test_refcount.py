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

    d_out = (np.empty(6), np.empty((6, 6)), np.empty((6, 6)), np.empty((6, 6)))
    g = np.array([0.0, 0.0, -9.81])

    def failing():
        try:
            ctx.inverse_dynamics(bad)
        except ValueError:
            pass
        try:
            ctx.body_pose("nose")
        except mbt.NotFoundError:
            pass
        try:
            ctx.set_body_mass(1, -1.0)
        except mbt.NonphysicalError:
            pass
        try:
            ctx.forward_dynamics_derivatives(out=d_out[:3])
        except TypeError:
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
        lambda: ctx.inverse_dynamics_derivatives(vdot),
        lambda: ctx.forward_dynamics_derivatives(vdot, out=d_out),
        lambda: ctx.tree.integrate_configuration(vdot, vdot),
        lambda: ctx.body_spatial_inertia(2),
        lambda: ctx.set_body_mass(2, 3.0),
        lambda: setattr(ctx, "gravity", g),
        lambda: ctx.gravity,
        failing,
    ], (vdot, out6, M, bad, g) + d_out


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


def test_simulator_callbacks_and_contact_do_not_leak():
    """10⁴ steps with a Python controller and observer, and the contact results after each."""
    tree = mbt.Tree()
    b = tree.add_rigid_body("box", 1.0, (0, 0, 0), np.eye(3) * 0.01)
    tree.add_joint("quaternion_floating", "free", 0, b)
    tree.finalize()
    cm = mbt.ContactModel(tree)
    cm.add_box(b, (0.2, 0.2, 0.2))
    cm.add_ground()
    ctx = tree.context()
    q = ctx.q.copy()
    q[6] = 0.1
    ctx.q = q
    tau = np.zeros(6)

    def controller(t, q, v):
        return tau

    def observer(t, q, v):
        return True

    sim = mbt.Simulator(ctx, integrator="time_stepping", dt=1e-4, controller=controller,
                        observer=observer, contact_model=cm)
    watched = (sim, ctx, tree, cm, tau, controller, observer)
    sim.advance_to(1e-3)
    sim.contacts(), sim.contact_body_forces(), sim.stats
    before = [sys.getrefcount(o) for o in watched]
    tracemalloc.start()
    start, _ = tracemalloc.get_traced_memory()
    for k in range(1, 101):
        sim.advance_to(1e-3 + k * 1e-2)       # 100 steps each
        sim.contacts(), sim.contact_body_forces(), sim.stats, sim.context
    end, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert sim.stats["steps_taken"] >= 10_000
    assert [sys.getrefcount(o) for o in watched] == before
    assert end - start < 64 * 1024
