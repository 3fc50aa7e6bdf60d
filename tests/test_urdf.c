/* Tests of the URDF loader (mbt/urdf.h): one test per error case, with in-memory strings;
 * the semantics of links and joints on small hand-written models with values worked out
 * by hand; the shipped models in models/. */
#include "support/test_util.h"

#define SRC "test.urdf"
#define MODELS MBT_SOURCE_DIR "/models/"

/* A unit mass with unit inertia, and the same wrapped in a link. */
#define INERTIAL                                                                  \
  "<inertial><mass value=\"1\"/>"                                                 \
  "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>"
#define LINK(n) "<link name=\"" n "\">" INERTIAL "</link>\n"
#define REVOLUTE(n, p, c) \
  "<joint name=\"" n "\" type=\"revolute\"><parent link=\"" p "\"/><child link=\"" c "\"/></joint>\n"

static int load(const char* xml, int flags, mbt_urdf_result* r) {
  return mbt_urdf_load_string(xml, strlen(xml), SRC, flags, r);
}

/* Loads `xml`, expects `status`, no tree, a message that starts with "test.urdf:<line>:"
 * and contains every given fragment (NULL-terminated). */
static void expect_error(const char* xml, int flags, int status, int line, ...) {
  mbt_urdf_result r;
  int s = load(xml, flags, &r);
  char prefix[64];
  snprintf(prefix, sizeof prefix, SRC ":%d: ", line);
  if (s != status || r.status != status || strncmp(r.error, prefix, strlen(prefix)) != 0)
    print_error("status %d (expected %d), error \"%s\" (expected prefix \"%s\")\n", s, status, r.error, prefix);
  assert_int_equal(s, status);
  assert_int_equal(r.status, status);
  assert_null(r.tree);
  assert_int_equal(r.num_warnings, 0);
  assert_null(r.warnings);
  assert_null(r.joint_friction);
  assert_null(r.robot_name);
  assert_true(strncmp(r.error, prefix, strlen(prefix)) == 0);
  va_list ap;
  va_start(ap, line);
  for (const char* frag = va_arg(ap, const char*); frag; frag = va_arg(ap, const char*)) {
    if (!strstr(r.error, frag)) print_error("error \"%s\" lacks \"%s\"\n", r.error, frag);
    assert_non_null(strstr(r.error, frag));
  }
  va_end(ap);
  mbt_urdf_result_free(&r);
  mbt_urdf_result_free(&r); /* twice is harmless */
}

/* ---- errors: one test per case ------------------------------------------------------------ */
static void test_missing_file(void** state) {
  (void)state;
  mbt_urdf_result r;
  const char* path = MBT_BINARY_DIR "/no_such_dir/no_such_robot.urdf";
  assert_int_equal(mbt_urdf_load_file(path, 0, &r), MBT_ERR_IO);
  assert_null(r.tree);
  assert_non_null(strstr(r.error, path));
  assert_non_null(strstr(r.error, "cannot open"));
  mbt_urdf_result_free(&r);
}

static void test_empty_file(void** state) {
  (void)state;
  expect_error("", 0, MBT_ERR_PARSE, 1, "empty file", NULL);
  expect_error("  \n\t\n", 0, MBT_ERR_PARSE, 1, "empty file", NULL);
  /* The same from a file on disk. */
  const char* path = MBT_BINARY_DIR "/test_urdf_empty.urdf";
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  fclose(f);
  mbt_urdf_result r;
  assert_int_equal(mbt_urdf_load_file(path, 0, &r), MBT_ERR_PARSE);
  assert_null(r.tree);
  assert_non_null(strstr(r.error, path));
  assert_non_null(strstr(r.error, ":1: empty file"));
  mbt_urdf_result_free(&r);
  remove(path);
}

static void test_malformed_xml(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\">\n</robot>\n", 0, MBT_ERR_PARSE, 3, "malformed XML",
               "mismatch", NULL);
  expect_error("<robot name=\"r\">\n" LINK("a") "<joint name=\"j\" name=\"k\"/>\n</robot>\n", 0, MBT_ERR_PARSE, 3,
               "malformed XML", "redefined", NULL);
}

/* The text is read one child of <robot> at a time, but an XML error anywhere wins over a URDF
 * error found before it (the text as a whole is not XML). */
static void test_malformed_xml_after_bad_link(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"-1\"/></inertial></link>\n<link>\n</robot>\n",
               0, MBT_ERR_PARSE, 4, "malformed XML", "mismatch", NULL);
}

/* A file is read in pieces of 64 KiB: a model longer than one piece loads as from memory; a
 * blank file is empty; the XML error at the end of a long file wins over a bad link before it. */
static void test_file_read_in_pieces(void** state) {
  (void)state;
  const char* path = MBT_BINARY_DIR "/test_urdf_pieces.urdf";
  char* text = malloc(400000);
  assert_non_null(text);
  int n = sprintf(text, "<robot name=\"r\">\n<link name=\"l0\">" INERTIAL "</link>\n");
  for (int i = 1; i < 1000; ++i)
    n += sprintf(text + n, "<link name=\"l%d\">" INERTIAL "</link>\n" "<joint name=\"j%d\" type=\"continuous\"><parent link=\"l%d\"/><child link=\"l%d\"/></joint>\n", i, i, i - 1, i);
  assert_true(n > 3 * 65536);
  for (int pass = 0; pass < 3; ++pass) {
    const char* tail = pass == 0 ? "</robot>\n" : pass == 1 ? "<link name=\"l1\"/>\n</robot>\n" : "<link name=\"x\">\n</robot>\n";
    FILE* f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fputs(tail, f);
    fclose(f);
    mbt_urdf_result r;
    const int s = mbt_urdf_load_file(path, 0, &r);
    if (pass == 0) {
      assert_int_equal(s, MBT_OK);
      assert_int_equal(mbt_tree_num_bodies(r.tree), 1001);
    } else if (pass == 1) {
      assert_int_equal(s, MBT_ERR_DUPLICATE);
      assert_contains(r.error, ":2001: <link 'l1'>: a link with this name is already declared at line 3");
    } else {
      assert_int_equal(s, MBT_ERR_PARSE);
      assert_contains(r.error, ":2002: malformed XML: Opening and ending tag mismatch: link line 2001 and robot");
    }
    mbt_urdf_result_free(&r);
  }
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  fputs(" \n\t\n", f);
  fclose(f);
  mbt_urdf_result r;
  assert_int_equal(mbt_urdf_load_file(path, 0, &r), MBT_ERR_PARSE);
  assert_contains(r.error, "test_urdf_pieces.urdf:1: empty file: expected a URDF <robot> element");
  mbt_urdf_result_free(&r);
  remove(path);
  free(text);
}

