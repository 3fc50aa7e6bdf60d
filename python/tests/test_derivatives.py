"""The analytic derivatives from Python against central differences taken in Python along
q ⊕ ε·e_k (Tree.integrate_configuration), on a fixed-base arm and a floating quadruped
(nq != nv), and their identities with the other Calc methods."""
import numpy as np
import pytest

import mbt
from conftest import model

EPS = 1e-6


def _ctx(name, floating=False, seed=5):
    tree = mbt.load_urdf(model(name), floating=floating)
    ctx = tree.context()
    rng = np.random.default_rng(seed)
    dq = rng.uniform(-0.5, 0.5, tree.nv)
    ctx.q = tree.integrate_configuration(ctx.q, dq)      # a unit quaternion stays unit
    ctx.v = rng.uniform(-1, 1, tree.nv)
    for j in range(tree.num_joints):                     # damping enters the derivatives
        n = tree.joint(j)["num_velocities"]
        if n:
            ctx.set_joint_damping(j, np.full(n, 0.1 * (j % 3)))
    return ctx, rng


def _numeric(ctx, f, wrt):
    """Central differences of f(ctx) along q ⊕ ε·e_k ("q") or v + ε·e_k ("v")."""
    tree, q0, v0 = ctx.tree, ctx.q.copy(), ctx.v.copy()
    cols = []
    for k in range(tree.nv):
        e = np.zeros(tree.nv)
        e[k] = EPS
        vals = []
        for sign in (1, -1):
            if wrt == "q":
                ctx.q = tree.integrate_configuration(q0, sign * e)
            else:
                ctx.v = v0 + sign * e
            vals.append(np.array(f(ctx), dtype=float))
        ctx.q, ctx.v = q0, v0
        cols.append((vals[0] - vals[1]) / (2 * EPS))
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("name,floating", [("ur5.urdf", False), ("solo12.urdf", True)])
def test_inverse_dynamics_derivatives(name, floating):
    ctx, rng = _ctx(name, floating)
    vdot, tau_app = rng.uniform(-1, 1, ctx.tree.nv), rng.uniform(-1, 1, ctx.tree.nv)
    tau, dq, dv, M = ctx.inverse_dynamics_derivatives(vdot, tau_app)
    D = np.concatenate([ctx.joint_damping(j) for j in range(ctx.tree.num_joints)])
    assert np.allclose(tau, ctx.inverse_dynamics(vdot) + D * ctx.v - tau_app, rtol=0, atol=1e-10)
    assert np.allclose(M, ctx.mass_matrix(), rtol=0, atol=1e-12)

    def f(c):
        return c.inverse_dynamics(vdot) + D * c.v - tau_app
    scale = max(1.0, np.max(np.abs(dq)))
    assert np.allclose(dq, _numeric(ctx, f, "q"), rtol=0, atol=1e-7 * scale)
    assert np.allclose(dv, _numeric(ctx, f, "v"), rtol=0, atol=1e-7 * scale)


@pytest.mark.parametrize("name,floating", [("ur5.urdf", False), ("solo12.urdf", True)])
def test_forward_dynamics_derivatives(name, floating):
    ctx, rng = _ctx(name, floating)
    tau = rng.uniform(-1, 1, ctx.tree.nv)
    vdot, dq, dv, dtau = ctx.forward_dynamics_derivatives(tau)
    assert np.allclose(vdot, ctx.forward_dynamics(tau), rtol=0, atol=1e-10)
    assert np.allclose(dtau, np.linalg.inv(ctx.mass_matrix()), rtol=0, atol=1e-8 * np.max(np.abs(dtau)))
    assert np.allclose(ctx.mass_matrix_inverse(), dtau, rtol=0, atol=1e-10 * np.max(np.abs(dtau)))
    scale = max(1.0, np.max(np.abs(dq)))
    assert np.allclose(dq, _numeric(ctx, lambda c: c.forward_dynamics(tau), "q"), rtol=0, atol=1e-7 * scale)
    assert np.allclose(dv, _numeric(ctx, lambda c: c.forward_dynamics(tau), "v"), rtol=0, atol=1e-7 * scale)


def test_gravity_derivatives_follow_the_context_gravity():
    ctx, _ = _ctx("ur5.urdf")
    G = ctx.gravity_forces_derivatives()
    assert np.allclose(G, _numeric(ctx, lambda c: c.gravity_forces(), "q"), rtol=0, atol=1e-6)
    ctx.gravity = 2 * ctx.gravity
    assert np.allclose(ctx.gravity_forces_derivatives(), 2 * G, rtol=0, atol=1e-12)


def test_bias_acceleration_and_jacobian_derivative():
    ctx, rng = _ctx("ur5.urdf")
    p = np.array([0.01, 0.02, 0.1])
    Jdot = ctx.jacobian_spatial_velocity_time_derivative("tool0", p)
    A = ctx.bias_spatial_acceleration("tool0", p)
    assert np.allclose(Jdot @ ctx.v, A, rtol=0, atol=1e-12)
    assert np.array_equal(ctx.bias_translational_acceleration("tool0", p), A[3:])
    # At a body origin the bias acceleration is the body's spatial acceleration at v̇ = 0.
    b = ctx.tree.body_index("wrist_2_link")
    frame = ctx.tree.body(b)["frame"]
    assert np.allclose(ctx.bias_spatial_acceleration(frame), ctx.spatial_accelerations(np.zeros(6))[b],
                       rtol=0, atol=1e-12)
    # J̇ = dJ/dt along v: central difference of J over q ⊕ ±ε·v.
    q0 = ctx.q.copy()
    Js = []
    for sign in (1, -1):
        ctx.q = ctx.tree.integrate_configuration(q0, sign * EPS * ctx.v)
        Js.append(ctx.jacobian_spatial_velocity("tool0", p))
    ctx.q = q0
    assert np.allclose(Jdot, (Js[0] - Js[1]) / (2 * EPS), rtol=0, atol=1e-7)


