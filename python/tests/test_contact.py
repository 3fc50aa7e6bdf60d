"""Contact from Python: mbt.ContactModel and the 'time_stepping' simulator, checked against
what statics and Coulomb friction predict, and the errors."""
import numpy as np
import pytest

import mbt
from conftest import model

G = 9.81
SIDE, MASS = 0.2, 1.0


def _free_box():
    tree = mbt.Tree()
    b = tree.add_rigid_body("box", MASS, (0, 0, 0), np.eye(3) * MASS * SIDE**2 / 6)
    tree.add_joint("quaternion_floating", "free", 0, b)
    tree.finalize()
    return tree, b


def _box_on_ground(mu, k=1e5):
    tree, b = _free_box()
    material = {"static_friction": mu, "dynamic_friction": mu, "stiffness": k}
    cm = mbt.ContactModel(tree)
    assert cm.add_box(b, (SIDE, SIDE, SIDE), material=material) == 0
    assert cm.add_ground(material=material) == 1
    assert cm.num_shapes == 2 and cm.shape_body(0) == b and cm.shape_body(1) == 0 and cm.tree is tree
    ctx = tree.context()
    q = ctx.q.copy()
    q[6] = SIDE / 2            # resting on z = 0
    ctx.q = q
    return tree, b, cm, ctx


def test_box_rests_on_the_ground_with_the_static_penetration():
    """Four corners, springs in series (k/2 each): 4·(k/2)·φ = m·g."""
    k = 1e5
    tree, b, cm, ctx = _box_on_ground(1.0, k)
    sim = mbt.Simulator(ctx, integrator="time_stepping", dt=1e-3, contact_model=cm)
    assert sim.contact_model is cm
    sim.advance_to(1.0)
    phi = MASS * G / (4 * k / 2)
    assert sim.context.q[6] == pytest.approx(SIDE / 2 - phi, abs=1e-7)
    assert np.max(np.abs(sim.context.v)) < 1e-9
    F = sim.contact_body_forces()
    assert F.shape == (tree.num_bodies, 6)
    assert F[b, 5] == pytest.approx(MASS * G, rel=1e-9) and F[0, 5] == pytest.approx(-MASS * G, rel=1e-9)
    points = sim.contacts()
    assert len(points) == 4
    assert sum(p["fn"] for p in points) == pytest.approx(MASS * G, rel=1e-9)
    for p in points:
        up = 1.0 if p["body_A"] == b else -1.0                # the normal points from B into A
        assert {p["body_A"], p["body_B"]} == {0, b}
        assert np.allclose(p["nhat_BA_W"], [0, 0, up]) and p["depth"] > 0
    assert sim.stats["contact_points"] == 4 * sim.stats["steps_taken"]


def test_sliding_box_stops_where_coulomb_friction_says():
    """v0 = 1 m/s, μ = 0.5: it slides v0²/(2·μ·g) = 0.102 m, then sticks."""
    mu, v0 = 0.5, 1.0
    tree, b, cm, ctx = _box_on_ground(mu)
    v = np.zeros(6)
    v[3] = v0
    ctx.v = v
    sim = mbt.Simulator(ctx, integrator="time_stepping", dt=1e-3, contact_model=cm)
    sim.advance_to(0.05)
    assert sim.context.v[3] == pytest.approx(v0 - mu * G * 0.05, abs=0.02)
    sim.advance_to(0.6)
    assert sim.context.q[4] == pytest.approx(v0**2 / (2 * mu * G), rel=0.02)
    assert abs(sim.context.v[3]) < 1e-9


def test_without_contact_the_box_falls_through():
    tree, b, cm, ctx = _box_on_ground(1.0)
    sim = mbt.Simulator(ctx, integrator="time_stepping", dt=1e-3)
    sim.advance_to(0.5)
    assert sim.context.q[6] == pytest.approx(SIDE / 2 - 0.5 * G * 0.5**2, abs=0.01)
    assert sim.contacts() == [] and sim.contact_model is None


def test_filters_and_default_material():
    tree = mbt.load_urdf(model("ur5.urdf"))
    cm = mbt.ContactModel(tree)
    assert not cm.pair_enabled("upper_arm_link", "forearm_link")      # parent and child
    assert cm.pair_enabled("upper_arm_link", "wrist_2_link")
    cm.exclude_pair("upper_arm_link", "wrist_2_link")
    assert not cm.pair_enabled("upper_arm_link", "wrist_2_link")
    assert mbt.ContactModel.default_material() == {
        "static_friction": 1.0, "dynamic_friction": 1.0, "stiffness": 1e5, "dissipation_time": 0.01}
    X = np.eye(4)
    X[:3, 3] = (0, 0, 0.1)
    assert cm.add_capsule("forearm_link", 0.05, 0.3, X_BG=X) == 0
    assert cm.add_cylinder("wrist_1_link", 0.04, 0.1) == 1
    assert cm.add_sphere("wrist_3_link", 0.03) == 2
    assert cm.add_vertices("tool0", [[0, 0, 0], [0.01, 0, 0]]) == 3
    assert cm.add_half_space(0) == 4
    assert cm.num_shapes == 5 and cm.shape_body(3) == tree.body_index("tool0")


