/* mbt/geometry.h: visual and collision geometry attached to bodies (seed: SceneGraph's
 * RegisterVisualGeometry / RegisterCollisionGeometry, shapes Sphere, Box, Cylinder, Capsule,
 * Mesh, HalfSpace).
 *
 * A geometry G is fixed to a body B at the pose X_BG and has a role: visual (drawn, with a
 * colour) or collision (used by contact). Geometry does not change the dynamics. Each role
 * has its own index space: visual geometries are numbered 0 .. mbt_tree_num_geometries(tree,
 * MBT_ROLE_VISUAL) − 1 in the order they were added, and so are collision geometries.
 *
 * Shape parameters are a plain struct of numbers (mbt_shape, no pointers), so they can be
 * copied, stored in arrays and compared; a mesh's file names are kept beside it in the tree.
 * Shape frames follow SDFormat/Drake: a box is centred on Go with full side lengths `size`
 * along Gx, Gy, Gz; a cylinder and a capsule are centred on Go with their axis along Gz
 * (`length` is the cylinder's length, for a capsule the length of its cylindrical part, so
 * its whole length is length + 2·radius); a half space is z <= 0 in G (outward normal +Gz);
 * a mesh's vertices are scaled per axis by `scale`, then placed by X_BG.
 *
 * Geometry is added before mbt_tree_finalize (afterwards the tree is read-only). A failed
 * call changes nothing and mbt_tree_last_error() names the body, the geometry and the
 * problem. Welded bodies keep their own geometry (it is not merged into the body they are
 * welded to). */
#ifndef MBT_GEOMETRY_H
#define MBT_GEOMETRY_H

#include <stdbool.h>
#include "mbt/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  MBT_SHAPE_SPHERE = 0,  /* radius */
  MBT_SHAPE_BOX,         /* size: full side lengths along Gx, Gy, Gz */
  MBT_SHAPE_CYLINDER,    /* radius, length along Gz */
  MBT_SHAPE_CAPSULE,     /* radius, length of the cylindrical part along Gz */
  MBT_SHAPE_MESH,        /* scale; file names in the geometry */
  MBT_SHAPE_HALF_SPACE,  /* no parameter: z <= 0 in G */
  MBT_SHAPE_NUM_TYPES
} mbt_shape_type;

typedef struct {
  mbt_shape_type type;
  mbt_real radius;       /* sphere, cylinder, capsule; 0 otherwise */
  mbt_real length;       /* cylinder, capsule; 0 otherwise */
  mbt_vec3 size;         /* box; zero otherwise */
  mbt_vec3 scale;        /* mesh; (1, 1, 1) otherwise */
} mbt_shape;

typedef enum { MBT_ROLE_VISUAL = 0, MBT_ROLE_COLLISION = 1, MBT_ROLE_NUM } mbt_geometry_role;

/* Shape constructors (no check: the add functions check). */
mbt_shape mbt_shape_sphere(mbt_real radius);
mbt_shape mbt_shape_box(mbt_real size_x, mbt_real size_y, mbt_real size_z);
mbt_shape mbt_shape_cylinder(mbt_real radius, mbt_real length);
mbt_shape mbt_shape_capsule(mbt_real radius, mbt_real length);
mbt_shape mbt_shape_mesh(mbt_real scale_x, mbt_real scale_y, mbt_real scale_z);
mbt_shape mbt_shape_half_space(void);
const char* mbt_shape_type_name(mbt_shape_type type);   /* "sphere", "box", ...; "unknown" */
const char* mbt_geometry_role_name(mbt_geometry_role role); /* "visual", "collision" */

/* What to attach: the shape, its pose and, for meshes and visuals, the rest. */
typedef struct {
  const char* name;        /* unique per body and role; NULL or "": "<body>_<role>_<k>" */
  mbt_shape shape;
  mbt_transform X_BG;      /* pose of the geometry frame G in the body frame B */
  const char* mesh_file;   /* mesh: the file name as written (required, non-empty) */
  const char* mesh_path;   /* mesh: the file it resolves to; NULL or "" if unresolved */
  bool has_rgba;           /* visual: false leaves the default colour (0.9, 0.9, 0.9, 1) */
  mbt_real rgba[4];        /* visual: diffuse colour, each in [0, 1] */
  const char* material;    /* visual: material name; NULL or "" for none */
} mbt_geometry_desc;

/* A description with a sphere of radius 0 at X_BG = I and nothing else set. */
mbt_geometry_desc mbt_geometry_desc_default(void);

/* Attaches a geometry to `body` in `role`; returns its index in that role (>= 0) or a
 * negative status: MBT_ERR_NOT_FOUND (no such body), MBT_ERR_INVALID_ARGUMENT (a bad role,
 * shape type, non-finite or non-positive dimension or scale, non-rigid X_BG, rgba outside
 * [0, 1], a mesh without file name, a collision geometry with a colour or material),
 * MBT_ERR_DUPLICATE (the name is taken on this body in this role), MBT_ERR_FINALIZED. */
int mbt_tree_add_geometry(mbt_tree* tree, int body, mbt_geometry_role role, const mbt_geometry_desc* desc);

/* A geometry as stored: strings owned by the tree, valid until it is destroyed. */
typedef struct {
  const char* name;
  int body;
  mbt_geometry_role role;
  mbt_shape shape;
  mbt_transform X_BG;
  const char* mesh_file;   /* "" unless a mesh */
  const char* mesh_path;   /* "" unless a resolved mesh */
  bool has_rgba;
  mbt_real rgba[4];        /* the default (0.9, 0.9, 0.9, 1) if !has_rgba */
  const char* material;    /* "" if none */
} mbt_geometry;

int mbt_tree_num_geometries(const mbt_tree* tree, mbt_geometry_role role);
/* The geometry `index` of `role`; NULL if unknown. */
const mbt_geometry* mbt_tree_geometry(const mbt_tree* tree, mbt_geometry_role role, int index);
/* The geometries of one body in one role, in the order they were added: the count, and the
 * k-th one's index in the role (MBT_ERR_NOT_FOUND if out of range). */
int mbt_tree_body_num_geometries(const mbt_tree* tree, int body, mbt_geometry_role role);
int mbt_tree_body_geometry(const mbt_tree* tree, int body, mbt_geometry_role role, int k);
/* The index of the geometry with this name on this body in this role, or MBT_ERR_NOT_FOUND. */
int mbt_tree_geometry_by_name(const mbt_tree* tree, int body, mbt_geometry_role role, const char* name);

#ifdef __cplusplus
}
#endif
#endif /* MBT_GEOMETRY_H */
