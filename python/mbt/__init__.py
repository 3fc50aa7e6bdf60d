"""mbt: rigid multibody dynamics in the formulation of Drake's multibody engine.

    import mbt
    tree = mbt.load_urdf("models/ur5.urdf")
    ctx = tree.context()
    ctx.q = [0.1, -0.5, 0.3, 0.0, 0.2, 0.0]
    tau = ctx.inverse_dynamics(vdot)      # M·v̇ + C·v − tau_g
    M = ctx.mass_matrix()

Tree is the MultibodyTree (load_urdf or the builder methods), Context holds the state and
computes, Simulator integrates in time, Batch spreads many states or
simulations over threads. Every failed call raises an mbt.Error subclass
carrying the library's message; bad array shapes or dtypes raise ValueError. See
docs/python.md.
"""
from ._mbt import (
    Batch,
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

__all__ = [
    "Batch", "Context", "Simulator", "Tree", "load_urdf", "load_urdf_string", "status_string",
    "Error", "InvalidArgumentError", "NotFoundError", "DuplicateError", "FinalizedError",
    "NotFinalizedError", "TopologyError", "NonphysicalError", "SizeError", "NoMemoryError",
    "SingularError", "ParseError", "FileError", "StoppedError",
]
