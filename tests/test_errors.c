/* test_errors.c: the error contract of docs/errors.md (status.h, urdf.h, dynamics.h, sim.h and
 * the mbt command). Every row of the doc's tables names a case of this file: the case is run and
 * its status (or the command's exit code) and message must be the row's, exactly ("…" in the
 * doc stands for any text: the build directory, a number that varies). Every case must have its
 * row and every row its case, so the doc and the tests cannot drift apart. */
#define _POSIX_C_SOURCE 200809L
#include "support/test_util.h"

#include <sys/stat.h>
#include <sys/wait.h>

#define ROBOT "<robot name=\"r\">"
#define LINK(n) "<link name=\"" n "\"><inertial><mass value=\"1\"/>" \
                "<inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
#define JOINT(n, p, c) "<joint name=\"" n "\" type=\"revolute\"><parent link=\"" p "\"/><child link=\"" c "\"/>" \
                       "<axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>"

/* A case: fills `message`, returns the status (library) or the exit code (command). */
typedef int (*case_fn)(char* message, size_t n);

/* ---- library cases ---------------------------------------------------------------------- */
static int load_text(const char* xml, size_t len, int flags, char* message, size_t n) {
  mbt_urdf_result r;
  const int s = mbt_urdf_load_string(xml, len, "robot.urdf", flags, &r);
  snprintf(message, n, "%s", s ? r.error : "");
  if (s) assert_null(r.tree); /* a failed load leaves nothing */
  mbt_urdf_result_free(&r);
  return s;
}

static int load(const char* xml, char* message, size_t n) { return load_text(xml, strlen(xml), 0, message, n); }

static int load_path(const char* path, char* message, size_t n) {
  mbt_urdf_result r;
  const int s = mbt_urdf_load_file(path, 0, &r);
  snprintf(message, n, "%s", s ? r.error : "");
  mbt_urdf_result_free(&r);
  return s;
}