/* Entities in attribute values are replaced (as a DOM reader does); an entity's elements are not
 * elements of <robot>. */
static void test_entities(void** state) {
  (void)state;
  const char* xml = "<!DOCTYPE robot [<!ENTITY n \"base\"><!ENTITY l \"<link name='hidden'/>\">]>\n"
                    "<robot name=\"a&amp;b\">\n<link name=\"&n;\">" INERTIAL "</link>\n&l;\n</robot>\n";
  mbt_urdf_result r;
  assert_int_equal(load(xml, 0, &r), MBT_OK);
  assert_string_equal(r.robot_name, "a&b");
  assert_true(mbt_tree_body_by_name(r.tree, "base") >= 0);
  assert_true(mbt_tree_body_by_name(r.tree, "hidden") < 0);
  mbt_urdf_result_free(&r);
  expect_error("<!DOCTYPE robot [<!ENTITY l \"<link name='hidden'/>\">]>\n<robot name=\"r\">\n&l;\n</robot>\n", 0,
               MBT_ERR_PARSE, 2, "the robot has no <link>", NULL);
}

/* A visual may name a robot-level material declared after its link; an unknown one is an error
 * at the visual's <material>. */
static void test_material_declared_later(void** state) {
  (void)state;
  const char* xml = "<robot name=\"r\">\n<link name=\"a\">" INERTIAL
                    "<visual><geometry><sphere radius=\"1\"/></geometry><material name=\"blue\"/></visual></link>\n"
                    "<material name=\"blue\"><color rgba=\"0 0 1 0.5\"/></material>\n</robot>\n";
  mbt_urdf_result r;
  assert_int_equal(load(xml, 0, &r), MBT_OK);
  const mbt_geometry* g = mbt_tree_geometry(r.tree, MBT_ROLE_VISUAL, 0);
  assert_non_null(g);
  assert_true(g->has_rgba);
  assert_true(g->rgba[0] == 0 && g->rgba[1] == 0 && g->rgba[2] == 1 && g->rgba[3] == 0.5);
  assert_string_equal(g->material, "blue");
  mbt_urdf_result_free(&r);
  expect_error("<robot name=\"r\">\n<link name=\"a\">" INERTIAL "<visual><geometry><sphere radius=\"1\"/></geometry>\n"
               "<material name=\"red\"/></visual></link>\n</robot>\n",
               0, MBT_ERR_NOT_FOUND, 3, "<link 'a'>", "<material 'red'> has no <color>", NULL);
}

static void test_root_not_robot(void** state) {
  (void)state;
  expect_error("<?xml version=\"1.0\"?>\n<model name=\"r\">\n" LINK("a") "</model>\n", 0, MBT_ERR_PARSE, 2,
               "<model>", "not <robot>", NULL);
}

static void test_missing_link_name(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link>" INERTIAL "</link>\n</robot>", 0, MBT_ERR_PARSE, 2, "<link>", "'name'",
               "missing", NULL);
}

static void test_missing_joint_name(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
               0, MBT_ERR_PARSE, 4, "<joint>", "'name'", NULL);
}

static void test_missing_joint_type(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
               0, MBT_ERR_PARSE, 4, "<joint 'j'>", "'type'", NULL);
}

static void test_missing_parent(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"fixed\"><child link=\"b\"/></joint>\n</robot>",
               0, MBT_ERR_PARSE, 4, "<joint 'j'>", "<parent>", NULL);
}

static void test_missing_child(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/></joint>\n</robot>",
               0, MBT_ERR_PARSE, 4, "<joint 'j'>", "<child>", NULL);
}

static void test_missing_parent_link_attribute(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"fixed\">\n<parent/><child link=\"b\"/></joint>\n</robot>",
               0, MBT_ERR_PARSE, 5, "<joint 'j'>", "<parent>", "'link'", NULL);
}

static void test_missing_mass_value(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\"><inertial>\n<mass/>\n"
               "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_PARSE, 3, "<link 'a'>", "<mass>", "'value'", NULL);
}

static void test_missing_mass_element(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\">\n<inertial>"
               "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_PARSE, 3, "<link 'a'>", "<mass>", NULL);
}

static void test_missing_inertia_attribute(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"1\"/>\n"
               "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\"/></inertial></link>\n</robot>",
               0, MBT_ERR_PARSE, 3, "<link 'a'>", "<inertia>", "'izz'", NULL);
}

static void test_missing_inertia_element(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\">\n<inertial><mass value=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_PARSE, 3, "<link 'a'>", "<inertia>", NULL);
}

static void test_unparsable_number(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\"><inertial>\n<mass value=\"1.0abc\"/>"
               "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_PARSE, 3, "<link 'a'>", "'1.0abc'", "not a number", NULL);
}

static void test_nan_number(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"fixed\">\n<origin xyz=\"0 nan 0\"/>"
               "<parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
               0, MBT_ERR_PARSE, 5, "<joint 'j'>", "'nan'", "not a finite number", NULL);
}

static void test_inf_number(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"1\"/>\n"
               "<inertia ixx=\"inf\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_PARSE, 3, "<link 'a'>", "'inf'", "not a finite number", NULL);
  /* Overflow is not finite either. */
  expect_error("<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"1\"/>\n"
               "<inertia ixx=\"1e999\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_PARSE, 3, "'1e999'", "not a finite number", NULL);
}

static void test_wrong_count_xyz(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"fixed\">\n<origin xyz=\"0 1\"/>"
               "<parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
               0, MBT_ERR_PARSE, 5, "<joint 'j'>", "'xyz'", "2 numbers, expected 3", NULL);
}

static void test_wrong_count_rpy(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\"><inertial>\n<origin rpy=\"0 0 0 1\"/><mass value=\"1\"/>"
               "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_PARSE, 3, "<link 'a'>", "'rpy'", "4 numbers, expected 3", NULL);
}

static void test_negative_mass(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"a\"><inertial>\n<mass value=\"-2\"/>"
               "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_INVALID_ARGUMENT, 3, "<link 'a'>", "-2", "negative", NULL);
}

static void test_unknown_joint_type(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"hinge\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
               0, MBT_ERR_PARSE, 4, "<joint 'j'>", "unknown joint type 'hinge'", NULL);
}

