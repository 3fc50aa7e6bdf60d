#!/bin/sh
# Installs the Debian packages mbt needs to build and test, skipping those already present.
# Usage: scripts/install-deps.sh [--bench] [--viewer]
#   --bench   adds MuJoCo for the side-by-side benchmark
#   --viewer  adds Debian's Chromium for the viewer's browser tests, and Node.js with npm
#             (which build the viewer's page) when no npm is on the PATH
set -eu
pkgs="pkg-config libxml2-dev libcmocka-dev libcjson-dev libsleef-dev libcairo2-dev libfontconfig-dev"
for arg in "$@"; do
  case "$arg" in
    --bench) pkgs="$pkgs libmujoco-dev" ;;
    --viewer)
      pkgs="$pkgs chromium"
      command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm" ;;
    *) echo "usage: scripts/install-deps.sh [--bench] [--viewer]" >&2; exit 2 ;;
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
