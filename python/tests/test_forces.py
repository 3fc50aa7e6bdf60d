"""Force elements built from Python (linear spring-dampers, torsional springs) against their
closed forms, and free-body poses and velocities of floating joints."""
import numpy as np
import pytest

import mbt
from conftest import model

M, K, L0, C = 2.0, 400.0, 0.5, 3.0


def _hanging_mass():
    """A mass on a vertical rail (prismatic along z), hung from the world origin by a spring."""
    tree = mbt.Tree()
    b = tree.add_rigid_body("mass", M, (0, 0, 0), np.eye(3) * 0.01)
    tree.add_joint("prismatic", "rail", 0, b, axis=(0, 0, 1))
    e = tree.add_linear_spring_damper("spring", 0, (0, 0, 0), b, (0, 0, 0), L0, K, C)
    tree.finalize()
    assert tree.force_elements[e] == "spring" and len(tree.force_elements) == e + 1
    return tree


def test_linear_spring_damper_hangs_the_mass_at_its_equilibrium():
    tree = _hanging_mass()
    ctx = tree.context()
    z_eq = -(L0 + M * 9.81 / K)
    ctx.q = [z_eq]
    assert ctx.forward_dynamics()[0] == pytest.approx(0.0, abs=1e-12)
    z, zdot = -0.7, -0.2
    ctx.q, ctx.v = [z], [zdot]
    stretch, rate = abs(z) - L0, -zdot            # ℓ = −z, ℓ̇ = −ż
    # Spring pulls the mass up by k·(ℓ − ℓ0) + c·ℓ̇; gravity pulls it down.
    f = K * stretch + C * rate - M * 9.81
    tau, F = ctx.force_elements()                 # as spatial forces on the body, at Bo in W
    assert tau[0] + F[1, 5] == pytest.approx(f, abs=1e-12)
    assert ctx.forward_dynamics()[0] == pytest.approx(f / M, abs=1e-12)
    assert ctx.potential_energy() == pytest.approx(0.5 * K * stretch**2 + M * 9.81 * z, abs=1e-12)
    ctx.gravity = (0, 0, 0)                       # the spring alone, in this context
    assert ctx.forward_dynamics()[0] == pytest.approx((K * stretch + C * rate) / M, abs=1e-12)
    start = tree.context()
    start.q = [z]
    sim = mbt.Simulator(start, integrator="rk45", rtol=1e-10, atol=1e-12)
    sim.advance_to(30.0)                          # decays as exp(−c·t/2m): settles at z_eq
    assert sim.context.q[0] == pytest.approx(z_eq, abs=1e-6)


def test_revolute_spring():
    tree = mbt.load_urdf(model("double_pendulum.urdf"))   # finalized: no more force elements
    t = mbt.Tree()
    b = t.add_rigid_body("arm", 1.0, (0, 0, -0.5), np.eye(3) * 0.02)
    j = t.add_joint("revolute", "pin", 0, b, axis=(0, 1, 0))
    t.add_revolute_spring("torsion", j, 0.3, 50.0)
    t.finalize()
    ctx = t.context()
    ctx.gravity = (0, 0, 0)
    ctx.q = [1.0]
    tau, F = ctx.force_elements()
    assert tau[0] + F[1, 1] == pytest.approx(-50.0 * (1.0 - 0.3), abs=1e-12)   # about y
    assert ctx.potential_energy() == pytest.approx(0.5 * 50.0 * 0.7**2, abs=1e-12)
    with pytest.raises(mbt.FinalizedError):
        tree.add_revolute_spring("late", 0, 0.0, 1.0)


def test_force_element_errors():
    t = mbt.Tree()
    b = t.add_rigid_body("b", 1.0, (0, 0, 0), np.eye(3) * 0.01)
    j = t.add_joint("prismatic", "slide", 0, b, axis=(1, 0, 0))
    with pytest.raises(mbt.InvalidArgumentError):
        t.add_linear_spring_damper("s", 0, (0, 0, 0), b, (0, 0, 0), -1.0, K)   # free length <= 0
    with pytest.raises(mbt.InvalidArgumentError):
        t.add_revolute_spring("r", j, 0.0, 10.0)                                  # not revolute
    with pytest.raises(mbt.NotFoundError):
        t.add_linear_spring_damper("s", 0, (0, 0, 0), "nobody", (0, 0, 0), 1.0, K)
    with pytest.raises(ValueError, match="p_AP"):
        t.add_linear_spring_damper("s", 0, (0, 0), b, (0, 0, 0), 1.0, K)
    assert len(t.force_elements) == 1                                             # gravity only


def test_floating_joint_pose_and_velocity():
    tree = mbt.load_urdf(model("solo12.urdf"), floating=True)
    ctx = tree.context()
    j = next(j for j in range(tree.num_joints) if tree.joint(j)["type"] == "quaternion_floating")
    body = tree.joint(j)["child"]
    c, s = np.cos(0.4), np.sin(0.4)
    X = np.array([[c, -s, 0, 0.1], [s, c, 0, -0.2], [0, 0, 1, 0.35], [0, 0, 0, 1.0]])
    ctx.set_floating_joint_pose(j, X)
    assert np.allclose(ctx.floating_joint_pose(j), X, rtol=0, atol=1e-15)
    assert np.allclose(ctx.body_pose(body), X, rtol=0, atol=1e-15)        # F is the world here
    V = np.array([0.1, -0.2, 0.3, 1.0, 2.0, -0.5])
    ctx.set_floating_joint_spatial_velocity(j, V)
    assert np.allclose(ctx.body_spatial_velocity(body), V, rtol=0, atol=1e-15)
    bad = X.copy()
    bad[0, 0] = 2.0
    with pytest.raises(ValueError, match="rotation"):
        ctx.set_floating_joint_pose(j, bad)
    assert np.allclose(ctx.floating_joint_pose(j), X, rtol=0, atol=1e-15)  # unchanged
    revolute = next(k for k in range(tree.num_joints) if tree.joint(k)["type"] == "revolute")
    with pytest.raises(mbt.InvalidArgumentError):
        ctx.floating_joint_pose(revolute)
