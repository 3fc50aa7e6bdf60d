/* main.c: the mbt command: dispatch to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli_commands.h"
#include "cli_common.h"

#ifndef MBT_VERSION
#define MBT_VERSION "unknown"
#endif

static void print_usage(FILE* out) {
  fputs("usage: mbt <command> [options]\n"
        "\n"
        "Rigid multibody dynamics of URDF robots.\n"
        "\n"
        "commands:\n"
        "  info MODEL        the model's tree: bodies, joints, q and v slices, masses, warnings\n"
        "  eval MODEL        dynamics at given states (inverse and forward dynamics, mass\n"
        "                    matrix, bias, gravity, energies, body poses) as JSON\n"
        "  simulate [MODEL]  simulate a robot and write a CSV and a plot (default: the\n"
        "                    shipped Panda arm falling under gravity)\n"
        "  sweep SPEC        many simulations over a grid or a Monte Carlo sample of initial\n"
        "                    states, parameters and PD gains, on all cores or MPI ranks (CSV)\n"
        "  view MODEL        a self-contained HTML page showing the model in 3D, with a\n"
        "                    trajectory or a pose editor\n"
        "  bench             benchmarks\n"
        "\n"
        "Run 'mbt <command> --help' for the options of a command.\n"
        "Options: --help, --version. Exit status: 0 on success, 1 on an error, 2 on a bad\n"
        "command line, 130 when interrupted.\n",
        out);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char* cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    if (strcmp(cmd, "help") == 0 && argc > 2) {
      /* mbt help <command> == mbt <command> --help */
      char* sub_argv[3] = {argv[2], (char*)"--help", NULL};
      argv = sub_argv;
      argc = 2;
      cmd = argv[0];
      if (strcmp(cmd, "info") == 0) return mbt_cli_info(argc, argv);
      if (strcmp(cmd, "eval") == 0) return mbt_cli_eval(argc, argv);
      if (strcmp(cmd, "simulate") == 0) return mbt_cli_simulate(argc, argv);
      if (strcmp(cmd, "sweep") == 0) return mbt_cli_sweep(argc, argv);
      if (strcmp(cmd, "bench") == 0) return mbt_cli_bench(argc, argv);
      if (strcmp(cmd, "view") == 0) return mbt_cli_view(argc, argv);
      cli_error(NULL, "unknown command '%s' (see 'mbt --help')", cmd);
      return CLI_EXIT_USAGE;
    }
    print_usage(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("mbt %s\n", MBT_VERSION);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "info") == 0) return mbt_cli_info(argc - 1, argv + 1);
  if (strcmp(cmd, "eval") == 0) return mbt_cli_eval(argc - 1, argv + 1);
  if (strcmp(cmd, "simulate") == 0) return mbt_cli_simulate(argc - 1, argv + 1);
  if (strcmp(cmd, "sweep") == 0) return mbt_cli_sweep(argc - 1, argv + 1);
  if (strcmp(cmd, "bench") == 0) return mbt_cli_bench(argc - 1, argv + 1);
  if (strcmp(cmd, "view") == 0) return mbt_cli_view(argc - 1, argv + 1);
  cli_error(NULL, "unknown command '%s' (see 'mbt --help')", cmd);
  return CLI_EXIT_USAGE;
}
