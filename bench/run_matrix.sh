#!/bin/sh
# Runs the benchmark in four build configurations and writes the JSON results and the
# scaling plot into OUTDIR; bench/summarize.py OUTDIR/*.json then prints the tables of
# docs/benchmarks.md. Build directories (configured if missing, Release, tests off):
#   build-bench         -O3 -DNDEBUG (CMake's Release default, what `make bench` uses)
#   build-bench-O2      -O2 -DNDEBUG
#   build-bench-native  -O3 -march=native -DNDEBUG
#   build-bench-lto     -O3 -DNDEBUG with interprocedural optimization
# usage: bench/run_matrix.sh OUTDIR [RUNS] [SECONDS]   (defaults: 3 runs, 0.5 s per operation)
set -eu
out=${1:?usage: bench/run_matrix.sh OUTDIR [RUNS] [SECONDS]}
runs=${2:-3}
secs=${3:-0.5}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
configure() {  # dir, extra cmake arguments...
  d=$1
  shift
  cmake -S "$root" -B "$root/$d" -DCMAKE_BUILD_TYPE=Release -DMBT_BUILD_TESTS=OFF -DMBT_WERROR=ON "$@" >/dev/null
  cmake --build "$root/$d" -j2 --target mbt_bench >/dev/null
}
configure build-bench
configure build-bench-O2 "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG"
configure build-bench-native "-DCMAKE_C_FLAGS_RELEASE=-O3 -march=native -DNDEBUG"
configure build-bench-lto -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON
# Builds alternate within each round, so slow drifts of the machine's load hit all alike.
i=1
while [ "$i" -le "$runs" ]; do
  for b in build-bench build-bench-O2 build-bench-native build-bench-lto; do
    "$root/$b/mbt_bench" --json --time "$secs" > "$out/${b}_$i.json"
  done
  i=$((i + 1))
done
"$root/build-bench/mbt_bench" "$root/models/solo12.urdf" --floating --json --time "$secs" > "$out/solo12_floating.json"
"$root/build-bench/mbt_bench" --no-mujoco --scaling "$out/scaling.svg" --json --time 0.2 > "$out/scaling.json"
echo "results in $out; tables: bench/summarize.py $out/build-bench*_*.json"
