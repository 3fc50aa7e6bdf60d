/* bench_main.c: the standalone benchmark program mbt_bench (same options as `mbt bench`). */
#include "bench.h"

int main(int argc, char** argv) { return mbt_bench_main(argc, argv, "mbt_bench"); }
