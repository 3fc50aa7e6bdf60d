/* mbt/contact.h: contact with friction between bodies and with the ground.
 *
 * A contact model holds collision shapes fixed to bodies (pose X_BG in the body frame B),
 * each with a contact material, and the pairs of bodies that never touch. Shapes fixed to
 * the world (body 0) are static obstacles; the ground is a half space on the world. The model
 * is built before simulating and read-only while stepping; one model can serve several
 * simulators of its tree.
 *
 * Detection (src/contact/): a sort-and-sweep broad phase on world bounding boxes, then exact
 * contact points for sphere, capsule and box against a half space and against each other, a
 * cylinder against a half space, and a mesh (its vertex set) against a half space, sphere,
 * capsule or box. Other pairs (cylinder against anything but a half space, mesh against mesh
 * or cylinder) produce no contact.
 *
 * Contact dynamics (docs/contact.md): each contact point is a compliant normal spring k with
 * dissipation time scale τ_d, f_n = max(0, k·(φ − τ_d·v_n)), and Coulomb friction, stepped by
 * the simulator's "time_stepping" integrator: a semi-implicit Euler step in which the contact
 * impulses are solved implicitly (the normal force at the end of the step), by default as the
 * minimum of a convex function (SAP: friction μ_d bounded by the normal impulse at the start
 * of the step, regularized stiction), or by projected Gauss–Seidel (exact stiction with static
 * and dynamic coefficients; mbt_simulator_set_contact_solver_method). Materials of two touching shapes combine as
 * in Drake: μ = 2·μ_A·μ_B/(μ_A + μ_B), k = k_A·k_B/(k_A + k_B) (springs in series),
 * τ_d = (k_B·τ_A + k_A·τ_B)/(k_A + k_B). */
#ifndef MBT_CONTACT_H
#define MBT_CONTACT_H

#include "mbt/dynamics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  mbt_real static_friction;   /* μ_s >= 0 */
  mbt_real dynamic_friction;  /* 0 <= μ_d <= μ_s */
  mbt_real stiffness;         /* k > 0, N/m per contact point */
  mbt_real dissipation_time;  /* τ_d >= 0, s */
} mbt_contact_material;

/* μ_s = μ_d = 1, k = 1e5 N/m, τ_d = 0.01 s. */
mbt_contact_material mbt_contact_material_default(void);

typedef struct mbt_contact_model mbt_contact_model;

/* An empty model of a finalized tree (NULL if the tree is not finalized or out of memory;
 * the message is in mbt_tree_last_error). */
mbt_contact_model* mbt_contact_model_create(const mbt_tree* tree);
void mbt_contact_model_destroy(mbt_contact_model* model);
const char* mbt_contact_model_last_error(const mbt_contact_model* model);
const mbt_tree* mbt_contact_model_tree(const mbt_contact_model* model);

/* Shapes on `body` at X_BG with `material` (NULL: the default). Each returns the shape's
 * index in the model (>= 0) or a negative status: MBT_ERR_NOT_FOUND (no such body),
 * MBT_ERR_INVALID_ARGUMENT (a dimension not finite and > 0, X_BG not a rigid transform, a
 * material out of range). Shapes follow SDFormat: a sphere about Go; a box of full sides
 * (sx, sy, sz) centred on Go; a capsule and a cylinder about Gz, centred on Go, `length` the
 * cylindrical part (a capsule's whole length is length + 2·radius); a half space z <= 0 of G.
 * A vertex set (mesh) keeps a copy of its n points p_GVi (3·n values). */
int mbt_contact_model_add_sphere(mbt_contact_model* model, int body, const mbt_transform* X_BG, mbt_real radius,
                                 const mbt_contact_material* material);
int mbt_contact_model_add_box(mbt_contact_model* model, int body, const mbt_transform* X_BG, mbt_real sx,
                              mbt_real sy, mbt_real sz, const mbt_contact_material* material);
