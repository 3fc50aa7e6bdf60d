/* cli_common.h: what the subcommands of the mbt command share: model loading, option
 * parsing, number formatting, JSON helpers. Messages go to stderr prefixed "mbt <cmd>: ". */
#ifndef MBT_CLI_COMMON_H
#define MBT_CLI_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "mbt/mbt.h"

/* Exit codes. */
enum {
  CLI_EXIT_OK = 0,
  CLI_EXIT_FAILURE = 1,     /* the model or the input could not be used, a computation failed */
  CLI_EXIT_USAGE = 2,       /* bad command line */
  CLI_EXIT_INTERRUPTED = 130 /* Ctrl-C (128 + SIGINT), output so far kept */
};

/* Prints "mbt <cmd>: <message>\n" on stderr. */
void cli_error(const char* cmd, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A loaded model: the URDF result (tree, warnings, friction, effort) and where it came from. */
typedef struct {
  mbt_urdf_result urdf;
  mbt_tree* tree;       /* = urdf.tree */
  const char* path;
  bool floating;
  bool scene;           /* a scene file (scene.h): several models as instances */
  bool scene_ground;    /* the scene asks for the ground, with this friction: */
  double scene_friction;
} cli_model;

/* The options every subcommand taking a MODEL accepts. */
typedef struct {
  bool floating;
  bool allow_invalid_inertia;
} cli_model_options;

/* If argv[*i] is --floating or --allow-invalid-inertia, records it and returns true. */
bool cli_parse_model_option(const char* arg, cli_model_options* opts);

/* Loads a URDF, or a scene file (*.json, scene.h); on failure prints the loader's message and returns false. */
bool cli_model_load(const char* cmd, const char* path, const cli_model_options* opts, cli_model* model);
/* The same with package paths "NAME=DIR" for package:// mesh names. */
bool cli_model_load_with_packages(const char* cmd, const char* path, const cli_model_options* opts,
                                  const char* const* package_paths, int num_package_paths, cli_model* model);
void cli_model_free(cli_model* model);

/* "--name=value" or "--name value": if argv[*i] is option `name`, sets *value, advances *i
 * past the value and returns 1; returns 0 if it is not that option, -1 (message printed) if
 * the value is missing. */
int cli_option_value(const char* cmd, int argc, char** argv, int* i, const char* name, const char** value);

/* A finite double ("0.5", "1e-3"); false on anything else, trailing text included. */
bool cli_parse_double(const char* s, double* out);
/* Comma-separated finite doubles; *n receives how many (at most max). False on a bad item
 * or more than max items. */
bool cli_parse_list(const char* s, double* out, int max, int* n);

/* Shortest of %.15g/%.16g/%.17g that reads back as exactly x (round-trip); "null" if x is
 * not finite. buf holds at least 32 chars. */
const char* cli_format_double(char* buf, size_t n, double x);
/* A cJSON number printed round-trip (cJSON's own printer is not exact); null if non-finite. */
cJSON* cli_json_number(double x);
cJSON* cli_json_array(const double* x, int n);
/* Row-major rows x cols matrix as an array of rows. */
cJSON* cli_json_matrix(const double* A, int rows, int cols);

/* A command-line argument that is no known option: the MODEL, if none is given yet (*model
 * NULL) and it does not start with '-'. False with a message otherwise. */
bool cli_model_argument(const char* cmd, const char* arg, const char** model);
/* "gx,gy,gz" (--gravity) into g; g unchanged if s is NULL. False with a message. */
bool cli_parse_gravity(const char* cmd, const char* s, double g[3]);
/* Zero damping on every joint of ctx (--no-damping); false with a message. */
bool cli_zero_damping(const char* cmd, const mbt_tree* tree, mbt_context* ctx);

/* Reads a whole file into a NUL-terminated buffer (free()); NULL with a message. */
char* cli_read_file(const char* cmd, const char* path, size_t* length);
/* Creates the parent directories of a file path (like mkdir -p dirname). */
bool cli_make_parent_dirs(const char* cmd, const char* path);

/* Names of the state coordinates, "<joint>.<suffix>" (joints.h suffixes; a mobilizer that no
 * joint made uses its own name): nq position names, or nv velocity names. Free with
 * cli_free_names. NULL if out of memory. */
char** cli_state_names(const mbt_tree* tree, bool velocities);
void cli_free_names(char** names, int n);

/* Seconds on a monotonic clock. */
double cli_now(void);

#endif /* MBT_CLI_COMMON_H */
