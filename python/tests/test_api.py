"""Tree, Context and their Calc methods: each checked against another path to the same
quantity (finite differences, the definition, a second algorithm, closed forms)."""
import copy
import math
import pickle

import numpy as np
import pytest

import mbt
from conftest import model


def test_tree_properties(ur5):
    assert (ur5.nq, ur5.nv, ur5.num_bodies, ur5.num_joints) == (6, 6, 11, 10)
    assert ur5.bodies[0] == "world" and ur5.body_index("tool0") == ur5.bodies.index("tool0")
    assert ur5.frames[ur5.frame_index("tool0")] == "tool0"
    assert ur5.robot_name == "ur5" and ur5.is_finalized
    j = ur5.joint("elbow_joint")
    assert j["type"] == "revolute" and j["num_velocities"] == 1
    assert ur5.position_names[j["position_start"]] == "elbow_joint_q"
    # Limits from the URDF: elbow ±π, the others ±2π.
    assert ur5.position_lower_limits[j["position_start"]] == pytest.approx(-math.pi)
    assert ur5.position_upper_limits[0] == pytest.approx(2 * math.pi)
    assert ur5.total_mass == pytest.approx(sum(ur5.body(b)["mass"] for b in range(ur5.num_bodies)))
    assert np.all(ur5.joint_effort[:0] >= 0)


def test_state_views_and_copies(ur5):
    ctx = ur5.context()
    q = ctx.q
    assert not q.flags.writeable
    with pytest.raises(ValueError):
        q[0] = 1.0
    ctx.q = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    assert q[2] == 0.3                    # the view follows the context
    x = ctx.x
    ctx.v = np.ones(6)
    assert np.all(x[6:] == 0) and np.all(ctx.x[6:] == 1)   # x is a copy
    ctx.time = 2.5
    assert ctx.time == 2.5
    ctx.set_default()
    assert np.all(ctx.q == 0) and ctx.time == 0


def test_mass_matrix_two_ways(ur5_ctx):
    M = ur5_ctx.mass_matrix()
    assert np.allclose(M, M.T, atol=1e-14)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    assert np.allclose(M, ur5_ctx.mass_matrix_via_inverse_dynamics(), atol=1e-12)
    v = ur5_ctx.v
    assert ur5_ctx.kinetic_energy() == pytest.approx(0.5 * v @ M @ v, rel=1e-12)


def test_inverse_of_forward_dynamics(ur5_ctx):
    for j in range(ur5_ctx.tree.num_joints):
        n = ur5_ctx.tree.joint(j)["num_velocities"]
        ur5_ctx.set_joint_damping(j, np.zeros(n))
    tau = np.array([1.0, -2.0, 0.5, 0.1, -0.3, 0.2])
    vdot = ur5_ctx.forward_dynamics(tau)
    assert np.allclose(ur5_ctx.inverse_dynamics(vdot), tau, atol=1e-10)
    assert np.allclose(ur5_ctx.forward_dynamics_via_mass_matrix(tau), vdot, atol=1e-10)
    M, Cv, tg = ur5_ctx.mass_matrix(), ur5_ctx.bias_term(), ur5_ctx.gravity_forces()
    assert np.allclose(ur5_ctx.inverse_dynamics(vdot), M @ vdot + Cv - tg, atol=1e-10)
    # Seed CalcInverseDynamics takes gravity as an applied force.
    assert np.allclose(ur5_ctx.inverse_dynamics_applied(vdot, tau_applied=tg),
                       ur5_ctx.inverse_dynamics(vdot), atol=1e-10)


def test_applied_spatial_forces(ur5_ctx):
    """A force F at tool0's origin enters as J_WFᵀ·F, in ID and FD alike."""
    tree = ur5_ctx.tree
    F = np.zeros((tree.num_bodies, 6))
    b = tree.body_index("wrist_3_link")
    F[b] = [0.1, -0.2, 0.3, 1.0, 2.0, -3.0]
    J = ur5_ctx.jacobian_spatial_velocity(tree.body(b)["frame"])
    vdot = np.linspace(-1, 1, 6)
    tau0 = ur5_ctx.inverse_dynamics_applied(vdot)
    assert np.allclose(ur5_ctx.inverse_dynamics_applied(vdot, F_applied=F), tau0 - J.T @ F[b], atol=1e-10)
    M = ur5_ctx.mass_matrix()
    d = ur5_ctx.forward_dynamics(F_applied=F) - ur5_ctx.forward_dynamics()
    assert np.allclose(M @ d, J.T @ F[b], atol=1e-9)


