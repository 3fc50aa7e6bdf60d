#!/bin/sh
# The viewer's poses against `mbt eval` to 1e-12 (tests/viewer/fk_test.mjs, in Node.js):
# the pose editor's forward kinematics and a trajectory's embedded X_WB.
# Usage: test_viewer.sh SOURCE_DIR BUILD_DIR; exit 77 (skipped) when mbt was built without
# the viewer or there is no node.
SRC="$1"
BUILD="$2"
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: no node: the viewer's tests did not run (scripts/install-deps.sh --viewer)"
  exit 77
fi
mkdir -p "$BUILD/viewer-test"
if ! "$BUILD/mbt" view "$SRC/models/double_pendulum.urdf" -o "$BUILD/viewer-test/probe.html" >/dev/null 2>"$BUILD/viewer-test/probe.err"; then
  if grep -q "built without the viewer" "$BUILD/viewer-test/probe.err"; then
    echo "SKIP: this mbt was built without the viewer (no node/npm at configure time)"
    exit 77
  fi
  cat "$BUILD/viewer-test/probe.err"
  exit 1
fi
exec node "$SRC/tests/viewer/fk_test.mjs" "$SRC" "$BUILD" "$BUILD/viewer-test/fk"
