"""mbt: rigid multibody dynamics in the formulation of Drake's multibody engine.

    import mbt
    tree = mbt.load_urdf("models/ur5.urdf")
    ctx = tree.context()
    ctx.q = [0.1, -0.5, 0.3, 0.0, 0.2, 0.0]
    tau = ctx.inverse_dynamics(vdot)      # M·v̇ + C·v − tau_g
    M = ctx.mass_matrix()

Tree is the MultibodyTree (load_urdf or the builder methods), Context holds the state and
computes, Simulator integrates in time (with contact: ContactModel), Batch
spreads many states or simulations over threads. Every failed call raises an mbt.Error subclass
carrying the library's message; bad array shapes or dtypes raise ValueError. See
docs/python.md.
"""
from ._mbt import (
    Batch,
    ContactModel,
    Context,
    DuplicateError,
    Error,
    FileError,
    FinalizedError,
    InvalidArgumentError,
    NoMemoryError,
    NonphysicalError,
    NotFinalizedError,
    NotFoundError,
    ParseError,
    Simulator,
    SingularError,
    SizeError,
    StoppedError,
    TopologyError,
    Tree,
    load_urdf,
    load_urdf_string,
    status_string,
)

__version__ = "0.1.0"


def spatial_inertia(mass, p_BoBcm_B, I_BBcm_B):
    """The 6x6 spatial inertia M_BBo_B of a body B about its origin Bo, in B, from its mass
    (kg), center of mass p_BoBcm_B (m, in B) and rotational inertia I_BBcm_B about the center
    of mass (kg·m², 3x3, in B), as URDF's <inertial> gives them:

        M_BBo_B = [I_BBo_B   m·[p]×;  −m·[p]×   m·1],   p = p_BoBcm_B,
        I_BBo_B = I_BBcm_B + m·(|p|²·1 − p·pᵀ)          (parallel-axis theorem)

    so that [h; l] = M_BBo_B·[w; v] is the spatial momentum about Bo (Drake's
    SpatialInertia::MakeFromCentralInertia and CopyToFullMatrix6). The form
    Context.body_spatial_inertia returns and Context.set_body_spatial_inertia takes."""
    import numpy as np
    p = np.asarray(p_BoBcm_B, dtype=float)
    I = np.asarray(I_BBcm_B, dtype=float)
    if p.shape != (3,) or I.shape != (3, 3):
        raise ValueError("spatial_inertia: p_BoBcm_B must have shape (3,) and I_BBcm_B (3, 3)")
    m = float(mass)
    px = np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])
    M = np.empty((6, 6))
    M[:3, :3] = I + m * (p @ p * np.eye(3) - np.outer(p, p))
    M[:3, 3:] = m * px
    M[3:, :3] = -m * px
    M[3:, 3:] = m * np.eye(3)
    return M


__all__ = [
    "Batch", "ContactModel", "Context", "Simulator", "Tree", "load_urdf", "load_urdf_string", "status_string",
    "spatial_inertia",
    "Error", "InvalidArgumentError", "NotFoundError", "DuplicateError", "FinalizedError",
    "NotFinalizedError", "TopologyError", "NonphysicalError", "SizeError", "NoMemoryError",
    "SingularError", "ParseError", "FileError", "StoppedError",
]