def test_damping_and_locks(ur5_ctx):
    tree = ur5_ctx.tree
    ur5_ctx.set_joint_damping("elbow_joint", [2.0])
    assert ur5_ctx.joint_damping("elbow_joint")[0] == 2.0
    tau, F = ur5_ctx.force_elements()
    k = tree.joint("elbow_joint")["velocity_start"]
    expected = np.zeros(6)
    expected[k] = -2.0 * ur5_ctx.v[k]
    assert np.allclose(tau, expected, atol=1e-14)
    # Gravity comes as spatial forces at the body origins: Σ J_WBᵀ·F_Bo_W = tau_g.
    total = sum(ur5_ctx.jacobian_spatial_velocity(tree.body(b)["frame"]).T @ F[b]
                for b in range(tree.num_bodies))
    assert np.allclose(total, ur5_ctx.gravity_forces(), atol=1e-12)
    ur5_ctx.lock_joint("elbow_joint")
    assert ur5_ctx.is_joint_locked("elbow_joint") and ur5_ctx.v[k] == 0
    assert ur5_ctx.forward_dynamics()[k] == 0
    ur5_ctx.unlock_joint("elbow_joint")
    assert ur5_ctx.forward_dynamics()[k] != 0


def test_poses_points_and_transforms(ur5_ctx):
    tree = ur5_ctx.tree
    poses = ur5_ctx.body_poses()
    b = tree.body_index("forearm_link")
    assert np.array_equal(poses[b], ur5_ctx.body_pose("forearm_link"))
    p_B = np.array([[0.1, 0.2, 0.3], [-1.0, 0.0, 0.5]])
    p_W = ur5_ctx.points_positions(tree.body(b)["frame"], p_B)
    assert np.allclose(p_W, (poses[b][:3, :3] @ p_B.T).T + poses[b][:3, 3], atol=1e-14)
    a = tree.body_index("upper_arm_link")
    X_AB = ur5_ctx.relative_transform(tree.body(a)["frame"], tree.body(b)["frame"])
    assert np.allclose(X_AB, np.linalg.inv(poses[a]) @ poses[b], atol=1e-12)


def test_jacobian_against_finite_differences(ur5_ctx):
    """UR5 has q̇ = v: J·v equals the derivative of the point's position and the frame's
    spatial velocity."""
    tree, h = ur5_ctx.tree, 1e-6
    f = tree.frame_index("tool0")
    p_FoFp = np.array([0.05, 0.0, 0.02])
    J = ur5_ctx.jacobian_spatial_velocity(f, p_FoFp)
    q, v = ur5_ctx.q.copy(), ur5_ctx.v.copy()
    assert np.allclose(J @ v, _point_velocity(ur5_ctx, f, p_FoFp), atol=1e-12)
    assert np.allclose(ur5_ctx.jacobian_spatial_velocity(f) @ v, ur5_ctx.frame_spatial_velocity(f), atol=1e-12)
    probe = ur5_ctx.copy()
    probe.q = q + h * v
    p_plus = probe.points_positions(f, p_FoFp[None, :])[0]
    probe.q = q - h * v
    p_minus = probe.points_positions(f, p_FoFp[None, :])[0]
    assert np.allclose(J[3:] @ v, (p_plus - p_minus) / (2 * h), atol=1e-7)


def _point_velocity(ctx, frame, p_FoFp):
    V = ctx.frame_spatial_velocity(frame)
    R_WF = ctx.relative_transform(0, frame)[:3, :3]
    return np.concatenate([V[:3], V[3:] + np.cross(V[:3], R_WF @ p_FoFp)])


