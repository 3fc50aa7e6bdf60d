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
 * Elements that do not affect the dynamics (visual, collision, material, transmission,
 * gazebo, mimic, calibration, safety_controller, unknown elements) are not errors: each is
 * listed as a warning "file:line: <element 'name'>: ...". Errors name the file, the line,
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
  MBT_URDF_MAX_DEPTH = 256              /* nesting of XML elements (libxml2's limit) */
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
 * world link), MBT_ERR_NOT_FOUND (a joint names an unknown link), MBT_ERR_DUPLICATE,
 * MBT_ERR_TOPOLOGY (two parents, cycle, several roots), MBT_ERR_NONPHYSICAL, MBT_ERR_LIMIT (a
 * limit above). Every error with its message: docs/errors.md. */
int mbt_urdf_load_file(const char* path, int flags, mbt_urdf_result* result);
/* Loads from a string in memory; `source_name` is used in messages (may be NULL). */
int mbt_urdf_load_string(const char* xml, size_t length, const char* source_name, int flags,
                         mbt_urdf_result* result);
/* Frees everything the result holds and zeroes it (the status is kept). Safe to call on
 * a failed or already freed result. */
void mbt_urdf_result_free(mbt_urdf_result* result);

#ifdef __cplusplus
}
#endif
#endif /* MBT_URDF_H */
