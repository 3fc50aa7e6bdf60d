"""mbt.Batch: batched calls equal the single calls bit for bit; failures per state; rollouts
equal single simulations."""
import numpy as np
import pytest

import mbt
from conftest import model, stamps_inside


@pytest.fixture
def panda():
    return mbt.load_urdf(model("panda.urdf"))


def _states(tree, n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, tree.nq + tree.nv)), rng.uniform(-1, 1, (n, tree.nv))


def test_batched_calls_equal_single_calls(panda):
    ctx = panda.context()
    ctx.set_joint_damping(1, [0.5])
    batch = mbt.Batch(panda, num_threads=2)
    assert batch.num_threads == 2 and batch.tree is panda
    batch.set_parameters(ctx)
    x, u = _states(panda, 37)
    tau, vdot = batch.inverse_dynamics(x, u), batch.forward_dynamics(x, u)
    M, X = batch.mass_matrix(x[:, :panda.nq]), batch.forward_kinematics(x[:, :panda.nq])
    for k in range(len(x)):
        ctx.x = x[k]
        assert np.array_equal(tau[k], ctx.inverse_dynamics(u[k]))
        assert np.array_equal(vdot[k], ctx.forward_dynamics(u[k]))
        assert np.array_equal(M[k], ctx.mass_matrix())
        assert np.array_equal(X[k], ctx.body_poses())
    out = np.empty_like(tau)
    assert batch.inverse_dynamics(x, u, out=out) is out and np.array_equal(out, tau)


def test_failed_states_are_nan_rows():
    """A massless body on a joint: every state's articulated inertia is singular."""
    tree = mbt.Tree()
    b = tree.add_rigid_body("ghost", 0.0)
    tree.add_joint("revolute", "spin", 0, b, axis=(0, 0, 1))
    tree.finalize()
    batch = mbt.Batch(tree, num_threads=2)
    x = np.zeros((3, 2))
    status = np.zeros(3, dtype=np.int32)
    vdot = batch.forward_dynamics(x, status=status)
    assert np.all(status == -10)                          # MBT_ERR_SINGULAR
    assert np.all(np.isnan(vdot))
    with pytest.raises(mbt.SingularError, match="state 0.*ghost"):
        batch.forward_dynamics(x)
    assert np.array_equal(batch.inverse_dynamics(x), np.zeros((3, 1)))   # ID is defined


def test_rollouts_equal_single_simulations(panda):
    ctxs = []
    for k in range(3):
        c = panda.context()
        c.q = np.full(panda.nq, 0.1 * k)
        ctxs.append(c)
    batch = mbt.Batch(panda, num_threads=2)
    results = batch.rollouts(ctxs, 0.3, integrator="rk4", dt=1e-3)
    sampled = batch.rollouts(ctxs, 0.3, num_samples=4, integrator="rk4", dt=1e-3)
    for c, r, rs in zip(ctxs, results, sampled):
        sim = mbt.Simulator(c, integrator="rk4", dt=1e-3)
        sim.advance_to(0.3)
        assert r["status"] == 0 and r["t_reached"] == pytest.approx(0.3) and r["trajectory"] is None
        assert np.array_equal(r["x_final"], sim.context.x) and r["stats"] == sim.stats
        traj = rs["trajectory"]
        assert traj.shape == (4, 1 + panda.nq + panda.nv)
        assert np.allclose(traj[:, 0], [0.0, 0.1, 0.2, 0.3], atol=1e-15)
        assert np.array_equal(traj[0, 1:], c.x) and np.array_equal(traj[-1, 1:], rs["x_final"])


def test_batch_argument_errors(panda):
    batch = mbt.Batch(panda)
    with pytest.raises(ValueError, match="one state per row"):
        batch.inverse_dynamics(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="vdot"):
        batch.inverse_dynamics(np.zeros((3, panda.nq + panda.nv)), np.zeros((2, panda.nv)))
    with pytest.raises(ValueError, match="int32"):
        batch.mass_matrix(np.zeros((3, panda.nq)), status=np.zeros(3))
    other = mbt.load_urdf(model("ur5.urdf")).context()
    with pytest.raises(TypeError, match="batch's tree"):
        batch.rollouts([other], 1.0)
    with pytest.raises(mbt.NotFinalizedError):
        mbt.Batch(mbt.Tree())


def test_the_gil_is_released_during_batched_calls(panda):
    """The main thread runs Python inside the middle half of a rollout batch (conftest)."""
    ctxs = [panda.context() for _ in range(4)]
    batch = mbt.Batch(panda, num_threads=2)
    inside, duration = stamps_inside(lambda: batch.rollouts(ctxs, 0.1, integrator="rk4", dt=1e-5))
    assert duration > 0.08, "the batch was too short to tell"
    assert inside >= 2, f"the main thread ran {inside} times in the middle of the call"
