/* cmd_bench.c: `mbt bench`, the benchmark. The engine lives in bench/ (the
 * library mbt_bench_core, also behind the standalone mbt_bench); bench/CMakeLists.txt links
 * it to this tool and defines MBT_HAVE_BENCH. Built with -DMBT_BUILD_BENCH=OFF, the
 * command only says so. Options: `mbt bench --help`; definitions: docs/benchmarks.md. */
#include <stdio.h>
#include <string.h>

#include "cli_commands.h"
#include "cli_common.h"

#ifdef MBT_HAVE_BENCH
#include "bench.h"

int mbt_cli_bench(int argc, char** argv) { return mbt_bench_main(argc, argv, "mbt bench"); }
#else
int mbt_cli_bench(int argc, char** argv) {
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    puts("usage: mbt bench [MODEL...] [options]\n\nThis mbt was built without the benchmarks "
         "(configure with -DMBT_BUILD_BENCH=ON).");
    return CLI_EXIT_OK;
  }
  cli_error("bench", "this mbt was built without the benchmarks (configure with -DMBT_BUILD_BENCH=ON)");
  return CLI_EXIT_FAILURE;
}
#endif
