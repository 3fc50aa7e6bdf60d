#!/bin/sh
# Installs the package with pip, offline (Debian's setuptools, no build isolation), into a
# scratch directory from a copy of the sources, and uses it from there.
# Usage: pip_install.sh SOURCE_DIR PYTHON
set -eu
src=$1
py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/repo"
cp -R "$src/python" "$src/src" "$src/include" "$tmp/repo/"
"$py" -m pip install --quiet --no-build-isolation --no-index --no-deps --no-cache-dir --root-user-action=ignore \
  --target "$tmp/site" "$tmp/repo/python"
cd "$tmp"
PYTHONPATH="$tmp/site" "$py" - "$src/models/ur5.urdf" "$tmp/site" <<'PY'
import sys
import numpy as np
import mbt
assert mbt.__file__.startswith(sys.argv[2]), mbt.__file__
ctx = mbt.load_urdf(sys.argv[1]).context()
ctx.q = np.linspace(-1, 1, 6)
M = ctx.mass_matrix()
vdot = np.linspace(0.5, -0.5, 6)
tau = ctx.inverse_dynamics(vdot)
assert np.allclose(tau, M @ vdot + ctx.bias_term() - ctx.gravity_forces(), atol=1e-10)
_, _, _, M2 = ctx.inverse_dynamics_derivatives(vdot)
assert np.allclose(M2, M, atol=1e-12)
ctx.gravity = (0, 0, 0)
assert not np.any(ctx.gravity_forces())
assert mbt.ContactModel(ctx.tree).add_ground() == 0
assert mbt.spatial_inertia(1.0, (0, 0, 0), np.eye(3))[3, 3] == 1.0
import os
for name in ("__init__.pyi", "py.typed"):      # the type hints are installed with the package
    assert os.path.exists(os.path.join(os.path.dirname(mbt.__file__), name)), name
print("mbt installed by pip:", mbt.__file__)
PY