static void test_unknown_parent_link(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"fixed\">\n<parent link=\"nope\"/><child link=\"b\"/></joint>\n</robot>",
               0, MBT_ERR_NOT_FOUND, 5, "<joint 'j'>", "'nope'", NULL);
}

static void test_unknown_child_link(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/>\n<child link=\"nope\"/></joint>\n</robot>",
               0, MBT_ERR_NOT_FOUND, 5, "<joint 'j'>", "'nope'", NULL);
}

static void test_two_parents(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c")
               REVOLUTE("j1", "a", "c")
               "<joint name=\"j2\" type=\"revolute\"><parent link=\"b\"/>\n<child link=\"c\"/></joint>\n</robot>",
               0, MBT_ERR_TOPOLOGY, 7, "<joint 'j2'>", "'c' has two parents", "'j1' (line 5)", NULL);
}

static void test_cycle(void** state) {
  (void)state;
  /* Root a alone; b and c hang from each other. */
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c") REVOLUTE("j1", "b", "c") REVOLUTE("j2", "c", "b")
               "</robot>",
               0, MBT_ERR_TOPOLOGY, 6, "cycle", "'b'", "'c'", NULL);
  /* Every link on the cycle: no root at all. */
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b") REVOLUTE("j1", "a", "b") REVOLUTE("j2", "b", "a") "</robot>",
               0, MBT_ERR_TOPOLOGY, 5, "cycle", NULL);
  /* A joint from a link to itself. */
  expect_error("<robot name=\"r\">\n" LINK("a") REVOLUTE("j1", "a", "a") "</robot>", 0, MBT_ERR_TOPOLOGY, 3,
               "<joint 'j1'>", "itself", NULL);
}

static void test_several_roots(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c") REVOLUTE("j1", "a", "b") "</robot>", 0,
               MBT_ERR_TOPOLOGY, 4, "<link 'c'>", "root links", "'a' (line 2)", NULL);
  /* A world link and a link hanging from nothing. */
  expect_error("<robot name=\"r\">\n<link name=\"world\"/>\n" LINK("a") LINK("b") REVOLUTE("j1", "world", "a")
               "</robot>",
               0, MBT_ERR_TOPOLOGY, 4, "<link 'b'>", "'world'", NULL);
}

static void test_nonphysical_inertia(void** state) {
  (void)state;
  /* Principal moments 1, 1, 3: 3 > 1 + 1. */
  const char* xml =
      "<robot name=\"r\">\n<link name=\"bad\"><inertial><mass value=\"2\"/>\n"
      "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"3\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>";
  expect_error(xml, 0, MBT_ERR_NONPHYSICAL, 3, "<link 'bad'>", "1, 1, 3", "triangle inequality", NULL);
  /* With the lenient option it loads as written, with one warning naming the link. */
  mbt_urdf_result r;
  assert_int_equal(load(xml, MBT_URDF_ALLOW_INVALID_INERTIA, &r), MBT_OK);
  assert_non_null(r.tree);
  assert_int_equal(r.num_warnings, 1);
  assert_non_null(strstr(r.warnings[0], SRC ":3: <link 'bad'>"));
  assert_non_null(strstr(r.warnings[0], "1, 1, 3"));
  const int b = mbt_tree_body_by_name(r.tree, "bad");
  assert_true(b > 0);
  const mbt_spatial_inertia* M = mbt_tree_body_spatial_inertia(r.tree, b);
  assert_true(M->mass == 2);
  assert_true(fabs(M->G_SP_E.yy - 1.5) < 1e-15);
  mbt_urdf_result_free(&r);
  /* A negative principal moment, and a zero mass with a nonzero inertia. */
  expect_error("<robot name=\"r\">\n<link name=\"neg\"><inertial><mass value=\"1\"/>\n"
               "<inertia ixx=\"-1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_NONPHYSICAL, 3, "<link 'neg'>", "negative principal moment", NULL);
  expect_error("<robot name=\"r\">\n<link name=\"zero\"><inertial><mass value=\"0\"/>\n"
               "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n</robot>",
               0, MBT_ERR_NONPHYSICAL, 3, "<link 'zero'>", "mass is zero", NULL);
}

static void test_zero_axis(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>\n"
               "<axis xyz=\"0 0 0\"/></joint>\n</robot>",
               0, MBT_ERR_INVALID_ARGUMENT, 5, "<joint 'j'>", "zero vector", NULL);
  /* A fixed joint does not use its axis: a zero one is accepted. */
  mbt_urdf_result r;
  const char* ok = "<robot name=\"r\">\n" LINK("a") LINK("b")
                   "<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/>"
                   "<axis xyz=\"0 0 0\"/></joint>\n</robot>";
  assert_int_equal(load(ok, 0, &r), MBT_OK);
  mbt_urdf_result_free(&r);
}

static void test_lower_above_upper(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"prismatic\"><parent link=\"a\"/><child link=\"b\"/>\n"
               "<limit lower=\"0.5\" upper=\"-0.5\" effort=\"1\" velocity=\"1\"/></joint>\n</robot>",
               0, MBT_ERR_INVALID_ARGUMENT, 5, "<joint 'j'>", "lower 0.5 is above upper -0.5", NULL);
}

static void test_duplicate_link(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("a") "</robot>", 0, MBT_ERR_DUPLICATE, 3, "<link 'a'>",
               "line 2", NULL);
}

static void test_duplicate_joint(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c") REVOLUTE("j", "a", "b") REVOLUTE("j", "b", "c")
               "</robot>",
               0, MBT_ERR_DUPLICATE, 6, "<joint 'j'>", "line 5", NULL);
}

static void test_duplicate_child_element(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
               "<axis xyz=\"1 0 0\"/>\n<axis xyz=\"0 1 0\"/></joint>\n</robot>",
               0, MBT_ERR_PARSE, 5, "<joint 'j'>", "<axis> appears twice", NULL);
}

static void test_negative_damping(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b")
               "<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>\n"
               "<dynamics damping=\"-0.1\"/></joint>\n</robot>",
               0, MBT_ERR_INVALID_ARGUMENT, 5, "<joint 'j'>", "damping -0.1", NULL);
}

static void test_floating_with_world_link(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"world\"/>\n" LINK("a")
               "<joint name=\"j\" type=\"fixed\"><parent link=\"world\"/><child link=\"a\"/></joint>\n</robot>",
               MBT_URDF_FLOATING, MBT_ERR_INVALID_ARGUMENT, 2, "<link 'world'>", "floating", NULL);
}