def test_configuration_maps_on_a_floating_base():
    tree = mbt.load_urdf(model("solo12.urdf"), floating=True)
    rng = np.random.default_rng(2)
    q0 = tree.integrate_configuration(tree.context().q, rng.uniform(-1, 1, tree.nv))
    dv = rng.uniform(-1, 1, tree.nv)
    q1 = tree.integrate_configuration(q0, dv)
    assert q1.shape == (tree.nq,) and np.linalg.norm(q1[:4]) == pytest.approx(1.0, abs=1e-15)
    assert np.allclose(tree.difference_configuration(q0, q1), dv, rtol=0, atol=1e-12)
    out = np.empty(tree.nv)
    assert tree.difference_configuration(q0, q1, out=out) is out
    with pytest.raises(ValueError, match="dv"):
        tree.integrate_configuration(q0, np.zeros(tree.nq))


def test_semi_implicit_euler_step_derivatives():
    ctx, rng = _ctx("ur5.urdf")
    tau, h = rng.uniform(-1, 1, 6), 1e-2
    x0 = ctx.x
    q1, v1, dq_dq, dq_dv, dq_dtau, dv_dq, dv_dv, dv_dtau = ctx.semi_implicit_euler_step_derivatives(h, tau)
    assert np.array_equal(ctx.x, x0)                       # the context is not stepped
    v_ref = ctx.v + h * ctx.forward_dynamics(tau)
    assert np.allclose(v1, v_ref, rtol=0, atol=1e-12)
    assert np.allclose(q1, ctx.tree.integrate_configuration(ctx.q, h * v_ref), rtol=0, atol=1e-12)
    assert np.allclose(dv_dtau, h * np.linalg.inv(ctx.mass_matrix()), rtol=0, atol=1e-9)
    assert np.allclose(dq_dtau, h * dv_dtau, rtol=0, atol=1e-12)     # revolute joints: q⁺ = q + h·v⁺
    _, _, _, M = ctx.inverse_dynamics_derivatives()
    _, dvdot_dq, dvdot_dv, _ = ctx.forward_dynamics_derivatives(tau)
    assert np.allclose(dv_dq, h * dvdot_dq, rtol=0, atol=1e-12)
    assert np.allclose(dv_dv, np.eye(6) + h * dvdot_dv, rtol=0, atol=1e-12)
    outs = tuple(np.empty(a.shape) for a in (q1, v1, dq_dq, dq_dv, dq_dtau, dv_dq, dv_dv, dv_dtau))
    r = ctx.semi_implicit_euler_step_derivatives(h, tau, out=outs)
    assert all(a is b for a, b in zip(r, outs)) and np.array_equal(r[6], dv_dv)


def test_derivative_errors():
    ctx, _ = _ctx("ur5.urdf")
    with pytest.raises(ValueError, match="vdot"):
        ctx.inverse_dynamics_derivatives(np.zeros(5))
    a = np.empty((6, 6))
    with pytest.raises(ValueError, match="same array"):
        ctx.inverse_dynamics_derivatives(out=(np.empty(6), a, a, np.empty((6, 6))))
    with pytest.raises(TypeError, match="tuple of 4"):
        ctx.forward_dynamics_derivatives(out=np.empty(6))
    with pytest.raises(ValueError, match="shape"):
        ctx.mass_matrix_inverse(out=np.empty((6, 5)))
    with pytest.raises(mbt.NotFoundError):
        ctx.bias_spatial_acceleration("no_such_frame")
    # A massless tip on a joint: the mass matrix is singular, and the error says where.
    tree = mbt.Tree()
    b = tree.add_rigid_body("tip", 0.0)
    tree.add_joint("revolute", "pin", 0, b)
    tree.finalize()
    with pytest.raises(mbt.SingularError, match="tip"):
        tree.context().forward_dynamics_derivatives()
    unfinished = mbt.Tree()
    with pytest.raises(mbt.NotFinalizedError):
        unfinished.integrate_configuration([], [])


def test_lqr_example_balances_the_double_pendulum(tmp_path):
    """python/examples/balance_lqr.py (docs/python.md): the gain from the analytic step
    Jacobians stabilizes the upright pendulum, which falls without it."""
    import importlib.util
    from conftest import ROOT
    spec = importlib.util.spec_from_file_location("balance_lqr", ROOT / "python" / "examples" / "balance_lqr.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    log, K, A, B = example.main(str(tmp_path / "balance.png"))
    assert np.max(np.abs(np.linalg.eigvals(A))) > 1.0                  # upright is unstable
    assert np.max(np.abs(np.linalg.eigvals(A - B @ K))) < 1.0
    assert log[-1, 0] == pytest.approx(5.0) and np.max(np.abs(log[-1, 1:])) < 1e-4
    start = example.double_pendulum().context()
    start.q = [0.2, -0.2]
    free = mbt.Simulator(start, integrator="rk4", dt=1e-3)
    free.advance_to(2.0)
    assert np.max(np.abs(free.context.q)) > 1.0                        # without the gain it falls