def test_spatial_accelerations_against_finite_differences(ur5_ctx):
    tree, h = ur5_ctx.tree, 1e-5
    vdot = np.array([0.3, -0.2, 0.5, 1.0, -1.0, 0.4])
    A = ur5_ctx.spatial_accelerations(vdot)
    b = tree.body_index("wrist_2_link")
    q, v = ur5_ctx.q.copy(), ur5_ctx.v.copy()
    V = []
    for s in (1, -1):
        probe = ur5_ctx.copy()
        probe.q = q + s * h * v + 0.5 * h * h * vdot
        probe.v = v + s * h * vdot
        V.append(probe.body_spatial_velocity(b))
    assert np.allclose(A[b], (V[0] - V[1]) / (2 * h), atol=1e-6)


def test_center_of_mass_and_momentum(ur5_ctx):
    tree = ur5_ctx.tree
    poses = ur5_ctx.body_poses()
    m = np.array([tree.body(b)["mass"] for b in range(tree.num_bodies)])
    p = np.array([poses[b][:3, :3] @ tree.body(b)["p_BoBcm_B"] + poses[b][:3, 3]
                  for b in range(tree.num_bodies)])
    com = (m[1:, None] * p[1:]).sum(axis=0) / m[1:].sum()
    assert np.allclose(ur5_ctx.center_of_mass(), com, atol=1e-14)
    L = ur5_ctx.spatial_momentum(com)
    assert np.allclose(L[3:], m[1:].sum() * ur5_ctx.center_of_mass_velocity(), atol=1e-12)
    # Linear momentum does not depend on the point; h shifts by p × l.
    L0 = ur5_ctx.spatial_momentum()
    assert np.allclose(L0[3:], L[3:], atol=1e-14)
    assert np.allclose(L0[:3], L[:3] + np.cross(com, L[3:]), atol=1e-12)


def test_floating_base_maps():
    tree = mbt.load_urdf(model("solo12.urdf"), floating=True)
    assert (tree.nq, tree.nv) == (19, 18)
    ctx = tree.context()
    rng = np.random.default_rng(3)
    quat = rng.normal(size=4)
    ctx.set_joint_positions("root_joint", np.concatenate([quat / np.linalg.norm(quat), [0.1, 0.2, 0.3]]))
    v = rng.uniform(-1, 1, 18)
    qdot = ctx.map_velocity_to_qdot(v)
    assert qdot.shape == (19,)
    assert np.allclose(ctx.map_qdot_to_velocity(qdot), v, atol=1e-13)


def test_out_arrays_are_written_in_place(ur5_ctx):
    out = np.empty(6)
    r = ur5_ctx.inverse_dynamics(np.ones(6), out=out)
    assert r is out and np.array_equal(out, ur5_ctx.inverse_dynamics(np.ones(6)))
    M = np.empty((6, 6))
    assert ur5_ctx.mass_matrix(out=M) is M and np.array_equal(M, ur5_ctx.mass_matrix())
    J = np.empty((6, 6))
    assert ur5_ctx.jacobian_spatial_velocity("tool0", out=J) is J
    P = np.empty((ur5_ctx.tree.num_bodies, 4, 4))
    assert ur5_ctx.body_poses(out=P) is P
    # Inputs: lists are converted, strided float64 views are read correctly.
    big = np.zeros(12)
    big[::2] = 1.0
    assert np.array_equal(ur5_ctx.inverse_dynamics(big[::2]), ur5_ctx.inverse_dynamics([1.0] * 6))


def _pendulum_by_hand(m1, m2, l1, l2):
    tree = mbt.Tree()
    b1 = tree.add_rigid_body("upper", m1, (0, 0, -l1))
    b2 = tree.add_rigid_body("lower", m2, (0, 0, -l2))
    X = np.eye(4)
    X[2, 3] = -l1
    tree.add_joint("revolute", "shoulder", 0, b1, axis=(0, 1, 0))
    tree.add_joint("revolute", "elbow", b1, b2, axis=(0, 1, 0), X_PF=X)
    tree.finalize()
    return tree


