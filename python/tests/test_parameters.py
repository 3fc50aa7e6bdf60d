"""Parameters as in Drake: the tree's values (gravity, inertias, default damping) are the
defaults a context takes when it is made and at set_default(); each context then holds its own
(ctx.gravity, body mass / center of mass / spatial inertia, joint damping), used by every
algorithm, carried by copy, deepcopy and pickle, and by Batch.set_parameters and Simulator."""
import copy
import pickle

import numpy as np
import pytest

import mbt
from conftest import model


def _skew(p):
    return np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])


def _state(ctx, seed=3):
    rng = np.random.default_rng(seed)
    ctx.q = rng.uniform(-2, 2, ctx.tree.nq)
    ctx.v = rng.uniform(-1, 1, ctx.tree.nv)
    return rng.uniform(-1, 1, ctx.tree.nv)


def test_tree_gravity_is_the_default_for_contexts_made_after(ur5):
    """Drake: set_gravity_vector changes the default; existing contexts keep theirs."""
    before = ur5.context()
    _state(before)
    tau_g = before.gravity_forces()
    assert np.array_equal(before.gravity, [0, 0, -9.81])
    ur5.gravity = (0.0, 0.0, -2 * 9.81)
    assert np.array_equal(before.gravity, [0, 0, -9.81])        # unchanged
    assert np.array_equal(before.gravity_forces(), tau_g)
    after = ur5.context()
    after.q = before.q
    assert np.array_equal(after.gravity, [0, 0, -2 * 9.81])
    assert np.allclose(after.gravity_forces(), 2 * tau_g, rtol=0, atol=1e-12)
    before.set_default()                                         # SetDefaultContext: the new default
    before.q = after.q
    assert np.array_equal(before.gravity, ur5.gravity)
    assert np.array_equal(before.gravity_forces(), after.gravity_forces())


def test_context_gravity_is_per_context(ur5):
    a, b = ur5.context(), ur5.context()
    _state(a), _state(b)
    tau_g = a.gravity_forces()
    a.gravity = [0.0, 0.0, 0.0]
    assert np.array_equal(a.gravity_forces(), np.zeros(6))
    assert np.array_equal(b.gravity_forces(), tau_g)                 # b keeps its own
    assert np.array_equal(ur5.gravity, [0, 0, -9.81])                # the tree's default too
    assert a.potential_energy() == 0.0
    a.gravity = (0.0, 0.0, -9.81 / 2)
    assert np.allclose(a.gravity_forces(), tau_g / 2, rtol=0, atol=1e-12)
    vdot = _state(a)
    # ID with gravity = M·v̇ + C·v − tau_g with this context's tau_g.
    assert np.allclose(a.inverse_dynamics(vdot),
                       a.mass_matrix() @ vdot + a.bias_term() - a.gravity_forces(), atol=1e-11)


def test_spatial_inertia_matrix_matches_the_tree(ur5):
    ctx = ur5.context()
    for b in range(1, ur5.num_bodies):
        body = ur5.body(b)
        m, p = body["mass"], body["p_BoBcm_B"]
        M = ctx.body_spatial_inertia(b)
        assert np.allclose(M[:3, :3], body["I_BBo_B"], rtol=0, atol=1e-14)
        assert np.array_equal(M[3:, 3:], m * np.eye(3))
        assert np.allclose(M[:3, 3:], m * _skew(p), rtol=0, atol=1e-15)
        assert np.array_equal(M[3:, :3], -M[:3, 3:])
        assert ctx.body_mass(b) == m and np.array_equal(ctx.body_center_of_mass(b), p)
        I_BBcm = np.asarray(body["I_BBo_B"]) - m * (np.dot(p, p) * np.eye(3) - np.outer(p, p))
        assert np.allclose(mbt.spatial_inertia(m, p, I_BBcm), M, rtol=0, atol=1e-14)