static int file_missing(char* m, size_t n) { return load_path(MBT_BINARY_DIR "/tests/no_such_file.urdf", m, n); }
static int file_directory(char* m, size_t n) { return load_path(MBT_BINARY_DIR "/tests", m, n); }
static int file_empty(char* m, size_t n) { return load("  \n", m, n); }
static int file_too_large(char* m, size_t n) {
  /* The length is checked before the text is read: a short buffer with a large length. */
  return load_text("<robot/>", (size_t)MBT_URDF_MAX_FILE_SIZE + 1, 0, m, n);
}
static int xml_malformed(char* m, size_t n) { return load(ROBOT "\n<link name=\"a\">\n</robot>", m, n); }
static int xml_external_entity(char* m, size_t n) {
  return load("<!DOCTYPE robot [<!ENTITY x SYSTEM \"file:///etc/hostname\">]>\n" ROBOT "&x;" LINK("a") "</robot>", m, n);
}
static int xml_entity_loop(char* m, size_t n) {
  return load("<!DOCTYPE robot [<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">]>\n<robot name=\"&a;\">" LINK("a") "</robot>", m,
              n);
}
static int xml_too_deep(char* m, size_t n) {
  char xml[8192] = ROBOT "<link name=\"a\">";
  for (int k = 0; k < 300; ++k) strcat(xml, "<x>");
  for (int k = 0; k < 300; ++k) strcat(xml, "</x>");
  strcat(xml, "</link></robot>");
  return load(xml, m, n);
}
static int xml_not_robot(char* m, size_t n) { return load("<sdf version=\"1.6\"/>", m, n); }
static int urdf_missing_attribute(char* m, size_t n) {
  return load(ROBOT LINK("a") LINK("b") "\n<joint name=\"j\"><parent link=\"a\"/><child link=\"b\"/></joint></robot>", m, n);
}
static int urdf_bad_number(char* m, size_t n) {
  return load(ROBOT "\n<link name=\"a\"><inertial><mass value=\"1,5\"/>"
                    "<inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link></robot>",
              m, n);
}
static int urdf_non_finite(char* m, size_t n) {
  return load(ROBOT LINK("a") LINK("b") "\n<joint name=\"j\" type=\"fixed\"><origin xyz=\"0 nan 0\"/>"
                    "<parent link=\"a\"/><child link=\"b\"/></joint></robot>",
              m, n);
}
static int urdf_unknown_joint_type(char* m, size_t n) {
  return load(ROBOT LINK("a") LINK("b") "\n<joint name=\"j\" type=\"ball\"><parent link=\"a\"/><child link=\"b\"/>"
                    "</joint></robot>",
              m, n);
}
static int urdf_twice(char* m, size_t n) {
  return load(ROBOT LINK("a") LINK("b") "\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/>"
                    "<child link=\"b\"/>\n<child link=\"b\"/></joint></robot>",
              m, n);
}
static int urdf_zero_axis(char* m, size_t n) {
  return load(ROBOT LINK("a") LINK("b") "\n<joint name=\"j\" type=\"continuous\"><parent link=\"a\"/>"
                    "<child link=\"b\"/>\n<axis xyz=\"0 0 0\"/></joint></robot>",
              m, n);
}
static int urdf_duplicate(char* m, size_t n) { return load(ROBOT LINK("a") "\n" LINK("a") "</robot>", m, n); }
static int urdf_name_too_long(char* m, size_t n) {
  char xml[1024] = ROBOT "\n<link name=\"";
  for (int k = 0; k < 300; ++k) strcat(xml, "x");
  strcat(xml, "\"/></robot>");
  return load(xml, m, n);
}
static int urdf_too_many_elements(char* m, size_t n) {
  const size_t count = (size_t)MBT_URDF_MAX_ELEMENTS + 1;
  char* xml = malloc(16 + 4 * count + 16);
  assert_non_null(xml);
  strcpy(xml, ROBOT "\n");
  char* p = xml + strlen(xml);
  for (size_t k = 0; k < count; ++k, p += 4) memcpy(p, "<x/>", 4);
  strcpy(p, "</robot>");
  const int s = load(xml, m, n);
  free(xml);
  return s;
}
static int topology_unknown_link(char* m, size_t n) {
  return load(ROBOT LINK("a") "\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"c\"/></joint></robot>",
              m, n);
}
static int topology_two_parents(char* m, size_t n) {
  return load(ROBOT LINK("a") LINK("b") LINK("c") "\n" JOINT("j1", "a", "c") "\n" JOINT("j2", "b", "c") "</robot>", m, n);
}
static int topology_cycle(char* m, size_t n) {
  /* r is the one root; a and b each have one parent, each other. */
  return load(ROBOT LINK("r") LINK("a") LINK("b") "\n" JOINT("j1", "a", "b") "\n" JOINT("j2", "b", "a") "</robot>", m,
              n);
}
static int topology_two_roots(char* m, size_t n) { return load(ROBOT LINK("a") "\n" LINK("b") "</robot>", m, n); }
static int inertia_negative_mass(char* m, size_t n) {
  return load(ROBOT "<link name=\"a\"><inertial>\n<mass value=\"-1\"/>"
                    "<inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link></robot>",
              m, n);
}
static int inertia_triangle(char* m, size_t n) {
  return load(ROBOT "<link name=\"a\"><inertial><mass value=\"1\"/>\n"
                    "<inertia ixx=\"1\" iyy=\"1\" izz=\"3\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link></robot>",
              m, n);
}

/* Forward dynamics of a revolute joint carrying a massless link: D = H_FMᵀ·P·H_FM = 0. */
static int numerical_singular(char* m, size_t n) {
  static const char xml[] = ROBOT LINK("a") "<link name=\"tip\"/>" JOINT("j", "a", "tip") "</robot>";
  mbt_urdf_result r;
  assert_int_equal(mbt_urdf_load_string(xml, strlen(xml), "robot.urdf", 0, &r), MBT_OK);
  mbt_context* ctx = mbt_context_create(r.tree);
  mbt_real vdot[1];
  const int s = mbt_calc_forward_dynamics(r.tree, ctx, NULL, NULL, vdot);
  snprintf(m, n, "%s", mbt_context_last_error(ctx));
  mbt_context_destroy(ctx);
  mbt_urdf_result_free(&r);
  return s;
}

