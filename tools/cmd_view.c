/* cmd_view.c: `mbt view MODEL [--trajectory FILE.csv] [-o FILE.html] [--package-path NAME=DIR]`:
 * one self-contained HTML page that shows the model in 3D (view_page.h), with a trajectory
 * from `mbt simulate`'s CSV or with a pose editor. */
#include <stdlib.h>
#include <string.h>

#include "cli_commands.h"
#include "cli_common.h"
#include "view_page.h"

static const char* const kCmd = "view";
#define MAX_PACKAGE_PATHS 64

static void print_help(void) {
  puts("usage: mbt view MODEL [--trajectory FILE.csv] [-o FILE.html] [--package-path NAME=DIR]...\n"
       "                [--floating] [--allow-invalid-inertia]\n"
       "\n"
       "Writes one self-contained HTML page that shows the model in 3D in a web browser, from\n"
       "disk and with no network: the renderer (three.js), the meshes and the poses are in the\n"
       "file. With --trajectory it plays a CSV written by 'mbt simulate' (the body poses of\n"
       "every frame computed by mbt's forward kinematics); without, it opens a pose editor\n"
       "(a slider per joint). Open PAGE#t=SECONDS to start paused at that time. Prints the\n"
       "page's path.\n"
       "\n"
       "options:\n"
       "  --trajectory FILE.csv    the CSV of 'mbt simulate' (t, then q in mbt's order, ...)\n"
       "  -o, --out FILE.html      the page (default out/view.html)\n"
       "  --package-path NAME=DIR  resolve package://NAME/... mesh names in DIR (repeatable)\n"
       "  --floating               attach the root link with a quaternion-floating joint\n"
       "  --allow-invalid-inertia  load non-physical inertias as written (with a warning)\n"
       "  -h, --help               this help");
}

/* ---- the trajectory CSV ----------------------------------------------------------------------- */
typedef struct {
  int n, cap, nq;
  double* t;
  double* q;
} csv_rows;

/* Splits `line` at commas in place; returns the number of fields (at most max). */
static int split_fields(char* line, char** fields, int max) {
  int n = 0;
  for (char* s = line; n < max;) {
    fields[n++] = s;
    char* c = strchr(s, ',');
    if (!c) break;
    *c = '\0';
    s = c + 1;
  }
  return n;
}

/* The header: "t", then the model's q names in order. */
static bool check_header(const char* file, char* line, char** qnames, int nq, char** fields) {
  const int n = split_fields(line, fields, nq + 1);
  if (n < 1 || strcmp(fields[0], "t") != 0) {
    cli_error(kCmd, "%s:1: the header does not start with 't' (expected the CSV of 'mbt simulate')", file);
    return false;
  }
  for (int i = 0; i < nq; ++i)
    if (i + 1 >= n || strcmp(fields[i + 1], qnames[i]) != 0) {
      cli_error(kCmd, "%s:1: column %d is '%s', the model's q[%d] is '%s' (a CSV of another model?)", file, i + 2,
                i + 1 < n ? fields[i + 1] : "(missing)", i, qnames[i]);
      return false;
    }
  return true;
}

static bool push_row(const char* file, int line_no, char** fields, int n, csv_rows* r) {
  if (n < r->nq + 1) {
    cli_error(kCmd, "%s:%d: %d fields, expected at least %d (t and q)", file, line_no, n, r->nq + 1);
    return false;
  }
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 256;
    double* t = realloc(r->t, sizeof(double) * (size_t)r->cap);
    if (t) r->t = t;
    double* q = realloc(r->q, sizeof(double) * (size_t)r->cap * (size_t)(r->nq > 0 ? r->nq : 1));
    if (q) r->q = q;
    if (!t || !q) {
      cli_error(kCmd, "out of memory");
      return false;
    }
  }
  for (int i = 0; i <= r->nq; ++i) {
    double x;
    if (!cli_parse_double(fields[i], &x)) {
      cli_error(kCmd, "%s:%d: field %d '%s' is not a finite number", file, line_no, i + 1, fields[i]);
      return false;
    }
    if (i == 0) r->t[r->n] = x;
    else r->q[(size_t)r->n * (size_t)r->nq + (size_t)(i - 1)] = x;
  }
  if (r->n > 0 && !(r->t[r->n] > r->t[r->n - 1])) {
    cli_error(kCmd, "%s:%d: time %g does not increase (previous %g)", file, line_no, r->t[r->n], r->t[r->n - 1]);
    return false;
  }
  r->n++;
  return true;
}

