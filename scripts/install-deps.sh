#!/bin/sh
# Installs the Debian packages mbt needs to build and test, skipping those already present.
# Usage: scripts/install-deps.sh [--bench] [--fuzz] [--viewer]
#   --bench   adds MuJoCo for the side-by-side benchmark
#   --fuzz    adds clang and its libFuzzer runtime for `make fuzz`
#   --viewer  adds Debian's Chromium for the viewer's browser tests, and Node.js with npm
#             (which build the viewer's page) when no npm is on the PATH
# Open MPI (libopenmpi-dev, openmpi-bin) is optional for the build; it gives `mbt sweep` its
# distributed mode and lets the tests check it.
set -eu
pkgs="pkg-config libxml2-dev libcmocka-dev libcjson-dev libsleef-dev libcairo2-dev libfontconfig-dev
  libassimp-dev libqhull-dev
  libopenmpi-dev openmpi-bin"
# The Python package: headers, numpy, pytest, and setuptools/pip for `pip install ./python`.
pkgs="$pkgs python3-dev python3-numpy python3-pytest python3-setuptools python3-wheel python3-pip"
for arg in "$@"; do
  case "$arg" in
    --bench) pkgs="$pkgs libmujoco-dev" ;;
    --fuzz) pkgs="$pkgs clang-14 libclang-rt-14-dev" ;;
    --viewer)
      pkgs="$pkgs chromium"
      command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm" ;;
    *) echo "usage: scripts/install-deps.sh [--bench] [--fuzz] [--viewer]" >&2; exit 2 ;;
  esac
done
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "mbt: installing build dependencies:$missing"
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends $missing