def test_set_spatial_inertia_equals_a_tree_built_with_it(ur5):
    """A context given the inertia of a heavier forearm computes what a tree loaded from a URDF
    with that forearm computes (an independent path: parser, finalize, default context)."""
    xml = open(model("ur5.urdf")).read()
    heavy_xml = xml.replace('<mass value="2.275"/>', '<mass value="5.5"/>', 1)
    assert heavy_xml != xml
    heavy = mbt.load_urdf_string(heavy_xml)
    b = next(b for b in range(1, ur5.num_bodies) if heavy.body(b)["mass"] != ur5.body(b)["mass"])
    body = heavy.body(b)
    ctx, ref = ur5.context(), heavy.context()
    vdot = _state(ctx)
    ref.x = ctx.x
    assert not np.allclose(ctx.mass_matrix(), ref.mass_matrix(), atol=1e-6)
    M_new = np.zeros((6, 6))
    M_new[:3, :3] = body["I_BBo_B"]
    M_new[:3, 3:] = body["mass"] * _skew(body["p_BoBcm_B"])
    M_new[3:, :3] = -M_new[:3, 3:]
    M_new[3:, 3:] = body["mass"] * np.eye(3)
    ctx.set_body_spatial_inertia(b, M_new)
    assert np.allclose(ctx.body_spatial_inertia(b), M_new, rtol=0, atol=1e-14)
    for name in ("mass_matrix", "bias_term", "gravity_forces", "center_of_mass"):
        assert np.allclose(getattr(ctx, name)(), getattr(ref, name)(), rtol=0, atol=1e-12), name
    assert np.allclose(ctx.inverse_dynamics(vdot), ref.inverse_dynamics(vdot), rtol=0, atol=1e-12)
    assert np.allclose(ctx.forward_dynamics(vdot), ref.forward_dynamics(vdot), rtol=0, atol=1e-10)
    assert ctx.kinetic_energy() == pytest.approx(ref.kinetic_energy(), abs=1e-12)
    other = ur5.context()
    other.x = ctx.x
    assert not np.allclose(other.mass_matrix(), ctx.mass_matrix(), atol=1e-6)   # others keep theirs
    assert ur5.body(b)["mass"] == 2.275


def test_set_mass_scales_the_body_as_drake_does(ur5):
    ctx = ur5.context()
    _state(ctx)
    b = ur5.body_index("forearm_link")
    M0, p0 = ctx.body_spatial_inertia(b), ctx.body_center_of_mass(b)
    mm0 = ctx.mass_matrix()
    ctx.set_body_mass(b, 3 * ctx.body_mass(b))
    assert np.allclose(ctx.body_spatial_inertia(b), 3 * M0, rtol=1e-15, atol=0)
    assert np.array_equal(ctx.body_center_of_mass(b), p0)
    # M(q) is linear in each body's spatial inertia, so with the body's mass tripled the change
    # of M(q) is twice the change with the mass doubled.
    mm3 = ctx.mass_matrix()
    ctx.set_body_mass(b, 2 * ur5.body(b)["mass"])
    mm2 = ctx.mass_matrix()
    assert np.allclose(mm3 - mm0, 2 * (mm2 - mm0), rtol=0, atol=1e-12)
    assert np.max(np.abs(mm2 - mm0)) > 1e-3


def test_center_of_mass_setters(ur5):
    ctx = ur5.context()
    b = ur5.body_index("upper_arm_link")
    m = ctx.body_mass(b)
    p0 = ctx.body_center_of_mass(b)
    M0 = ctx.body_spatial_inertia(b)
    central0 = M0[:3, :3] - m * (p0 @ p0 * np.eye(3) - np.outer(p0, p0))
    p1 = p0 + [0.01, -0.02, 0.05]
    ctx.set_body_center_of_mass(b, p1, preserve_central_inertia=True)
    M1 = ctx.body_spatial_inertia(b)
    central1 = M1[:3, :3] - m * (p1 @ p1 * np.eye(3) - np.outer(p1, p1))
    assert np.array_equal(ctx.body_center_of_mass(b), p1)
    assert np.allclose(central1, central0, rtol=0, atol=1e-13)
    ctx.set_body_center_of_mass(b, p0)                       # keeps the unit inertia about Bo
    assert np.allclose(ctx.body_spatial_inertia(b)[:3, :3], M1[:3, :3], rtol=0, atol=1e-13)
    assert np.array_equal(ctx.body_center_of_mass(b), p0)