static void test_world_as_child(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n<link name=\"world\"/>\n" LINK("a")
               "<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/>\n<child link=\"world\"/></joint>\n</robot>",
               0, MBT_ERR_TOPOLOGY, 5, "<joint 'j'>", "world body", NULL);
}

static void test_reserved_joint_name(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b") REVOLUTE("world_weld", "a", "b") "</robot>", 0,
               MBT_ERR_DUPLICATE, 4, "<joint 'world_weld'>", "reserved", NULL);
  expect_error("<robot name=\"r\">\n" LINK("a") LINK("b") REVOLUTE("root_joint", "a", "b") "</robot>",
               MBT_URDF_FLOATING, MBT_ERR_DUPLICATE, 4, "<joint 'root_joint'>", "reserved", NULL);
}

static void test_no_link(void** state) {
  (void)state;
  expect_error("<robot name=\"r\">\n</robot>", 0, MBT_ERR_PARSE, 1, "<robot 'r'>", "no <link>", NULL);
}

static void test_null_arguments(void** state) {
  (void)state;
  mbt_urdf_result r;
  assert_int_equal(mbt_urdf_load_string(NULL, 3, NULL, 0, &r), MBT_ERR_INVALID_ARGUMENT);
  assert_null(r.tree);
  mbt_urdf_result_free(&r);
  assert_int_equal(mbt_urdf_load_file(NULL, 0, &r), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_urdf_load_string("<robot/>", 8, NULL, 0, NULL), MBT_ERR_INVALID_ARGUMENT);
  /* Without a source name, messages say "<string>". */
  assert_int_equal(mbt_urdf_load_string("<x/>", 4, NULL, 0, &r), MBT_ERR_PARSE);
  assert_non_null(strstr(r.error, "<string>:1: <x>"));
  mbt_urdf_result_free(&r);
}

/* ---- semantics ---------------------------------------------------------------------------- */
static void load_ok(const char* xml, int flags, mbt_urdf_result* r) {
  int s = load(xml, flags, r);
  if (s != MBT_OK) print_error("load failed: %s\n", r->error);
  assert_int_equal(s, MBT_OK);
  assert_non_null(r->tree);
  assert_true(mbt_tree_is_finalized(r->tree));
}

static int count_warnings(const mbt_urdf_result* r, const char* frag) {
  int n = 0;
  for (int i = 0; i < r->num_warnings; ++i)
    if (strstr(r->warnings[i], frag)) ++n;
  return n;
}

/* Inertial origin xyz = (0.1, 0.2, 0.3), rpy = (0, 0, π/2), m = 2, I = diag(1, 2, 3) in I.
 * By hand: R_BI = Rz(π/2) swaps x and y, I_B = diag(2, 1, 3), G_cm = diag(1, 0.5, 1.5);
 * |p|² = 0.14, so G_Bo = G_cm + |p|²·1 − p·pᵀ:
 *   xx = 1 + 0.14 − 0.01 = 1.13, yy = 0.5 + 0.14 − 0.04 = 0.6, zz = 1.5 + 0.14 − 0.09 = 1.55,
 *   xy = −0.02, xz = −0.03, yz = −0.06. */
static void test_inertia_about_link_origin(void** state) {
  (void)state;
  const char* xml =
      "<robot name=\"r\"><link name=\"a\"><inertial><origin xyz=\"0.1 0.2 0.3\" rpy=\"0 0 1.5707963267948966\"/>"
      "<mass value=\"2\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"2\" iyz=\"0\" izz=\"3\"/></inertial></link>"
      "<link name=\"massless\"/></robot>";
  /* Two roots: check that first, then with a joint. */
  mbt_urdf_result r;
  assert_int_equal(load(xml, 0, &r), MBT_ERR_TOPOLOGY);
  mbt_urdf_result_free(&r);
  const char* xml2 =
      "<robot name=\"r\"><link name=\"a\"><inertial><origin xyz=\"0.1 0.2 0.3\" rpy=\"0 0 1.5707963267948966\"/>"
      "<mass value=\"2\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"2\" iyz=\"0\" izz=\"3\"/></inertial></link>"
      "<link name=\"massless\"/>"
      "<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"massless\"/></joint></robot>";
  load_ok(xml2, 0, &r);
  assert_string_equal(r.robot_name, "r");
  const int a = mbt_tree_body_by_name(r.tree, "a");
  assert_true(a > 0);
  const mbt_spatial_inertia* M = mbt_tree_body_spatial_inertia(r.tree, a);
  const double tol = 1e-15;
  assert_true(M->mass == 2);
  assert_true(fabs(M->p_PScm_E.v[0] - 0.1) < tol && fabs(M->p_PScm_E.v[1] - 0.2) < tol &&
              fabs(M->p_PScm_E.v[2] - 0.3) < tol);
  assert_true(fabs(M->G_SP_E.xx - 1.13) < tol);
  assert_true(fabs(M->G_SP_E.yy - 0.6) < tol);
  assert_true(fabs(M->G_SP_E.zz - 1.55) < tol);
  assert_true(fabs(M->G_SP_E.xy + 0.02) < tol);
  assert_true(fabs(M->G_SP_E.xz + 0.03) < tol);
  assert_true(fabs(M->G_SP_E.yz + 0.06) < tol);
  const int m = mbt_tree_body_by_name(r.tree, "massless");
  assert_true(m > 0);
  assert_true(mbt_tree_body_spatial_inertia(r.tree, m)->mass == 0);
  /* The root is welded to the world by "world_weld": no dofs. */
  const int w = mbt_tree_joint_by_name(r.tree, "world_weld");
  assert_true(w >= 0);
  assert_int_equal(mbt_joint_type_of(r.tree, w), MBT_JOINT_WELD);
  assert_int_equal(mbt_joint_parent_body(r.tree, w), 0);
  assert_int_equal(mbt_joint_child_body(r.tree, w), a);
  assert_int_equal(mbt_tree_num_positions(r.tree), 0);
  mbt_urdf_result_free(&r);
}

static void expect_near_vec3(mbt_vec3 a, double x, double y, double z, double tol) {
  if (!(fabs(a.v[0] - x) <= tol && fabs(a.v[1] - y) <= tol && fabs(a.v[2] - z) <= tol))
    print_error("(%.17g, %.17g, %.17g) != (%.17g, %.17g, %.17g)\n", a.v[0], a.v[1], a.v[2], x, y, z);
  assert_true(fabs(a.v[0] - x) <= tol && fabs(a.v[1] - y) <= tol && fabs(a.v[2] - z) <= tol);
}

