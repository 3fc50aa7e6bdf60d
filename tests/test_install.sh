#!/bin/sh
# Installs mbt into a temporary prefix and builds examples/pendulum.c against it twice:
# with CMake's find_package(mbt) and with pkg-config. Both programs must run.
set -eu
src=$1; bin=$2
prefix=$(mktemp -d); work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
cmake --install "$bin" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name mbt.pc -exec dirname {} \; | head -n 1)
[ -n "$libdir" ] || { echo "mbt.pc was not installed"; exit 1; }
# find_package
cmake -S "$src/examples" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH="$prefix/lib:$(dirname "$libdir")" "$work/cmake/pendulum"
# pkg-config
PKG_CONFIG_PATH="$libdir" cc -o "$work/pendulum_pc" "$src/examples/pendulum.c" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs mbt) -lm
LD_LIBRARY_PATH="$(dirname "$libdir")" "$work/pendulum_pc"
echo "install test: find_package and pkg-config builds ran"