/* ---- command cases ------------------------------------------------------------------------ */
/* Writes `text` to build/tests/errors/<name> and returns the path. */
static const char* input_file(const char* name, const char* text) {
  static char path[1024];
  mkdir(MBT_BINARY_DIR "/tests/errors", 0755);
  snprintf(path, sizeof path, "%s/tests/errors/%s", MBT_BINARY_DIR, name);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

/* Runs `mbt ARGS` (ARGS already quoted); stderr into message (last line), the exit code back. */
static int run_mbt(const char* args, char* message, size_t n) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s/mbt' %s 2>&1 >/dev/null", MBT_BINARY_DIR, args);
  FILE* p = popen(cmd, "r");
  assert_non_null(p);
  char line[2048];
  message[0] = '\0';
  while (fgets(line, sizeof line, p)) {
    line[strcspn(line, "\n")] = '\0';
    if (line[0]) snprintf(message, n, "%s", line);
  }
  const int rc = pclose(p);
  assert_true(WIFEXITED(rc));
  return WEXITSTATUS(rc);
}

static int eval_states(const char* text, char* m, size_t n) {
  char args[2048];
  snprintf(args, sizeof args, "eval '%s/models/double_pendulum.urdf' --states '%s'", MBT_SOURCE_DIR,
           input_file("states.json", text));
  return run_mbt(args, m, n);
}

static int state_size(char* m, size_t n) { return eval_states("{\"states\": [{\"q\": [0, 0, 0], \"v\": [0, 0]}]}", m, n); }
static int state_not_number(char* m, size_t n) {
  return eval_states("{\"states\": [{\"q\": [0, 0], \"v\": [0, \"fast\"]}]}", m, n);
}
static int state_not_json(char* m, size_t n) { return eval_states("{\"states\": [\n{\"q\": [0, 0],\n}]}", m, n); }
static int option_unknown(char* m, size_t n) { return run_mbt("info --colour", m, n); }
static int option_bad_value(char* m, size_t n) {
  char args[1024];
  snprintf(args, sizeof args, "eval '%s/models/double_pendulum.urdf' --states x.json --gravity 0,-9.81", MBT_SOURCE_DIR);
  return run_mbt(args, m, n);
}
static int system_cannot_write(char* m, size_t n) {
  char args[1024];
  snprintf(args, sizeof args, "simulate '%s/models/double_pendulum.urdf' --duration 0.01 --no-plot --out /proc/x.csv",
           MBT_SOURCE_DIR);
  return run_mbt(args, m, n);
}
static int numerical_non_finite(char* m, size_t n) {
  char args[1024];
  snprintf(args, sizeof args,
           "simulate '%s/models/double_pendulum.urdf' --integrator euler --dt 0.5 --duration 10 --v0 1e200,1e200 "
           "--no-plot --out '%s/tests/errors/blowup.csv'",
           MBT_SOURCE_DIR, MBT_BINARY_DIR);
  return run_mbt(args, m, n);
}

static const struct {
  const char* id;
  case_fn run;
} kCases[] = {
    {"file-missing", file_missing},
    {"file-directory", file_directory},
    {"file-empty", file_empty},
    {"file-too-large", file_too_large},
    {"xml-malformed", xml_malformed},
    {"xml-external-entity", xml_external_entity},
    {"xml-entity-loop", xml_entity_loop},
    {"xml-too-deep", xml_too_deep},
    {"xml-not-robot", xml_not_robot},
    {"urdf-missing-attribute", urdf_missing_attribute},
    {"urdf-bad-number", urdf_bad_number},
    {"urdf-non-finite", urdf_non_finite},
    {"urdf-unknown-joint-type", urdf_unknown_joint_type},
    {"urdf-element-twice", urdf_twice},
    {"urdf-zero-axis", urdf_zero_axis},
    {"urdf-duplicate-name", urdf_duplicate},
    {"urdf-name-too-long", urdf_name_too_long},
    {"urdf-too-many-elements", urdf_too_many_elements},
    {"topology-unknown-link", topology_unknown_link},
    {"topology-two-parents", topology_two_parents},
    {"topology-cycle", topology_cycle},
    {"topology-two-roots", topology_two_roots},
    {"inertia-negative-mass", inertia_negative_mass},
    {"inertia-triangle", inertia_triangle},
    {"state-wrong-size", state_size},
    {"state-not-a-number", state_not_number},
    {"state-not-json", state_not_json},
    {"option-unknown", option_unknown},
    {"option-bad-value", option_bad_value},
    {"numerical-singular", numerical_singular},
    {"numerical-non-finite", numerical_non_finite},
    {"system-cannot-write", system_cannot_write},
};
enum { kNumCases = sizeof kCases / sizeof kCases[0] };

