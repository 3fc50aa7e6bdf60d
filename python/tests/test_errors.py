"""Every failed C call raises an mbt.Error subclass with the library's message; bad arrays
raise ValueError/TypeError; nothing changes on failure."""
import numpy as np
import pytest

import mbt
from conftest import model

PENDULUM = """<robot name="p">
  <link name="base"/>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="{kind}"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/></joint>
</robot>"""


def test_load_errors_carry_the_library_message(tmp_path):
    with pytest.raises(mbt.FileError) as e:
        mbt.load_urdf(str(tmp_path / "missing.urdf"))
    assert "missing.urdf" in str(e.value) and e.value.status == -12
    assert isinstance(e.value, mbt.Error)
    with pytest.raises(mbt.ParseError, match=r"pend\.urdf:4: .*joint 'hinge'.*sideways"):
        mbt.load_urdf_string(PENDULUM.format(kind="sideways"), "pend.urdf")
    path = tmp_path / "broken.urdf"
    path.write_text("<robot name='x'><link name='a'>")
    with pytest.raises(mbt.ParseError, match="broken.urdf"):
        mbt.load_urdf(str(path))
    tree = mbt.load_urdf_string(PENDULUM.format(kind="revolute"), "pend.urdf")
    assert tree.nv == 1 and tree.robot_name == "p"
    with pytest.raises(mbt.NotFoundError) as e:
        tree.body_index("nose")
    assert mbt.status_string(e.value.status) == "not found"


def test_bad_arrays(ur5_ctx):
    q0 = ur5_ctx.q.copy()
    with pytest.raises(ValueError, match=r"q: expected shape \(6,\)"):
        ur5_ctx.q = np.zeros(5)
    with pytest.raises(ValueError, match="float64"):
        ur5_ctx.q = np.zeros(6, dtype=np.float32)
    with pytest.raises(ValueError, match="float64"):
        ur5_ctx.inverse_dynamics(np.zeros(6, dtype=np.int64))
    with pytest.raises(ValueError):
        ur5_ctx.q = ["a"] * 6
    assert np.array_equal(ur5_ctx.q, q0)            # unchanged by the failed assignments
    with pytest.raises(ValueError, match="vdot"):
        ur5_ctx.inverse_dynamics(np.zeros((6, 1)))
    bad_outs = [np.zeros(7), np.zeros(6, dtype=np.float32), np.zeros(12)[::2], np.zeros((6, 1))]
    ro = np.zeros(6)
    ro.flags.writeable = False
    for out in bad_outs + [ro]:
        with pytest.raises(ValueError, match="out"):
            ur5_ctx.inverse_dynamics(out=out)
    with pytest.raises(ValueError, match="C-contiguous"):
        ur5_ctx.mass_matrix(out=np.zeros((6, 6)).T.copy(order="F"))
    with pytest.raises(TypeError):
        ur5_ctx.inverse_dynamics(out=[0.0] * 6)
    with pytest.raises(TypeError, match="unexpected keyword"):
        ur5_ctx.inverse_dynamics(vdott=np.zeros(6))
    with pytest.raises(TypeError, match="at most"):
        ur5_ctx.inverse_dynamics(None, None, None)
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        ur5_ctx.points_positions(0, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="F_applied"):
        ur5_ctx.forward_dynamics(F_applied=np.zeros((3, 6)))


def test_bad_names_and_indices(ur5, ur5_ctx):
    with pytest.raises(mbt.NotFoundError, match="no body named 'nose'"):
        ur5.body_index("nose")
    with pytest.raises(mbt.NotFoundError, match="joint"):
        ur5_ctx.lock_joint("nose")
    with pytest.raises(IndexError):
        ur5_ctx.body_pose(99)
    with pytest.raises(TypeError):
        ur5_ctx.body_pose(1.5)


def test_builder_errors_leave_the_tree_unchanged():
    tree = mbt.Tree()
    b = tree.add_rigid_body("a", 1.0, (0, 0, 0), np.eye(3))
    with pytest.raises(mbt.DuplicateError, match="'a'"):
        tree.add_rigid_body("a", 1.0)
    with pytest.raises(mbt.NonphysicalError):
        tree.add_rigid_body("bad", 1.0, (0, 0, 0), np.diag([1.0, 1.0, 5.0]))
    with pytest.raises(mbt.NonphysicalError, match="negative"):
        tree.add_rigid_body("neg", -1.0)
    assert tree.num_bodies == 2
    j = tree.add_joint("revolute", "hinge", 0, b, axis=(0, 0, 1))
    c = tree.add_rigid_body("c", 1.0, (0, 0, 0), np.eye(3))
    with pytest.raises(mbt.InvalidArgumentError, match="zero_axis"):
        tree.add_joint("revolute", "zero_axis", b, c, axis=(0, 0, 0))
    with pytest.raises(mbt.TopologyError):
        tree.add_joint("revolute", "again", 0, b, axis=(0, 0, 1))
    tree.add_joint("weld", "glue", b, c)
    with pytest.raises(ValueError, match="unknown joint kind"):
        tree.add_joint("hinge", "x", 0, b)
    with pytest.raises(mbt.InvalidArgumentError):
        tree.set_position_limits(j, [np.nan], [1.0])
    with pytest.raises(mbt.InvalidArgumentError):
        tree.set_position_limits(j, [1.0], [-1.0])
    X = np.eye(4)
    X[3, 0] = 1.0
    with pytest.raises(ValueError, match="0 0 0 1"):
        tree.add_frame("f", 0, X)
    with pytest.raises(ValueError, match="rotation"):
        tree.add_frame("f", 0, np.diag([2.0, 1.0, 1.0, 1.0]))
    with pytest.raises(mbt.NotFinalizedError):
        tree.context()
    tree.finalize()
    assert np.isinf(tree.position_lower_limits[0])      # the failed setters changed nothing
    with pytest.raises(mbt.FinalizedError):
        tree.add_rigid_body("late", 1.0)


def test_calc_errors(ur5_ctx):
    with pytest.raises(mbt.InvalidArgumentError):
        ur5_ctx.set_joint_damping("elbow_joint", [-1.0])
    assert ur5_ctx.joint_damping("elbow_joint")[0] == 0.0
    # A massless tip on a joint: its articulated inertia is singular.
    tree = mbt.Tree()
    b = tree.add_rigid_body("ghost", 0.0)
    tree.add_joint("revolute", "spin", 0, b, axis=(0, 0, 1))
    tree.finalize()
    ctx = tree.context()
    with pytest.raises(mbt.SingularError, match="ghost"):
        ctx.forward_dynamics()
    with pytest.raises(mbt.SingularError):
        ctx.center_of_mass()


def test_simulator_argument_errors(ur5_ctx):
    with pytest.raises(ValueError, match="unknown integrator"):
        mbt.Simulator(ur5_ctx, integrator="leapfrog")
    with pytest.raises(mbt.InvalidArgumentError):
        mbt.Simulator(ur5_ctx, dt=-1.0)
    with pytest.raises(TypeError, match="callable"):
        mbt.Simulator(ur5_ctx, controller=3)
    sim = mbt.Simulator(ur5_ctx)
    with pytest.raises(mbt.InvalidArgumentError):
        sim.set_limit_penalty(-1.0, 0.0)
    with pytest.raises(mbt.InvalidArgumentError):
        sim.advance_to(-1.0)
    other = mbt.load_urdf(model("panda.urdf")).context()
    with pytest.raises(mbt.InvalidArgumentError):
        sim.time_derivatives(other)