def test_bad_parameters_raise_and_change_nothing(ur5):
    ctx = ur5.context()
    _state(ctx)
    b = ur5.body_index("wrist_1_link")
    M0, g0, mm0 = ctx.body_spatial_inertia(b), ctx.gravity, ctx.mass_matrix()
    with pytest.raises(mbt.NonphysicalError, match="wrist_1_link': the mass must be finite and >= 0"):
        ctx.set_body_mass(b, -1.0)
    with pytest.raises(mbt.Error, match="finite"):
        ctx.set_body_mass(b, float("nan"))
    bad = M0.copy()
    bad[0, 0] = -1.0                                           # negative moment of inertia
    with pytest.raises(mbt.NonphysicalError, match="wrist_1_link"):
        ctx.set_body_spatial_inertia(b, bad)
    wrong = M0.copy()
    wrong[3, 4] = 0.5                                          # not of the spatial-inertia form
    with pytest.raises(ValueError, match=r"spatial inertia.*\[3, 4\]"):
        ctx.set_body_spatial_inertia(b, wrong)
    with pytest.raises(ValueError, match="6, 6"):
        ctx.set_body_spatial_inertia(b, np.eye(3))
    with pytest.raises(mbt.NonphysicalError):
        ctx.set_body_center_of_mass(b, [10.0, 0, 0])            # triangle inequality broken
    with pytest.raises(mbt.Error):
        ctx.set_body_mass(0, 1.0)                               # the world has no inertia
    with pytest.raises(mbt.NotFoundError):
        ctx.body_mass("no_such_link")
    with pytest.raises(mbt.InvalidArgumentError, match="gravity"):
        ctx.gravity = [0, 0, float("inf")]
    with pytest.raises(ValueError):
        ctx.gravity = [0, 0]
    assert np.array_equal(ctx.body_spatial_inertia(b), M0)
    assert np.array_equal(ctx.gravity, g0) and np.array_equal(ctx.mass_matrix(), mm0)


def _modified(tree):
    ctx = tree.context()
    _state(ctx)
    ctx.gravity = (0.5, -0.25, -3.0)
    ctx.set_body_mass("forearm_link", 4.0)
    ctx.set_body_center_of_mass("wrist_2_link", [0.01, 0.02, 0.03], preserve_central_inertia=True)
    ctx.set_joint_damping("elbow_joint", [0.7])
    ctx.lock_joint("wrist_3_joint")
    ctx.time = 0.5
    return ctx


def test_copies_and_pickles_carry_the_parameters(ur5):
    ctx = _modified(ur5)
    fresh = ur5.context()
    fresh.x = ctx.x
    assert not np.allclose(fresh.forward_dynamics(), ctx.forward_dynamics(), atol=1e-6)
    for other in (ctx.copy(), copy.copy(ctx), copy.deepcopy(ctx), pickle.loads(pickle.dumps(ctx))):
        assert np.array_equal(other.gravity, ctx.gravity)
        for b in range(1, ur5.num_bodies):
            assert np.array_equal(other.body_spatial_inertia(b), ctx.body_spatial_inertia(b))
        assert other.joint_damping("elbow_joint")[0] == 0.7 and other.is_joint_locked("wrist_3_joint")
        assert np.array_equal(other.x, ctx.x) and other.time == 0.5
        for name in ("forward_dynamics", "mass_matrix", "gravity_forces"):
            assert np.array_equal(getattr(other, name)(), getattr(ctx, name)()), name
        other.gravity = (0, 0, 0)                                  # and independent of it
        assert ctx.gravity[2] == -3.0
    # The pickled tree carries its gravity (the default), the context its own.
    ur5.gravity = (0, 0, -1.0)
    c2 = pickle.loads(pickle.dumps(ctx))
    assert np.array_equal(c2.tree.gravity, [0, 0, -1.0]) and np.array_equal(c2.gravity, ctx.gravity)
    assert np.array_equal(c2.tree.context().gravity, [0, 0, -1.0])


