/* cli_commands.h: the subcommands of the mbt command. Each takes the arguments after the
 * command name (argv[0] is the subcommand's name) and returns the process exit code. */
#ifndef MBT_CLI_COMMANDS_H
#define MBT_CLI_COMMANDS_H

int mbt_cli_info(int argc, char** argv);
int mbt_cli_eval(int argc, char** argv);
int mbt_cli_simulate(int argc, char** argv);
/* tools/cmd_sweep.c: many simulations over a grid or a Monte Carlo sample, threads and MPI. */
int mbt_cli_sweep(int argc, char** argv);
/* tools/cmd_view.c: the 3D viewer's page. */
int mbt_cli_view(int argc, char** argv);
/* tools/cmd_bench.c: the benchmark (a placeholder until the benchmark lands). */
int mbt_cli_bench(int argc, char** argv);

#endif /* MBT_CLI_COMMANDS_H */