def test_builder_double_pendulum_closed_form():
    """Point masses on massless rods: M = [[(m1+m2)l1² + m2l2² + 2m2l1l2c2, m2l2² + m2l1l2c2],
    [·, m2l2²]] and the potential energy −g·((m1+m2)l1cos q1 + m2l2cos(q1+q2))."""
    m1, m2, l1, l2, g = 1.5, 0.7, 0.9, 0.6, 9.81
    tree = _pendulum_by_hand(m1, m2, l1, l2)
    assert tree.bodies == ("world", "upper", "lower") and tree.joints == ("shoulder", "elbow")
    ctx = tree.context()
    q = np.array([0.4, -1.1])
    ctx.q = q
    c2 = math.cos(q[1])
    M = [[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, m2 * l2**2 + m2 * l1 * l2 * c2],
         [m2 * l2**2 + m2 * l1 * l2 * c2, m2 * l2**2]]
    assert np.allclose(ctx.mass_matrix(), M, atol=1e-12)
    U = -g * ((m1 + m2) * l1 * math.cos(q[0]) + m2 * l2 * math.cos(q[0] + q[1]))
    assert ctx.potential_energy() == pytest.approx(U, rel=1e-12)


def test_builder_frames_limits_gravity():
    tree = mbt.Tree()
    b = tree.add_rigid_body("slider", 2.0, (0, 0, 0), np.diag([0.1, 0.1, 0.1]))
    X = np.eye(4)
    X[:3, 3] = [0, 0, 1]
    f = tree.add_frame("mount", 0, X)
    j = tree.add_joint("prismatic", "rail", 0, b, axis=(1, 0, 0), X_PF=X, damping=0.5)
    tree.set_position_limits(j, [-0.5], [0.5])
    tree.set_default_positions(j, [0.25])
    tree.finalize()
    assert tree.frame(f)["X_BF"][2, 3] == 1.0
    assert tree.position_lower_limits[0] == -0.5 and tree.position_upper_limits[0] == 0.5
    ctx = tree.context()
    assert ctx.q[0] == 0.25 and ctx.joint_damping(j)[0] == 0.5
    tree.gravity = (-1.0, 0.0, 0.0)
    # A context keeps the gravity it was made with until set_default(); new contexts take the tree's.
    assert ctx.gravity_forces()[0] == 0.0
    assert tree.context().gravity_forces()[0] == pytest.approx(-2.0)
    ctx.set_default()
    assert ctx.gravity_forces()[0] == pytest.approx(-2.0)


def test_copy_and_pickle(ur5_ctx):
    ur5_ctx.tree.gravity = (0, 0, -3.0)
    ur5_ctx.set_default()
    ur5_ctx.q = np.linspace(0.1, 0.6, 6)
    ur5_ctx.set_joint_damping(2, [0.7])
    ur5_ctx.lock_joint(3)
    ur5_ctx.time = 1.25
    for other in (copy.copy(ur5_ctx), copy.deepcopy(ur5_ctx), pickle.loads(pickle.dumps(ur5_ctx))):
        assert np.array_equal(other.x, ur5_ctx.x) and other.time == 1.25
        assert other.joint_damping(2)[0] == 0.7 and other.is_joint_locked(3)
        assert np.array_equal(other.forward_dynamics(), ur5_ctx.forward_dynamics())
    clone = ur5_ctx.copy()
    clone.q = np.zeros(6)
    assert np.any(ur5_ctx.q != 0)         # independent state
    tree2 = pickle.loads(pickle.dumps(ur5_ctx.tree))
    assert np.array_equal(tree2.gravity, [0, 0, -3.0]) and tree2.bodies == ur5_ctx.tree.bodies
    with pytest.raises(TypeError):
        pickle.dumps(_pendulum_by_hand(1, 1, 1, 1))


def test_docstrings_show_equations():
    assert "M(q)·v̇ + C(q,v)·v − tau_g(q)" in mbt.Context.inverse_dynamics.__doc__
    assert "Featherstone" in mbt.Context.forward_dynamics.__doc__
    assert "J_WFp" in mbt.Context.jacobian_spatial_velocity.__doc__
    assert "tau = M(q)·v̇ + C(q,v)·v − tau_g(q) + D·v + K·(q − q0) − tau_applied" in \
        mbt.Context.inverse_dynamics_derivatives.__doc__
    assert "∂v̇/∂tau = M⁻¹" in mbt.Context.forward_dynamics_derivatives.__doc__
    assert "q⁺ = q ⊕ h·v⁺" in mbt.Context.semi_implicit_euler_step_derivatives.__doc__
    assert "M_BBo_B = [m·G_BBo_B   m·[p]×;  −m·[p]×   m·1]" in mbt.Context.body_spatial_inertia.__doc__
    assert "f = (k·(ℓ − ℓ0) + c·ℓ̇)·û" in mbt.Tree.add_linear_spring_damper.__doc__
    assert "f_n = max(0, k·(φ − τ_d·v_n))" in mbt.ContactModel.__doc__
    assert "SetGravityVector(context, g_W)" in mbt.Context.gravity.__doc__
    assert "contexts take when made" in mbt.Tree.gravity.__doc__