static void test_joint_semantics(void** state) {
  (void)state;
  const char* xml =
      "<robot name=\"r\">\n" LINK("base") LINK("l1") LINK("l2") LINK("l3")
      "<joint name=\"rev\" type=\"revolute\"><origin xyz=\"1 2 3\" rpy=\"0.5 0 0\"/><parent link=\"base\"/>"
      "<child link=\"l1\"/><axis xyz=\"0 0 2\"/><limit lower=\"-1\" upper=\"2\" effort=\"30\" velocity=\"4\"/>"
      "<dynamics damping=\"0.7\" friction=\"0.2\"/></joint>\n"
      "<joint name=\"cont\" type=\"continuous\"><parent link=\"l1\"/><child link=\"l2\"/><axis xyz=\"0 3 4\"/>"
      "<limit lower=\"-1\" upper=\"1\" effort=\"5\" velocity=\"6\"/></joint>\n"
      "<joint name=\"pri\" type=\"prismatic\"><parent link=\"l2\"/><child link=\"l3\"/>"
      "<limit lower=\"-0.1\" upper=\"0.2\" effort=\"7\" velocity=\"0.5\"/><dynamics damping=\"3\"/></joint>\n"
      "</robot>";
  mbt_urdf_result r;
  load_ok(xml, 0, &r);
  mbt_tree* t = r.tree;
  assert_int_equal(mbt_tree_num_positions(t), 3);
  assert_int_equal(mbt_tree_num_velocities(t), 3);
  assert_int_equal(r.num_joints, mbt_tree_num_joints(t));

  const int rev = mbt_tree_joint_by_name(t, "rev");
  assert_true(rev >= 0);
  assert_int_equal(mbt_joint_type_of(t, rev), MBT_JOINT_REVOLUTE);
  expect_near_vec3(mbt_joint_axis(t, rev), 0, 0, 1, 0);
  assert_true(mbt_joint_position_lower_limits(t, rev)[0] == -1);
  assert_true(mbt_joint_position_upper_limits(t, rev)[0] == 2);
  assert_true(mbt_joint_velocity_lower_limits(t, rev)[0] == -4);
  assert_true(mbt_joint_velocity_upper_limits(t, rev)[0] == 4);
  assert_true(mbt_joint_default_damping_vector(t, rev)[0] == 0.7);
  assert_true(r.joint_friction[rev] == 0.2);
  assert_true(r.joint_effort[rev] == 30);
  assert_int_equal(mbt_joint_parent_body(t, rev), mbt_tree_body_by_name(t, "base"));
  assert_int_equal(mbt_joint_child_body(t, rev), mbt_tree_body_by_name(t, "l1"));
  /* X_PF from <origin>: p = (1, 2, 3), R = Rx(0.5); M is the child link frame. */
  mbt_transform X;
  assert_int_equal(mbt_tree_frame_pose_in_body(t, mbt_joint_frame_on_parent(t, rev), &X), MBT_OK);
  expect_near_vec3(X.p, 1, 2, 3, 0);
  assert_true(fabs(X.R.m[1][1] - cos(0.5)) < 1e-15 && fabs(X.R.m[2][1] - sin(0.5)) < 1e-15 &&
              fabs(X.R.m[1][2] + sin(0.5)) < 1e-15 && X.R.m[0][0] == 1);
  assert_int_equal(mbt_tree_frame_pose_in_body(t, mbt_joint_frame_on_child(t, rev), &X), MBT_OK);
  expect_near_vec3(X.p, 0, 0, 0, 0);
  assert_true(X.R.m[0][0] == 1 && X.R.m[1][1] == 1 && X.R.m[2][2] == 1 && X.R.m[0][1] == 0);

  /* Continuous: a revolute joint without position limits; velocity limits kept. */
  const int cont = mbt_tree_joint_by_name(t, "cont");
  assert_int_equal(mbt_joint_type_of(t, cont), MBT_JOINT_REVOLUTE);
  expect_near_vec3(mbt_joint_axis(t, cont), 0, 0.6, 0.8, 1e-15);
  assert_true(mbt_joint_position_lower_limits(t, cont)[0] == -INFINITY);
  assert_true(mbt_joint_position_upper_limits(t, cont)[0] == INFINITY);
  assert_true(mbt_joint_velocity_upper_limits(t, cont)[0] == 6);
  assert_true(r.joint_friction[cont] == 0);
  assert_true(mbt_joint_default_damping_vector(t, cont)[0] == 0);

  /* Prismatic: default axis x, limits, damping. */
  const int pri = mbt_tree_joint_by_name(t, "pri");
  assert_int_equal(mbt_joint_type_of(t, pri), MBT_JOINT_PRISMATIC);
  expect_near_vec3(mbt_joint_axis(t, pri), 1, 0, 0, 0);
  assert_true(mbt_joint_position_lower_limits(t, pri)[0] == -0.1);
  assert_true(mbt_joint_position_upper_limits(t, pri)[0] == 0.2);
  assert_true(mbt_joint_velocity_lower_limits(t, pri)[0] == -0.5);
  assert_true(mbt_joint_default_damping_vector(t, pri)[0] == 3);
  assert_true(r.joint_effort[pri] == 7);

  /* The weld added for the root: no URDF effort or friction. */
  const int w = mbt_tree_joint_by_name(t, "world_weld");
  assert_true(w >= 0);
  assert_true(r.joint_effort[w] == INFINITY && r.joint_friction[w] == 0);
  mbt_urdf_result_free(&r);
}

/* Children are ordered as their <joint> elements appear, depth first, whatever the order
 * of the <link> elements: q = [ja, ja1, jb]. */
static void test_dof_order(void** state) {
  (void)state;
  const char* xml = "<robot name=\"r\">\n" LINK("b") LINK("a1") LINK("root") LINK("a")
      REVOLUTE("ja", "root", "a") REVOLUTE("jb", "root", "b") REVOLUTE("ja1", "a", "a1") "</robot>";
  mbt_urdf_result r;
  load_ok(xml, 0, &r);
  const char* expected[3] = {"ja", "ja1", "jb"};
  for (int k = 0; k < 3; ++k) {
    const int j = mbt_tree_joint_by_name(r.tree, expected[k]);
    assert_true(j >= 0);
    assert_int_equal(mbt_joint_position_start(r.tree, j), k);
    assert_int_equal(mbt_joint_velocity_start(r.tree, j), k);
  }
  mbt_urdf_result_free(&r);
}