def test_set_default_restores_the_tree_values(ur5):
    ctx = _modified(ur5)
    ctx.set_default()
    ref = ur5.context()
    assert np.array_equal(ctx.gravity, ref.gravity) and ctx.time == 0.0
    for b in range(1, ur5.num_bodies):
        assert np.array_equal(ctx.body_spatial_inertia(b), ref.body_spatial_inertia(b))
    assert not ctx.is_joint_locked("wrist_3_joint")
    assert np.array_equal(ctx.joint_damping("elbow_joint"), ref.joint_damping("elbow_joint"))


def test_batch_and_simulator_use_the_context_parameters(ur5):
    ctx = _modified(ur5)
    ctx.unlock_joint("wrist_3_joint")
    batch = mbt.Batch(ur5, num_threads=2)
    batch.set_parameters(ctx)
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (5, ur5.nq + ur5.nv))
    tau, vdot = batch.inverse_dynamics(x), batch.forward_dynamics(x)
    M = batch.mass_matrix(x[:, :ur5.nq])
    probe = ctx.copy()
    for k in range(len(x)):
        probe.x = x[k]
        assert np.array_equal(tau[k], probe.inverse_dynamics())
        assert np.array_equal(vdot[k], probe.forward_dynamics())
        assert np.array_equal(M[k], probe.mass_matrix())
    # Zero gravity in the context: a simulation started at rest stays at rest.
    still = ur5.context()
    still.q = x[0, :ur5.nq]
    still.gravity = (0, 0, 0)
    sim = mbt.Simulator(still, integrator="rk4", dt=1e-3)
    sim.advance_to(0.2)
    assert np.array_equal(sim.context.q, still.q) and np.array_equal(sim.context.gravity, [0, 0, 0])
    # Rollouts start from each context with its own parameters.
    runs = batch.rollouts([still, ur5.context()], 0.2, integrator="rk4", dt=1e-3)
    assert np.array_equal(runs[0]["x_final"], still.x) and runs[1]["status"] == 0
    falling = mbt.Simulator(ur5.context(), integrator="rk4", dt=1e-3)
    falling.context.q = x[0, :ur5.nq]
    falling.advance_to(0.2)
    assert np.max(np.abs(falling.context.q - still.q)) > 1e-3


def test_spatial_inertia_helper():
    M = mbt.spatial_inertia(2.0, [0.1, 0.2, 0.3], np.diag([0.1, 0.2, 0.3]))
    p = np.array([0.1, 0.2, 0.3])
    assert np.allclose(M[:3, :3], np.diag([0.1, 0.2, 0.3]) + 2.0 * (p @ p * np.eye(3) - np.outer(p, p)))
    assert np.allclose(M[:3, 3:], 2.0 * _skew(p)) and np.allclose(M[3:, 3:], 2.0 * np.eye(3))
    # [h; l] = M·[w; v]: l = m·(v + w × p), the momentum of the center of mass.
    w, v = np.array([0.3, -0.1, 0.2]), np.array([1.0, 2.0, -1.0])
    assert np.allclose((M @ np.r_[w, v])[3:], 2.0 * (v + np.cross(w, p)))
    with pytest.raises(ValueError):
        mbt.spatial_inertia(1.0, [0, 0], np.eye(3))


def test_default_damping_and_positions_are_fixed_at_finalize(ur5):
    """Drake: set_default_damping requires an unfinalized plant; the context's damping is the
    per-context parameter. Gravity is the tree default that can change after finalize."""
    ctx = ur5.context()
    d0 = ctx.joint_damping("elbow_joint").copy()
    with pytest.raises(mbt.FinalizedError, match="elbow_joint"):
        ur5.set_default_damping("elbow_joint", [3.0])
    with pytest.raises(mbt.FinalizedError, match="elbow_joint"):
        ur5.set_default_positions("elbow_joint", [0.3])
    assert np.array_equal(ur5.context().joint_damping("elbow_joint"), d0)
    ctx.set_joint_damping("elbow_joint", [3.0])
    assert ctx.joint_damping("elbow_joint")[0] == 3.0
    assert np.array_equal(ur5.context().joint_damping("elbow_joint"), d0)