int mbt_contact_model_add_capsule(mbt_contact_model* model, int body, const mbt_transform* X_BG, mbt_real radius,
                                  mbt_real length, const mbt_contact_material* material);
int mbt_contact_model_add_cylinder(mbt_contact_model* model, int body, const mbt_transform* X_BG, mbt_real radius,
                                   mbt_real length, const mbt_contact_material* material);
int mbt_contact_model_add_half_space(mbt_contact_model* model, int body, const mbt_transform* X_BG,
                                     const mbt_contact_material* material);
int mbt_contact_model_add_vertices(mbt_contact_model* model, int body, const mbt_transform* X_BG,
                                   const mbt_real* p_GV, int num_points, const mbt_contact_material* material);
/* The ground: the half space n·p_WQ <= height of the world (n normalized; (0, 0, 1) and 0 for
 * the plane z = 0). */
int mbt_contact_model_add_ground(mbt_contact_model* model, mbt_vec3 normal, mbt_real height,
                                 const mbt_contact_material* material);
/* The tree's collision geometry (mbt/geometry.h, e.g. a URDF's <collision> elements) as
 * shapes, all with `material` (NULL: the default): spheres, boxes, capsules, cylinders and half
 * spaces as they are; a mesh as the vertex set of its convex hull (the file read with assimp,
 * scaled, its hull computed by Qhull; a build without them refuses meshes). Returns the number
 * of shapes added, or a negative status with the geometry, body, file and problem in
 * mbt_contact_model_last_error, the model unchanged: MBT_ERR_IO (a mesh that resolves to no
 * file, cannot be read or has no vertex), MBT_ERR_INVALID_ARGUMENT (a flat mesh, a material
 * out of range, no mesh support), MBT_ERR_LIMIT (a mesh of more than 10⁷ vertices). */
int mbt_contact_model_add_collision_geometry(mbt_contact_model* model, const mbt_contact_material* material);
/* The lowest world height z of the shapes on bodies that move (not fixed to the world), at
 * the context's configuration: exact for every shape (a vertex set's lowest vertex).
 * MBT_ERR_NOT_FOUND if no moving body has a shape. */
int mbt_contact_model_calc_lowest_point(const mbt_contact_model* model, mbt_context* ctx, mbt_real* z_min);
int mbt_contact_model_num_shapes(const mbt_contact_model* model);
int mbt_contact_model_shape_body(const mbt_contact_model* model, int shape);  /* -1 if unknown */

/* Filters. Never in contact: two shapes of one body, bodies welded together, a body and its
 * parent (the body its inboard joint attaches to, through welds; a floating body has none),
 * two bodies fixed to the world.
 * Pairs added here are excluded too (MBT_ERR_NOT_FOUND for an unknown body). */
int mbt_contact_model_exclude_pair(mbt_contact_model* model, int body_A, int body_B);
/* Whether shapes of these bodies may touch. */
bool mbt_contact_model_pair_enabled(const mbt_contact_model* model, int body_A, int body_B);

/* One contact point of a step: A is pushed along +nhat_BA_W. */
typedef struct {
  int body_A, body_B;
  int shape_A, shape_B;       /* indices in the contact model */
  mbt_vec3 p_WC;              /* midway between the surfaces, at the start of the step */
  mbt_vec3 nhat_BA_W;         /* unit normal from B into A */
  mbt_real depth;             /* penetration (m) at the start of the step */
  mbt_vec3 f_BA_W;            /* force on A from B at C (the step's impulse / h); −f on B */
  mbt_real fn;                /* its normal component (>= 0) */
  mbt_vec3 v_slip_W;          /* tangential velocity of A's point C relative to B's after the step */
  mbt_real vn;                /* separation speed after the step (> 0 separating) */
} mbt_contact_result;

#ifdef __cplusplus
}
#endif
#endif /* MBT_CONTACT_H */