static void test_floating_root(void** state) {
  (void)state;
  const char* xml = "<robot name=\"r\">\n" LINK("base") LINK("leg") REVOLUTE("hip", "base", "leg") "</robot>";
  mbt_urdf_result r;
  load_ok(xml, MBT_URDF_FLOATING, &r);
  assert_int_equal(mbt_tree_num_positions(r.tree), 8);
  assert_int_equal(mbt_tree_num_velocities(r.tree), 7);
  const int j = mbt_tree_joint_by_name(r.tree, "root_joint");
  assert_true(j >= 0);
  assert_int_equal(mbt_joint_type_of(r.tree, j), MBT_JOINT_QUATERNION_FLOATING);
  assert_int_equal(mbt_joint_parent_body(r.tree, j), 0);
  assert_int_equal(mbt_joint_child_body(r.tree, j), mbt_tree_body_by_name(r.tree, "base"));
  assert_int_equal(mbt_joint_position_start(r.tree, j), 0);
  assert_int_equal(mbt_tree_joint_by_name(r.tree, "world_weld"), MBT_ERR_NOT_FOUND);
  mbt_urdf_result_free(&r);
}

/* A joint may name "world" as its parent without declaring the link; URDF floating and
 * planar joints. The planar joint's plane is normal to its axis: R_PF·ẑ = â. */
static void test_world_floating_and_planar(void** state) {
  (void)state;
  const char* xml = "<robot name=\"r\">\n" LINK("a") LINK("b") LINK("c")
      "<joint name=\"free\" type=\"floating\"><parent link=\"world\"/><child link=\"a\"/></joint>\n"
      "<joint name=\"plane\" type=\"planar\"><origin xyz=\"0 0 1\"/><parent link=\"a\"/><child link=\"b\"/>"
      "<axis xyz=\"1 0 0\"/></joint>\n"
      "<joint name=\"plane_z\" type=\"planar\"><parent link=\"a\"/><child link=\"c\"/><axis xyz=\"0 0 1\"/></joint>\n"
      "</robot>";
  mbt_urdf_result r;
  load_ok(xml, 0, &r);
  mbt_tree* t = r.tree;
  assert_int_equal(mbt_tree_num_bodies(t), 4);
  assert_int_equal(mbt_tree_num_positions(t), 7 + 3 + 3);
  assert_int_equal(mbt_tree_num_velocities(t), 6 + 3 + 3);
  const int free_j = mbt_tree_joint_by_name(t, "free");
  assert_int_equal(mbt_joint_type_of(t, free_j), MBT_JOINT_QUATERNION_FLOATING);
  assert_int_equal(mbt_joint_parent_body(t, free_j), 0);
  const int pl = mbt_tree_joint_by_name(t, "plane");
  assert_int_equal(mbt_joint_type_of(t, pl), MBT_JOINT_PLANAR);
  mbt_transform X_PF, X_BM;
  assert_int_equal(mbt_tree_frame_pose_in_body(t, mbt_joint_frame_on_parent(t, pl), &X_PF), MBT_OK);
  assert_int_equal(mbt_tree_frame_pose_in_body(t, mbt_joint_frame_on_child(t, pl), &X_BM), MBT_OK);
  expect_near_vec3(X_PF.p, 0, 0, 1, 0);
  expect_near_vec3(mbt_mat3_mul_vec(&X_PF.R, mbt_vec3_make(0, 0, 1)), 1, 0, 0, 1e-15);
  expect_near_vec3(mbt_mat3_mul_vec(&X_BM.R, mbt_vec3_make(0, 0, 1)), 1, 0, 0, 1e-15);
  expect_near_vec3(X_BM.p, 0, 0, 0, 0);
  /* At q = 0 the child link frame is the joint frame: X_PB = X_PF·X_BM⁻¹ = origin. */
  const mbt_transform X_MB = mbt_transform_inverse(&X_BM);
  const mbt_transform X_PB = mbt_transform_compose(&X_PF, &X_MB);
  const mbt_mat3 I = mbt_mat3_identity();
  assert_true(mbt_mat3_is_near(&X_PB.R, &I, 1e-15));
  const int pz = mbt_tree_joint_by_name(t, "plane_z");
  assert_int_equal(mbt_tree_frame_pose_in_body(t, mbt_joint_frame_on_parent(t, pz), &X_PF), MBT_OK);
  assert_true(mbt_mat3_is_near(&X_PF.R, &I, 0));
  mbt_urdf_result_free(&r);
}

static void test_warnings(void** state) {
  (void)state;
  const char* xml =
      "<robot name=\"r\">\n"
      "<material name=\"blue\"><color rgba=\"0 0 1 1\"/></material>\n"
      "<link name=\"a\">" INERTIAL "\n<visual><geometry><box size=\"1 1 1\"/></geometry></visual>\n"
      "<collision><geometry><box size=\"1 1 1\"/></geometry></collision>\n<sensor/></link>\n"
      LINK("b")
      "<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>\n<mimic joint=\"x\"/>"
      "<safety_controller k_velocity=\"1\"/></joint>\n"
      "<transmission name=\"t\"><type>x</type></transmission>\n<gazebo reference=\"a\"/>\n<sdf/>\n"
      "</robot>";
  mbt_urdf_result r;
  load_ok(xml, 0, &r);
  /* <material>, <visual> and <collision> are kept (test_geometry.c), not warned about. */
  assert_int_equal(r.num_warnings, 6);
  assert_int_equal(count_warnings(&r, "material"), 0);
  assert_int_equal(count_warnings(&r, "<visual>"), 0);
  assert_int_equal(count_warnings(&r, "<collision>"), 0);
  assert_int_equal(count_warnings(&r, SRC ":6: <link 'a'>: unknown element <sensor>"), 1);
  assert_int_equal(count_warnings(&r, SRC ":9: <joint 'j'>: <mimic>"), 1);
  assert_int_equal(count_warnings(&r, SRC ":9: <joint 'j'>: <safety_controller>"), 1);
  assert_int_equal(count_warnings(&r, SRC ":10: <transmission 't'>"), 1);
  assert_int_equal(count_warnings(&r, SRC ":11: <gazebo>"), 1);
  assert_int_equal(count_warnings(&r, SRC ":12: <robot 'r'>: unknown element <sdf>"), 1);
  mbt_urdf_result_free(&r);
}

