"""The simulator from Python: energy, a Python controller and observer, stopping, errors in
callbacks, and the GIL released while it integrates."""
import threading

import numpy as np
import pytest

import mbt
from conftest import model, stamps_inside


def _no_damping(ctx):
    for j in range(ctx.tree.num_joints):
        ctx.set_joint_damping(j, np.zeros(ctx.tree.joint(j)["num_velocities"]))


def _pendulum():
    ctx = mbt.load_urdf(model("double_pendulum.urdf")).context()
    _no_damping(ctx)
    ctx.q = [1.0, -0.5]
    return ctx


def test_energy_is_conserved_and_the_start_context_untouched():
    ctx = _pendulum()
    E0 = ctx.kinetic_energy() + ctx.potential_energy()
    sim = mbt.Simulator(ctx, integrator="rk45", rtol=1e-10, atol=1e-12)
    assert sim.advance_to(2.0) is True
    end = sim.context
    assert end.time == 2.0 and np.any(end.q != ctx.q)
    assert abs(end.kinetic_energy() + end.potential_energy() - E0) < 1e-7 * abs(E0)
    assert ctx.time == 0.0 and np.array_equal(ctx.q, [1.0, -0.5])
    assert sim.stats["steps_taken"] > 0


def test_python_controller_holds_the_arm():
    """Gravity compensation plus PD, evaluated in Python at every dynamics evaluation."""
    ctx = mbt.load_urdf(model("ur5.urdf")).context()
    probe = ctx.copy()
    target = np.array([0.3, -1.0, 1.2, 0.0, 0.5, 0.0])
    ctx.q = target + 0.05

    def controller(t, q, v):
        probe.q = q
        return -probe.gravity_forces() + 400.0 * (target - q) - 40.0 * v

    sim = mbt.Simulator(ctx, integrator="rk4", dt=1e-3, controller=controller)
    sim.advance_to(3.0)
    assert np.max(np.abs(sim.context.q - target)) < 1e-3
    free = mbt.Simulator(ctx, integrator="rk4", dt=1e-3)
    free.advance_to(0.5)
    assert np.max(np.abs(free.context.q - target)) > 0.1     # without it, the arm falls


def test_time_derivatives_match_the_context_methods():
    ctx = mbt.load_urdf(model("solo12.urdf"), floating=True).context()
    ctx.v = np.linspace(-1, 1, 18)
    tau = np.linspace(0.5, -0.5, 18)
    sim = mbt.Simulator(ctx, controller=lambda t, q, v: tau)
    sim.set_limit_penalty(0.0, 0.0)
    xdot = sim.time_derivatives(ctx)
    assert np.allclose(xdot[:19], ctx.map_velocity_to_qdot(ctx.v), atol=1e-14)
    assert np.allclose(xdot[19:], ctx.forward_dynamics(tau), atol=1e-10)


def test_observer_sees_every_step_and_can_stop():
    seen = []

    def observer(t, q, v):
        seen.append(t)

    sim = mbt.Simulator(_pendulum(), integrator="rk4", dt=0.01, observer=observer)
    sim.advance_to(0.5)
    assert len(seen) == sim.stats["steps_taken"] + 1 and seen[0] == 0.0
    assert seen[-1] == pytest.approx(0.5) and np.all(np.diff(seen) > 0)
    sim.observer = lambda t, q, v: t < 0.7
    assert sim.advance_to(1.0) is False
    assert 0.7 <= sim.context.time < 1.0


def test_callback_errors_propagate():
    sim = mbt.Simulator(_pendulum(), controller=lambda t, q, v: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        sim.advance_to(1.0)
    assert sim.context.time == 0.0 and np.array_equal(sim.context.q, [1.0, -0.5])

    def late_failure(t, q, v):
        if t > 0.25:
            raise RuntimeError("sensor lost")
        return np.zeros(2)

    sim.controller = late_failure
    with pytest.raises(RuntimeError, match="sensor lost"):
        sim.advance_to(1.0)
    assert 0.2 < sim.context.time <= 0.25      # the last step taken before the failure
    sim.controller = lambda t, q, v: np.zeros(3)
    with pytest.raises(ValueError, match="controller"):
        sim.advance_to(1.0)
    sim.controller = None
    assert sim.advance_to(0.5) is True


def test_the_gil_is_released_while_integrating():
    """While a worker thread is inside advance_to (no Python callbacks), the main thread keeps
    running Python: it takes time stamps inside the middle half of that call. Were the GIL held
    for the call, the main thread could run only before the call took it or after it returned.
    Intervals, not speed: nothing here depends on how loaded the machine is."""
    ctx = mbt.load_urdf(model("ur5.urdf")).context()
    ctx.q = [0.1, -1.0, 1.0, 0.0, 0.5, 0.0]
    sim = mbt.Simulator(ctx, integrator="rk4", dt=1e-5)      # 5·10⁴ steps: ~0.4 s on an idle core
    inside, duration = stamps_inside(lambda: sim.advance_to(0.5))
    assert duration > 0.08, "the simulation was too short to tell"  # a quarter > 4 switch intervals
    assert inside >= 2, f"the main thread ran {inside} times in the middle of the call"


def test_simulations_in_threads_equal_sequential_ones():
    """Contexts of one tree are independent: threads give the sequential results bit for bit."""
    tree = mbt.load_urdf(model("ur5.urdf"))
    starts = [np.linspace(-0.5, 0.5, 6) * (k + 1) for k in range(4)]

    def simulate(q0):
        ctx = tree.context()
        ctx.q = q0
        sim = mbt.Simulator(ctx, integrator="rk45")
        sim.advance_to(0.3)
        return sim.context.x

    expected = [simulate(q0) for q0 in starts]
    results = [None] * 4

    def work(k):
        results[k] = simulate(starts[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r, e in zip(results, expected):
        assert np.array_equal(r, e)


def test_worked_example(tmp_path):
    """python/examples/ur5_tracking.py (docs/python.md) runs and tracks its reference."""
    import importlib.util
    from conftest import ROOT
    spec = importlib.util.spec_from_file_location("ur5_tracking", ROOT / "python" / "examples" / "ur5_tracking.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    png = tmp_path / "ur5_tracking.png"
    log = example.main(str(png))
    t = log[:, 0]
    assert t[0] == 0.0 and t[-1] == pytest.approx(2.0)
    q0 = log[0, 1:]
    q_des = q0 + 0.3 * np.sin(2.0 * t[:, None])
    late = t >= 1.0
    assert np.max(np.abs(log[late, 1:] - q_des[late])) < 4e-5      # what docs/python.md says
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not png.exists()
    else:
        assert png.stat().st_size > 10_000