def _doc_parameters(name, doc):
    """The parameter names of the signature `name(a, b=(0, 0, 0), ...)` a docstring opens with."""
    if not doc or not doc.startswith(name + "("):
        return None
    depth, k = 0, len(name)
    for k in range(len(name), len(doc)):
        depth += {"(": 1, ")": -1}.get(doc[k], 0)
        if depth == 0:
            break
    params, depth, cur = [], 0, ""
    for ch in doc[len(name) + 1:k] + ",":
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            params.append(cur.split("=")[0].strip())
            cur = ""
        else:
            cur += ch
    return [p for p in params if p]


def test_type_stubs_cover_the_api():
    """mbt/__init__.pyi names exactly the public methods and properties of each class, and each
    method's parameters as its docstring's signature names them (the names C accepts)."""
    import ast
    import pathlib
    stub = pathlib.Path(mbt.__file__).with_name("__init__.pyi")
    module = ast.parse(stub.read_text())
    classes = ("Tree", "Context", "Simulator", "Batch", "ContactModel")
    checked = 0
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name in classes:
            cls = getattr(mbt, node.name)
            declared = {n.name for n in node.body if isinstance(n, ast.FunctionDef)} | \
                       {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
            actual = {n for n in dir(cls) if not n.startswith("_")}
            assert declared - {"__init__"} == actual, node.name
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and not f.name.startswith("_"):
                    expected = _doc_parameters(f.name, getattr(cls, f.name).__doc__)
                    assert expected is not None, f"{node.name}.{f.name}: no signature in its docstring"
                    params = [a.arg for a in f.args.posonlyargs + f.args.args if a.arg != "self"]
                    assert params == expected, f"{node.name}.{f.name}"
                    positional = bool(f.args.posonlyargs) or (not params and f.args.args)
                    if params:
                        assert _takes_keywords(node.name, f.name) != positional, f"{node.name}.{f.name}: '/'"
                    checked += 1
    assert checked > 90


def _takes_keywords(cls_name, method):
    """Whether the C method accepts keyword arguments: an unknown keyword is refused either as
    unknown (it takes keywords) or because it takes none. Nothing runs."""
    tree = mbt.load_urdf(model("ur5.urdf"))
    ctx = tree.context()
    objects = {"Tree": tree, "Context": ctx, "Simulator": mbt.Simulator(ctx), "Batch": mbt.Batch(tree, 1),
               "ContactModel": mbt.ContactModel(tree)}
    with pytest.raises(TypeError) as e:
        getattr(objects[cls_name], method)(_probe_=1)
    return "no keyword arguments" not in str(e.value)


def test_model_instances(ur5):
    # Two UR5s in one tree: names scoped "instance::", each arm's block of M is the single arm's,
    # the right arm's base stands at X_WR.
    scene = mbt.Tree()
    X = np.eye(4)
    X[:3, 3] = [0.0, 1.0, 0.0]
    assert scene.add_model_instance(ur5, "left") == scene.add_model_instance(ur5, "right", X)
    with pytest.raises(mbt.Error, match="right::"):
        scene.add_model_instance(ur5, "right")
    scene.finalize()
    assert scene.nv == 2 * ur5.nv
    q = np.linspace(-1.0, 1.0, ur5.nq)
    single = ur5.context()
    single.q = q
    both = scene.context()
    both.q = np.concatenate([q, 0.5 * q])
    M = both.mass_matrix()
    n = ur5.nv
    assert np.allclose(M[:n, :n], single.mass_matrix(), rtol=0, atol=1e-12)
    assert np.all(M[:n, n:] == 0.0)
    right_base = both.body_pose("right::" + ur5.body(1)["name"])
    left_base = both.body_pose("left::" + ur5.body(1)["name"])
    assert np.allclose(right_base[:3, 3] - left_base[:3, 3], [0.0, 1.0, 0.0], atol=1e-15)