/* ---- the shipped models -------------------------------------------------------------------- */
static void test_shipped_models(void** state) {
  (void)state;
  const struct {
    const char* label;
    int flags, nq, nv, bodies;
  } cases[] = {{"double_pendulum", 0, 2, 2, 4},   {"double_pendulum_continuous", 0, 2, 2, 4},
               {"ur5", 0, 6, 6, 11},              {"panda", 0, 9, 9, 14},
               {"solo12", MBT_URDF_FLOATING, 19, 18, 18}, {"solo12", 0, 12, 12, 18}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    mbt_urdf_result r;
    tu_load_urdf(cases[i].label, cases[i].flags, &r);
    if (mbt_tree_num_positions(r.tree) != cases[i].nq || mbt_tree_num_bodies(r.tree) != cases[i].bodies)
      print_error("%s: nq %d nv %d bodies %d\n", cases[i].label, mbt_tree_num_positions(r.tree),
                  mbt_tree_num_velocities(r.tree), mbt_tree_num_bodies(r.tree));
    assert_int_equal(mbt_tree_num_positions(r.tree), cases[i].nq);
    assert_int_equal(mbt_tree_num_velocities(r.tree), cases[i].nv);
    /* Every link is a body; ur5's "world" link is the world body itself. */
    assert_int_equal(mbt_tree_num_bodies(r.tree), cases[i].bodies);
    mbt_urdf_result_free(&r);
  }
}

static void test_shipped_model_details(void** state) {
  (void)state;
  mbt_urdf_result r;
  /* double_pendulum: 3 links, each with one <visual> and one <collision>, kept as geometry
   * (details in test_geometry.c) with no warning. */
  tu_load_urdf("double_pendulum", 0, &r);
  assert_int_equal(count_warnings(&r, "<visual>") + count_warnings(&r, "<collision>"), 0);
  assert_int_equal(mbt_tree_num_geometries(r.tree, MBT_ROLE_VISUAL), 3);
  assert_int_equal(mbt_tree_num_geometries(r.tree, MBT_ROLE_COLLISION), 3);
  assert_true(mbt_joint_default_damping_vector(r.tree, mbt_tree_joint_by_name(r.tree, "joint1"))[0] == 0.05);
  assert_string_equal(r.robot_name, "2dof_planar");
  mbt_urdf_result_free(&r);
  /* ur5: "world" is the world body; its world_joint welds base_link to it. */
  tu_load_urdf("ur5", 0, &r);
  const int wj = mbt_tree_joint_by_name(r.tree, "world_joint");
  assert_int_equal(mbt_joint_type_of(r.tree, wj), MBT_JOINT_WELD);
  assert_int_equal(mbt_joint_parent_body(r.tree, wj), 0);
  assert_int_equal(mbt_tree_joint_by_name(r.tree, "world_weld"), MBT_ERR_NOT_FOUND);
  assert_int_equal(count_warnings(&r, "<transmission"), 6);
  assert_int_equal(count_warnings(&r, "<gazebo"), 8);
  mbt_urdf_result_free(&r);
  /* ur5 with the floating option: an error, there is no free root. */
  assert_int_equal(mbt_urdf_load_file(MODELS "ur5.urdf", MBT_URDF_FLOATING, &r), MBT_ERR_INVALID_ARGUMENT);
  assert_null(r.tree);
  mbt_urdf_result_free(&r);
  /* panda: one mimic joint, reported. */
  tu_load_urdf("panda", 0, &r);
  assert_int_equal(count_warnings(&r, "<joint 'panda_finger_joint2'>: <mimic>"), 1);
  mbt_urdf_result_free(&r);
}

static void expect_same_tree(const mbt_tree* a, const mbt_tree* b) {
  assert_int_equal(mbt_tree_num_bodies(a), mbt_tree_num_bodies(b));
  assert_int_equal(mbt_tree_num_joints(a), mbt_tree_num_joints(b));
  assert_int_equal(mbt_tree_num_frames(a), mbt_tree_num_frames(b));
  assert_int_equal(mbt_tree_num_positions(a), mbt_tree_num_positions(b));
  assert_int_equal(mbt_tree_num_velocities(a), mbt_tree_num_velocities(b));
  for (int i = 0; i < mbt_tree_num_bodies(a); ++i) {
    assert_string_equal(mbt_tree_body_name(a, i), mbt_tree_body_name(b, i));
    assert_memory_equal(mbt_tree_body_spatial_inertia(a, i), mbt_tree_body_spatial_inertia(b, i),
                        sizeof(mbt_spatial_inertia));
    assert_int_equal(mbt_tree_body_node(a, i), mbt_tree_body_node(b, i));
  }
  for (int j = 0; j < mbt_tree_num_joints(a); ++j) {
    assert_string_equal(mbt_joint_name(a, j), mbt_joint_name(b, j));
    assert_int_equal(mbt_joint_type_of(a, j), mbt_joint_type_of(b, j));
    assert_int_equal(mbt_joint_parent_body(a, j), mbt_joint_parent_body(b, j));
    assert_int_equal(mbt_joint_child_body(a, j), mbt_joint_child_body(b, j));
    assert_int_equal(mbt_joint_position_start(a, j), mbt_joint_position_start(b, j));
    const int nq = mbt_joint_num_positions(a, j), nv = mbt_joint_num_velocities(a, j);
    assert_memory_equal(mbt_joint_position_lower_limits(a, j), mbt_joint_position_lower_limits(b, j),
                        (size_t)nq * sizeof(mbt_real));
    assert_memory_equal(mbt_joint_position_upper_limits(a, j), mbt_joint_position_upper_limits(b, j),
                        (size_t)nq * sizeof(mbt_real));
    assert_memory_equal(mbt_joint_velocity_upper_limits(a, j), mbt_joint_velocity_upper_limits(b, j),
                        (size_t)nv * sizeof(mbt_real));
    assert_memory_equal(mbt_joint_default_damping_vector(a, j), mbt_joint_default_damping_vector(b, j),
                        (size_t)nv * sizeof(mbt_real));
  }
  for (int f = 0; f < mbt_tree_num_frames(a); ++f) {
    mbt_transform Xa, Xb;
    assert_int_equal(mbt_tree_frame_pose_in_body(a, f, &Xa), MBT_OK);
    assert_int_equal(mbt_tree_frame_pose_in_body(b, f, &Xb), MBT_OK);
    assert_memory_equal(&Xa, &Xb, sizeof Xa);
  }
}