/* Reads t and q of every row. */
static bool read_trajectory(const char* file, const mbt_tree* tree, csv_rows* r) {
  char* text = cli_read_file(kCmd, file, NULL);
  char** qnames = cli_state_names(tree, false);
  const int nq = mbt_tree_num_positions(tree);
  char** fields = malloc(sizeof(char*) * (size_t)(nq + 2));
  bool ok = text && qnames && fields;
  memset(r, 0, sizeof *r);
  r->nq = nq;
  int line_no = 0;
  for (char *line = text, *next = NULL; ok && line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    const size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\r') line[len - 1] = '\0';
    if (++line_no == 1) {
      ok = check_header(file, line, qnames, nq, fields);
    } else if (line[0]) {
      const int n = split_fields(line, fields, nq + 1);
      ok = push_row(file, line_no, fields, n, r);
    }
  }
  if (ok && r->n == 0) {
    cli_error(kCmd, "%s: no rows after the header", file);
    ok = false;
  }
  free(text);
  free(fields);
  cli_free_names(qnames, nq);
  return ok;
}

/* ---- the command ------------------------------------------------------------------------------ */
typedef struct {
  const char* model;
  const char* trajectory;
  const char* out;
  cli_model_options mopts;
  const char* packages[MAX_PACKAGE_PATHS];
  int num_packages;
} view_args;

/* One option at argv[*i]: 1 handled, 0 not an option of this command, -1 error. */
static int parse_option(int argc, char** argv, int* i, view_args* a) {
  const char* value = NULL;
  int r;
  if ((r = cli_option_value(kCmd, argc, argv, i, "--trajectory", &value)) != 0) {
    a->trajectory = value;
  } else if ((r = cli_option_value(kCmd, argc, argv, i, "--out", &value)) != 0 ||
             (r = cli_option_value(kCmd, argc, argv, i, "-o", &value)) != 0) {
    a->out = value;
  } else if ((r = cli_option_value(kCmd, argc, argv, i, "--package-path", &value)) != 0) {
    if (r > 0 && (!strchr(value, '=') || value[0] == '=' || strchr(value, '=')[1] == '\0')) {
      cli_error(kCmd, "--package-path '%s': expected NAME=DIR", value);
      return -1;
    }
    if (r > 0 && a->num_packages == MAX_PACKAGE_PATHS) {
      cli_error(kCmd, "more than %d --package-path options", MAX_PACKAGE_PATHS);
      return -1;
    }
    if (r > 0) a->packages[a->num_packages++] = value;
  }
  return r;
}

static int parse_args(int argc, char** argv, view_args* a) {
  memset(a, 0, sizeof *a);
  a->out = "out/view.html";
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      print_help();
      return -1;
    }
    const int r = parse_option(argc, argv, &i, a);
    if (r < 0) return CLI_EXIT_USAGE;
    if (r > 0 || cli_parse_model_option(arg, &a->mopts)) continue;
    if (arg[0] == '-' || a->model) {
      cli_error(kCmd, arg[0] == '-' ? "unknown option '%s' (see 'mbt view --help')" : "unexpected argument '%s'", arg);
      return CLI_EXIT_USAGE;
    }
    a->model = arg;
  }
  if (!a->model) {
    cli_error(kCmd, "no MODEL given (see 'mbt view --help')");
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

int mbt_cli_view(int argc, char** argv) {
  view_args a;
  const int pr = parse_args(argc, argv, &a);
  if (pr != CLI_EXIT_OK) return pr < 0 ? CLI_EXIT_OK : pr;
  if (!view_page_available()) {
    cli_error(kCmd, "this mbt was built without the viewer (Node.js and npm were not found when it was configured)");
    return CLI_EXIT_FAILURE;
  }
  cli_model model;
  if (!cli_model_load_with_packages(kCmd, a.model, &a.mopts, a.packages, a.num_packages, &model))
    return CLI_EXIT_FAILURE;
  csv_rows rows;
  memset(&rows, 0, sizeof rows);
  bool ok = !a.trajectory || read_trajectory(a.trajectory, model.tree, &rows);
  const view_trajectory traj = {rows.n, rows.nq, rows.t, rows.q};
  ok = ok && view_page_write(kCmd, &model, a.trajectory ? &traj : NULL, a.out);
  if (ok) printf("%s\n", a.out);
  free(rows.t);
  free(rows.q);
  cli_model_free(&model);
  return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
