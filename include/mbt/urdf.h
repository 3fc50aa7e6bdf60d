/* mbt/urdf.h: loading a MultibodyTree from a URDF robot description.
 *
 * Links become rigid bodies (the <inertial> origin, mass and inertia give the spatial
 * inertia about the link origin; a link without <inertial> is massless); a link named
 * "world" is the world body, and a joint whose parent is "world" attaches to the world
 * even if no such link is declared. Joints: revolute, continuous (revolute without
 * position limits), prismatic, fixed (weld), floating (quaternion floating), planar (the
 * axis is the plane's normal). <origin> gives X_PF, frame M is the child link frame; <axis>
 * defaults to x and is normalized; <limit> lower/upper/velocity are kept in the tree, the
 * effort in the result; <dynamics damping> is the joint's default damping, friction is
 * recorded in the result. The root link (the only link that is no joint's child) is welded
 * to the world by a joint "world_weld", or attached by a quaternion-floating joint
 * "root_joint" with MBT_URDF_FLOATING (an error if the robot hangs from a "world" link).
 * Bodies and joints are added depth-first from the root, children in the order of their
 * <joint> elements, so q and v follow that order. The returned tree is finalized.
 *
 * <visual> and <collision> become the body's geometry (mbt/geometry.h): <origin> gives X_BG,
 * <geometry> one of <box size>, <cylinder radius length>, <sphere radius>, <capsule radius
 * length>, <mesh filename scale>; a visual's <material> gives its colour, either inline
 * (<color rgba>) or by the name of a <material> defined at the robot level. A mesh keeps its
 * file name as written and the file it resolves to: "package://NAME/REST" is looked up in the
 * package paths of the options (NAME=DIR), then as the folder NAME beside the model, then as
 * an ancestor folder of the model named NAME; "file://PATH" and absolute paths are taken as
 * they are, relative paths against the model's folder. A mesh that resolves to no readable
 * file keeps an empty resolved path and gets a warning.
 *
 * Elements that do not affect the dynamics nor the geometry (transmission, gazebo, mimic,
 * calibration, safety_controller, texture, a collision's material, unknown elements) are not
 * errors: each is listed as a warning "file:line: <element 'name'>: ...". Errors name the file, the line,
 * the element and the problem ("file:line: <joint 'elbow'>: ..."); on failure nothing
 * stays allocated. Details and the full list of checks: docs/urdf.md. */
#ifndef MBT_URDF_H
#define MBT_URDF_H

#include <stddef.h>
#include "mbt/joints.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits (docs/errors.md): beyond them a load fails with MBT_ERR_LIMIT and a message naming
 * the limit, before any large allocation. */
enum {
  MBT_URDF_MAX_FILE_SIZE = 256 << 20,   /* bytes of URDF text (256 MiB) */
  MBT_URDF_MAX_NAME_LENGTH = 255,       /* bytes in a robot, link or joint name */
  MBT_URDF_MAX_ELEMENTS = 1000000,      /* child elements of <robot> (links, joints, ...) */
  MBT_URDF_MAX_DEPTH = 256              /* nesting of XML elements (as libxml2 limits it) */
};

enum {
  MBT_URDF_FLOATING = 1 << 0,              /* root link on a floating joint "root_joint" */
  MBT_URDF_ALLOW_INVALID_INERTIA = 1 << 1  /* load non-physical inertias as written, warn */
};

/* The result of a load: the tree (NULL on failure), warnings, and the error. */
typedef struct {
  mbt_tree* tree;            /* finalized; NULL on failure; freed by mbt_urdf_result_free */
  int status;                /* MBT_OK or negative */
  char error[1024];          /* "file:line: <element 'name'>: problem" on failure */
  int num_warnings;
  char** warnings;           /* [num_warnings] "file:line: ..." */
  /* Per joint of the tree (index = joint index): URDF <dynamics friction> (0 if none) and
   * <limit effort> (+inf if none). */
  int num_joints;
  mbt_real* joint_friction;
  mbt_real* joint_effort;
  char* robot_name;          /* <robot name>, "" if absent */
} mbt_urdf_result;

/* Loads a file. `result` is filled in every case (status and error on failure, with
 * tree NULL and nothing else allocated); release it with mbt_urdf_result_free, which also
 * destroys the tree unless you took it (set result->tree = NULL to keep it). Statuses:
 * MBT_ERR_IO (cannot open or read), MBT_ERR_PARSE (empty, malformed XML, not <robot>,
 * missing element or attribute, bad number, unknown joint type), MBT_ERR_INVALID_ARGUMENT
 * (negative mass, damping or limit, zero axis, lower > upper, MBT_URDF_FLOATING with a
 * world link), MBT_ERR_NOT_FOUND (a joint names an unknown link, a visual names an undefined
 * material), MBT_ERR_DUPLICATE, MBT_ERR_TOPOLOGY (two parents, cycle, several roots),
 * MBT_ERR_NONPHYSICAL, MBT_ERR_LIMIT (a limit above). Every error with its message:
 * docs/errors.md. */
int mbt_urdf_load_file(const char* path, int flags, mbt_urdf_result* result);
/* Loads from a string in memory; `source_name` is used in messages (may be NULL). */
int mbt_urdf_load_string(const char* xml, size_t length, const char* source_name, int flags,
                         mbt_urdf_result* result);

/* Options of the loaders below. */
typedef struct {
  int flags;                          /* MBT_URDF_* */
  const char* const* package_paths;   /* [num_package_paths] "NAME=DIR": package://NAME/... -> DIR/... */
  int num_package_paths;
  const char* base_dir;               /* the model's folder, for relative mesh paths and package
                                         folders beside it; NULL: the folder of the file (or of
                                         source_name) */
} mbt_urdf_options;

/* As mbt_urdf_load_file and mbt_urdf_load_string with options (NULL: none). A package path
 * that is not NAME=DIR with both parts non-empty is MBT_ERR_INVALID_ARGUMENT. */
int mbt_urdf_load_file_with_options(const char* path, const mbt_urdf_options* options, mbt_urdf_result* result);
int mbt_urdf_load_string_with_options(const char* xml, size_t length, const char* source_name,
                                      const mbt_urdf_options* options, mbt_urdf_result* result);
/* Frees everything the result holds and zeroes it (the status is kept). Safe to call on
 * a failed or already freed result. */
void mbt_urdf_result_free(mbt_urdf_result* result);

#ifdef __cplusplus
}
#endif
#endif /* MBT_URDF_H */