def test_contact_errors():
    tree, b = _free_box()
    cm = mbt.ContactModel(tree)
    with pytest.raises(mbt.InvalidArgumentError):
        cm.add_sphere(b, -0.1)
    with pytest.raises(mbt.InvalidArgumentError):
        cm.add_box(b, (0.1, 0.1, 0.1), material={"static_friction": 0.2, "dynamic_friction": 0.5})
    with pytest.raises(ValueError, match="unknown key 'mu'"):
        cm.add_sphere(b, 0.1, material={"mu": 0.5})
    with pytest.raises(mbt.NotFoundError):
        cm.add_sphere("nothing", 0.1)
    with pytest.raises(IndexError):
        cm.shape_body(0)
    assert cm.num_shapes == 0                                         # nothing was added
    unfinished = mbt.Tree()
    unfinished.add_rigid_body("b", 1.0, (0, 0, 0), np.eye(3))
    with pytest.raises(mbt.NotFinalizedError):
        mbt.ContactModel(unfinished)
    cm.add_sphere(b, 0.1)
    ctx = tree.context()
    with pytest.raises(mbt.InvalidArgumentError, match="time_stepping"):
        mbt.Simulator(ctx, integrator="rk45", contact_model=cm)
    other = mbt.ContactModel(_free_box()[0])
    with pytest.raises(mbt.InvalidArgumentError, match="another tree"):
        mbt.Simulator(ctx, integrator="time_stepping", contact_model=other)
    with pytest.raises(TypeError, match="ContactModel"):
        mbt.Simulator(ctx, integrator="time_stepping", contact_model="ground")
    sim = mbt.Simulator(ctx, integrator="time_stepping", contact_model=cm)
    with pytest.raises(RuntimeError, match="in use by a simulator"):
        cm.add_ground()
    with pytest.raises(mbt.InvalidArgumentError):
        sim.set_contact_solver(0, 1e-6)
    sim.set_contact_solver(50, 1e-8)
    with pytest.raises(ValueError, match="'sap' or 'pgs'"):
        sim.set_contact_solver_method("newton")
    sim.set_contact_solver_method("pgs")
    sim.set_contact_solver_method("sap")
    sim.contact_model = None
    with pytest.raises(mbt.InvalidArgumentError):
        sim.set_contact_solver(50, 1e-8)                              # no model any more
    with pytest.raises(mbt.InvalidArgumentError, match="no contact model"):
        sim.set_contact_solver_method("pgs")


def test_both_solvers_rest_the_box_and_report_their_residual():
    """SAP and PGS: the same resting height; each step converged below its tolerance."""
    for method, tol in (("sap", 1e-10), ("pgs", 1e-6)):
        tree, b, cm, ctx = _box_on_ground(1.0)
        sim = mbt.Simulator(ctx, integrator="time_stepping", dt=1e-3, contact_model=cm)
        sim.set_contact_solver_method(method)
        sim.advance_to(0.5)
        assert sim.context.q[6] == pytest.approx(SIDE / 2 - MASS * G / (2 * 1e5), abs=1e-7)
        assert sim.stats["contact_unconverged"] == 0
        assert 0 <= sim.stats["contact_residual_max"] <= tol


BALL_URDF = """<robot name="ball">
  <link name="ball">
    <inertial><mass value="1"/><inertia ixx="0.004" iyy="0.004" izz="0.004" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><sphere radius="0.1"/></geometry></collision>
  </link>
</robot>"""


def test_collision_geometry_from_urdf_and_lowest_point():
    tree = mbt.load_urdf_string(BALL_URDF, floating=True)
    cm = mbt.ContactModel(tree)
    assert cm.add_collision_geometry() == 1 and cm.shape_body(0) == tree.body_index("ball")
    ctx = tree.context()
    q = ctx.q.copy()
    q[6] = 0.5
    ctx.q = q
    assert cm.lowest_point(ctx) == pytest.approx(0.4, abs=1e-15)
    q[6] = 0.1                                       # resting on z = 0
    ctx.q = q
    assert cm.lowest_point(ctx) == pytest.approx(0.0, abs=1e-15)
    cm.add_ground()
    sim = mbt.Simulator(ctx, integrator="time_stepping", dt=1e-3, contact_model=cm)
    sim.advance_to(1.0)
    k = mbt.ContactModel.default_material()["stiffness"] / 2     # springs in series
    assert sim.context.q[6] == pytest.approx(0.1 - 9.81 / k, abs=1e-7)
    with pytest.raises(RuntimeError, match="in use"):
        cm.add_collision_geometry()


def test_lowest_point_of_a_robot_moves_with_its_base():
    tree = mbt.load_urdf(model("solo12.urdf"), floating=True)
    cm = mbt.ContactModel(tree)
    assert cm.add_collision_geometry(material={"static_friction": 0.8, "dynamic_friction": 0.8}) == 17
    ctx = tree.context()
    z0 = cm.lowest_point(ctx)
    q = ctx.q.copy()
    q[6] += 0.25
    ctx.q = q
    assert cm.lowest_point(ctx) == pytest.approx(z0 + 0.25, abs=1e-14)
    with pytest.raises(TypeError, match="model's tree"):
        cm.lowest_point(mbt.load_urdf(model("ur5.urdf")).context())
    empty = mbt.ContactModel(tree)
    with pytest.raises(mbt.NotFoundError):
        empty.lowest_point(ctx)
