#!/bin/sh
# The viewer's pages in headless Chromium (tests/viewer/browser_test.mjs): no console error,
# no request, the robot drawn, frames that differ, #t=SECONDS; screenshots in
# BUILD_DIR/viewer-test/browser/shots. Exit 77 (skipped, with the reason) without Chromium.
SRC="$1"
BUILD="$2"
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: no node: the viewer's browser tests did not run (scripts/install-deps.sh --viewer)"
  exit 77
fi
if [ ! -d "$SRC/viewer/node_modules/playwright-core" ]; then
  echo "SKIP: viewer/node_modules is missing (this mbt was built without the viewer)"
  exit 77
fi
exec node "$SRC/tests/viewer/browser_test.mjs" "$SRC" "$BUILD" "$BUILD/viewer-test/browser"
