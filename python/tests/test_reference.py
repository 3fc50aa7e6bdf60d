"""The shipped reference values (tests/reference/*.json, computed by Pinocchio and converted to
mbt's conventions) reproduced through the Python package, with the C tests' tolerances:
|x − x_ref|∞ <= 1e-9·max(‖x_ref‖∞, 1e-3) per vector and 1e-9 on pose entries."""
import json

import numpy as np
import pytest

import mbt
from conftest import MODELS, REFERENCE

TOL, FLOOR = 1e-9, 1e-3
LABELS = ["double_pendulum", "ur5", "panda", "solo12"]


def close(x, ref, what):
    ref = np.asarray(ref, dtype=float)
    err = np.max(np.abs(np.asarray(x) - ref))
    scale = max(np.max(np.abs(ref)), FLOOR)
    assert err <= TOL * scale, f"{what}: error {err:.3e} > {TOL * scale:.3e}"


def load(label):
    with open(REFERENCE / f"{label}.json") as f:
        ref = json.load(f)
    tree = mbt.load_urdf(str(MODELS / ref["urdf"]), floating=ref["root"] == "floating")
    return ref, tree


def vector(tree, by_joint, positions):
    """A whole-tree vector from a dict keyed by joint name."""
    n = tree.nq if positions else tree.nv
    out = np.full(n, np.nan)
    for name, values in by_joint.items():
        j = tree.joint(name)
        start = j["position_start"] if positions else j["velocity_start"]
        out[start:start + len(values)] = values
    assert not np.isnan(out).any(), "the reference does not cover every coordinate"
    return out


def dof_index(tree, label):
    name, _, k = label.partition(":")
    return tree.joint(name)["velocity_start"] + (int(k) if k else 0)


@pytest.mark.parametrize("label", LABELS)
def test_reference_dynamics(label):
    ref, tree = load(label)
    ctx = tree.context()
    for j in range(tree.num_joints):   # the reference has no joint damping
        ctx.set_joint_damping(j, np.zeros(tree.joint(j)["num_velocities"]))
    for st in ref["states"]:
        what = f"{label} state {st['index']}"
        ctx.q = vector(tree, st["q"], True)
        ctx.v = vector(tree, st["v"], False)
        vdot = vector(tree, st["vdot"], False)
        close(ctx.inverse_dynamics(vdot), vector(tree, st["tau_id"], False), what + " tau_id")
        close(ctx.bias_term(), vector(tree, st["bias"], False), what + " bias")
        close(ctx.gravity_forces(), vector(tree, st["gravity_generalized_forces"], False),
              what + " gravity")
        dofs = [dof_index(tree, d) for d in st["mass_matrix"]["dofs"]]
        M_ref = np.empty((tree.nv, tree.nv))
        M_ref[np.ix_(dofs, dofs)] = st["mass_matrix"]["values"]
        close(ctx.mass_matrix(), M_ref, what + " mass matrix")
        close(ctx.kinetic_energy(), st["kinetic_energy"], what + " kinetic energy")
        close(ctx.potential_energy(), st["potential_energy"], what + " potential energy")
        if st["qdd"] is not None:
            # Residual form, as the C test: M·qdd + C·v − tau_g − tau = 0.
            qdd = ctx.forward_dynamics(vector(tree, st["tau"], False))
            tau = vector(tree, st["tau"], False)
            residual = M_ref @ qdd + vector(tree, st["bias"], False) \
                - vector(tree, st["gravity_generalized_forces"], False) - tau
            scale = max(np.max(np.abs(M_ref) @ np.abs(qdd)) + np.max(np.abs(tau)), FLOOR)
            assert np.max(np.abs(residual)) <= TOL * scale, what + " forward dynamics"
        poses = ctx.body_poses()
        for link, pose in st["link_poses"].items():
            X = poses[tree.body_index(link)]
            assert np.max(np.abs(X[:3, 3] - pose["p_WB"])) <= TOL, f"{what} p_WB {link}"
            assert np.max(np.abs(X[:3, :3] - pose["R_WB"])) <= TOL, f"{what} R_WB {link}"