static void test_file_equals_string(void** state) {
  (void)state;
  for (int i = 0; i < TU_NUM_MODELS; ++i) {
    char path[512];
    tu_model_path(path, sizeof path, tu_models[i]);
    const int flags = tu_model_flags(tu_models[i]);
    mbt_urdf_result rf, rs;
    tu_load_urdf(tu_models[i], flags, &rf);
    size_t n = 0;
    char* text = tu_read_file(path, &n);
    assert_int_equal(mbt_urdf_load_string(text, n, path, flags, &rs), MBT_OK);
    free(text);
    expect_same_tree(rf.tree, rs.tree);
    assert_int_equal(rf.num_warnings, rs.num_warnings);
    for (int k = 0; k < rf.num_warnings; ++k) assert_string_equal(rf.warnings[k], rs.warnings[k]);
    assert_int_equal(rf.num_joints, rs.num_joints);
    assert_memory_equal(rf.joint_friction, rs.joint_friction, (size_t)rf.num_joints * sizeof(mbt_real));
    assert_memory_equal(rf.joint_effort, rs.joint_effort, (size_t)rf.num_joints * sizeof(mbt_real));
    assert_string_equal(rf.robot_name, rs.robot_name);
    mbt_urdf_result_free(&rf);
    mbt_urdf_result_free(&rs);
  }
}

/* Taking the tree out of the result keeps it alive after the result is freed. */
static void test_take_tree(void** state) {
  (void)state;
  mbt_urdf_result r;
  tu_load_urdf("double_pendulum", 0, &r);
  mbt_tree* t = r.tree;
  r.tree = NULL;
  mbt_urdf_result_free(&r);
  assert_int_equal(mbt_tree_num_positions(t), 2);
  mbt_tree_destroy(t);
}

/* <limit lower="0" upper="0" velocity="0"> (urdfdom's defaults) reads as no limit, with a
 * warning; a real range is kept. */
static void test_zero_limits_mean_unlimited(void** state) {
  (void)state;
  const char* xml =
      "<robot name=\"r\">" LINK("a") LINK("b") LINK("c")
      "<joint name=\"j0\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
      "<limit lower=\"0\" upper=\"0\" effort=\"0\" velocity=\"0\"/></joint>\n"
      "<joint name=\"j1\" type=\"revolute\"><parent link=\"b\"/><child link=\"c\"/>"
      "<limit lower=\"-1\" upper=\"2\" effort=\"0\" velocity=\"3\"/></joint>\n"
      "</robot>";
  mbt_urdf_result r;
  assert_int_equal(load(xml, 0, &r), MBT_OK);
  int j0 = mbt_tree_joint_by_name(r.tree, "j0"), j1 = mbt_tree_joint_by_name(r.tree, "j1");
  assert_true(j0 >= 0 && j1 >= 0);
  assert_true(isinf(mbt_joint_position_lower_limits(r.tree, j0)[0]) && mbt_joint_position_lower_limits(r.tree, j0)[0] < 0);
  assert_true(isinf(mbt_joint_position_upper_limits(r.tree, j0)[0]) && mbt_joint_position_upper_limits(r.tree, j0)[0] > 0);
  assert_true(isinf(mbt_joint_velocity_upper_limits(r.tree, j0)[0]));
  assert_true(mbt_joint_position_lower_limits(r.tree, j1)[0] == -1.0);
  assert_true(mbt_joint_position_upper_limits(r.tree, j1)[0] == 2.0);
  assert_true(mbt_joint_velocity_upper_limits(r.tree, j1)[0] == 3.0);
  int found = 0;
  for (int i = 0; i < r.num_warnings; ++i)
    if (strstr(r.warnings[i], "<joint 'j0'>: <limit> lower = upper = 0 read as no position limit")) ++found;
  assert_int_equal(found, 1);
  mbt_urdf_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_zero_limits_mean_unlimited),
      cmocka_unit_test(test_empty_file),
      cmocka_unit_test(test_malformed_xml),
      cmocka_unit_test(test_root_not_robot),
      cmocka_unit_test(test_malformed_xml_after_bad_link),
      cmocka_unit_test(test_entities),
      cmocka_unit_test(test_file_read_in_pieces),
      cmocka_unit_test(test_material_declared_later),
      cmocka_unit_test(test_missing_link_name),
      cmocka_unit_test(test_missing_joint_name),
      cmocka_unit_test(test_missing_joint_type),
      cmocka_unit_test(test_missing_parent),
      cmocka_unit_test(test_missing_child),
      cmocka_unit_test(test_missing_parent_link_attribute),
      cmocka_unit_test(test_missing_mass_value),
      cmocka_unit_test(test_missing_mass_element),
      cmocka_unit_test(test_missing_inertia_attribute),
      cmocka_unit_test(test_missing_inertia_element),
      cmocka_unit_test(test_unparsable_number),
      cmocka_unit_test(test_nan_number),
      cmocka_unit_test(test_inf_number),
      cmocka_unit_test(test_wrong_count_xyz),
      cmocka_unit_test(test_wrong_count_rpy),
      cmocka_unit_test(test_negative_mass),
      cmocka_unit_test(test_unknown_joint_type),
      cmocka_unit_test(test_unknown_parent_link),
      cmocka_unit_test(test_unknown_child_link),
      cmocka_unit_test(test_two_parents),
      cmocka_unit_test(test_cycle),
      cmocka_unit_test(test_several_roots),
      cmocka_unit_test(test_nonphysical_inertia),
      cmocka_unit_test(test_zero_axis),
      cmocka_unit_test(test_lower_above_upper),
      cmocka_unit_test(test_duplicate_link),
      cmocka_unit_test(test_duplicate_joint),
      cmocka_unit_test(test_duplicate_child_element),
      cmocka_unit_test(test_negative_damping),
      cmocka_unit_test(test_floating_with_world_link),
      cmocka_unit_test(test_world_as_child),
      cmocka_unit_test(test_reserved_joint_name),
      cmocka_unit_test(test_no_link),
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_inertia_about_link_origin),
      cmocka_unit_test(test_joint_semantics),
      cmocka_unit_test(test_dof_order),
      cmocka_unit_test(test_floating_root),
      cmocka_unit_test(test_world_floating_and_planar),
      cmocka_unit_test(test_warnings),
      cmocka_unit_test(test_shipped_models),
      cmocka_unit_test(test_shipped_model_details),
      cmocka_unit_test(test_file_equals_string),
      cmocka_unit_test(test_take_tree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