/* ---- the doc ------------------------------------------------------------------------------ */
/* "…" (UTF-8) in the pattern matches any text, possibly empty. */
static bool glob_match(const char* pat, const char* s) {
  static const char kAny[] = "\xe2\x80\xa6";
  if (!*pat) return !*s;
  if (strncmp(pat, kAny, 3) == 0) {
    for (const char* t = s;; ++t) {
      if (glob_match(pat + 3, t)) return true;
      if (!*t) return false;
    }
  }
  return *s == *pat && glob_match(pat + 1, s + 1);
}

static const char* status_name(int s) {
  static const char* const names[] = {"MBT_OK", "MBT_ERR_INVALID_ARGUMENT", "MBT_ERR_NOT_FOUND", "MBT_ERR_DUPLICATE",
                                      "MBT_ERR_FINALIZED", "MBT_ERR_NOT_FINALIZED", "MBT_ERR_TOPOLOGY",
                                      "MBT_ERR_NONPHYSICAL", "MBT_ERR_SIZE", "MBT_ERR_NO_MEMORY", "MBT_ERR_SINGULAR",
                                      "MBT_ERR_PARSE", "MBT_ERR_IO", "MBT_ERR_INTERRUPTED", "MBT_ERR_LIMIT"};
  return s <= 0 && -s < (int)(sizeof names / sizeof names[0]) ? names[-s] : "?";
}

/* The text between the first pair of backticks of a table cell, in place; NULL if none. */
static char* code_span(char* cell) {
  char* a = strchr(cell, '`');
  char* b = a ? strrchr(a + 1, '`') : NULL;
  if (!b) return NULL;
  *b = '\0';
  return a + 1;
}

/* Checks one row "| `id` | input | `status` | `message` |"; returns the case index. */
static int check_row(char* line) {
  char* cells[6] = {0};
  int nc = 0;
  for (char* t = strtok(line, "|"); t && nc < 6; t = strtok(NULL, "|")) cells[nc++] = t;
  if (nc < 4) fail_msg("docs/errors.md: row with %d cells", nc);
  const char* id = code_span(cells[0]);
  const char* status = code_span(cells[2]);
  const char* message = code_span(cells[3]);
  if (!id || !status || !message) fail_msg("docs/errors.md: row '%s': id, status and message must be `code`", cells[0]);
  for (int k = 0; k < kNumCases; ++k) {
    if (strcmp(kCases[k].id, id) != 0) continue;
    char got[2048];
    const int s = kCases[k].run(got, sizeof got);
    char got_status[32];
    if (strncmp(status, "exit", 4) == 0)
      snprintf(got_status, sizeof got_status, "exit %d", s);
    else
      snprintf(got_status, sizeof got_status, "%s", status_name(s));
    if (strcmp(got_status, status) != 0) fail_msg("%s: status %s, the doc says %s (message: %s)", id, got_status, status, got);
    if (!glob_match(message, got)) fail_msg("%s: message\n  %s\nthe doc says\n  %s", id, got, message);
    return k;
  }
  fail_msg("docs/errors.md: row '%s' has no case in test_errors.c", id);
  return -1;
}

static void test_every_documented_error_is_produced(void** state) {
  (void)state;
  size_t len = 0;
  char* doc = tu_read_file(MBT_SOURCE_DIR "/docs/errors.md", &len);
  assert_non_null(doc);
  bool seen[kNumCases] = {false};
  int rows = 0;
  for (char* line = doc; line && *line;) {
    char* next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (strncmp(line, "| `", 3) == 0) {
      const int k = check_row(line);
      if (seen[k]) fail_msg("docs/errors.md: case %s has two rows", kCases[k].id);
      seen[k] = true;
      ++rows;
    }
    line = next;
  }
  for (int k = 0; k < kNumCases; ++k)
    if (!seen[k]) fail_msg("case %s of test_errors.c has no row in docs/errors.md", kCases[k].id);
  assert_int_equal(rows, kNumCases);
  free(doc);
}

/* `test_errors --list`: every case with what it produces, as rows for the doc. */
static void list_cases(void) {
  for (int k = 0; k < kNumCases; ++k) {
    char got[2048];
    const int s = kCases[k].run(got, sizeof got);
    printf("| `%s` | | `%s` / `exit %d` | `%s` |\n", kCases[k].id, status_name(s), s, got);
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    list_cases();
    return 0;
  }
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_documented_error_is_produced)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
