/* contact_internal.h: collision shapes at world poses, the narrow phase (shape pair →
 * contact points), the broad phase (sort and sweep on bounding boxes) and the contact
 * solver (not installed). Every function here is pure: it reads its arguments, writes its
 * outputs and allocates nothing.
 *
 * Conventions (Drake's PenetrationAsPointPair): a contact between shapes A and B has the
 * unit normal nhat_BA_W pointing from B into A (the direction A must move to separate), the
 * penetration depth > 0 and the point p_WC midway between the two surfaces' deepest points. */
#ifndef MBT_CONTACT_INTERNAL_H
#define MBT_CONTACT_INTERNAL_H

#include "mbt/math.h"

/* Shapes as the narrow phase sees them, each in its own frame G:
 *   sphere     radius, centred on Go;
 *   capsule    the points within radius of the segment z ∈ [−half_length, half_length] of Gz;
 *   box        |x| <= half_size.x, |y| <= half_size.y, |z| <= half_size.z;
 *   cylinder   radius, axis along Gz, z ∈ [−half_length, half_length];
 *   half space z <= 0 (outward normal +Gz);
 *   points     a vertex set (a mesh's vertices): each vertex is a contact candidate. */
typedef enum {
  MBT__CSHAPE_SPHERE = 0,
  MBT__CSHAPE_CAPSULE,
  MBT__CSHAPE_BOX,
  MBT__CSHAPE_CYLINDER,
  MBT__CSHAPE_HALF_SPACE,
  MBT__CSHAPE_POINTS,
  MBT__CSHAPE_NUM_TYPES
} mbt__cshape_type;

typedef struct {
  mbt__cshape_type type;
  mbt_real radius;        /* sphere, capsule, cylinder */
  mbt_real half_length;   /* capsule, cylinder */
  mbt_vec3 half_size;     /* box */
  const mbt_vec3* points; /* points: p_GoVi_G [num_points] (not owned) */
  int num_points;
  mbt_real bound_radius;  /* radius of a sphere about Go holding the shape (∞ for a half space) */
} mbt__cshape;

typedef struct {
  mbt_vec3 p_WC;          /* midway between the surfaces */
  mbt_vec3 nhat_BA_W;     /* unit, from B into A */
  mbt_real depth;         /* > −margin (negative: a gap) */
} mbt__contact_point;

/* The most contact points one shape pair produces (a vertex set gives up to this many of its
 * deepest vertices). */
#define MBT__MAX_PAIR_CONTACTS 8
/* A vertex set keeps its 4 deepest vertices in a pair: enough to support a body on a face or
 * a rounded foot, half the rows of 8 for the contact problem (a flat face with more than 4
 * coplanar hull vertices rests on the 4 deepest of them). */
#define MBT__MAX_VERTEX_CONTACTS 4

mbt__cshape mbt__cshape_sphere(mbt_real radius);
mbt__cshape mbt__cshape_capsule(mbt_real radius, mbt_real half_length);
mbt__cshape mbt__cshape_box(mbt_vec3 half_size);
mbt__cshape mbt__cshape_cylinder(mbt_real radius, mbt_real half_length);
mbt__cshape mbt__cshape_half_space(void);
mbt__cshape mbt__cshape_points(const mbt_vec3* p_GV, int num_points);

/* Whether the narrow phase handles the pair (in either order). */
bool mbt__collide_supported(mbt__cshape_type a, mbt__cshape_type b);
/* The contact points of A at X_WA and B at X_WB (at most MBT__MAX_PAIR_CONTACTS, written to
 * out): where they overlap (depth > 0) or are closer than margin >= 0 (speculative points, depth
 * in (−margin, 0]); the count, 0 if none or the pair is not supported. */
int mbt__collide(const mbt__cshape* a, const mbt_transform* X_WA, const mbt__cshape* b, const mbt_transform* X_WB,
                 mbt_real margin, mbt__contact_point* out);

/* Closest points c1 on segment [p1, q1] and c2 on [p2, q2]. */
void mbt__closest_segment_segment(mbt_vec3 p1, mbt_vec3 q1, mbt_vec3 p2, mbt_vec3 q2, mbt_vec3* c1, mbt_vec3* c2);
/* Box A against box B (narrow_phase.c dispatches here; box_box.c). */
int mbt__box_box(const mbt__cshape* a, const mbt_transform* X_WA, const mbt__cshape* b, const mbt_transform* X_WB,
                 mbt_real margin, mbt__contact_point* out);

/* ---- broad phase ------------------------------------------------------------------------ */
typedef struct {
  mbt_vec3 lo, hi;        /* world axis-aligned bounding box */
} mbt__aabb;

/* The bounding box of a shape at X_WG (a half space's is unbounded). */
mbt__aabb mbt__cshape_aabb(const mbt__cshape* s, const mbt_transform* X_WG);
/* Sort and sweep along world x [Baraff 1992, §7.3; Ericson 2005, §7.5.1]: `order` (n
 * indices) is sorted by box.lo.x in place by insertion sort (nearly sorted from the previous
 * call, so O(n) when little moves); each pair (i, j) whose boxes overlap is passed to
 * `emit`. Unbounded boxes must not be passed here. Returns the number of pairs emitted. */
typedef void (*mbt__pair_fn)(int i, int j, void* user);
int mbt__sweep_and_prune(const mbt__aabb* box, int n, int* order, mbt__pair_fn emit, void* user);

/* ---- contact solver -------------------------------------------------------------------- */
/* One discrete step's contact problem in contact frames (per contact i the rows
 * 3i = normal, 3i+1, 3i+2 = tangents):
 *   v_c⁺ = v_c* + W·γ       (W = J·M⁻¹·Jᵀ, 3nc × 3nc, symmetric positive semidefinite)
 *   normal:   γ_n = max(0, (b_n − v_n⁺)/R_n)  (implicit compliant normal, see contact_solver.c)
 *   friction: ‖γ_t‖ <= μ_s·γ_n with v_t⁺ = 0 (stick), else γ_t = −μ_d·γ_n·v̂_t (slide). */
typedef struct {
  int num_contacts;
  const mbt_real* W;       /* [3nc × 3nc] row-major */
  const mbt_real* vc_star; /* [3nc] contact velocities without contact impulses */
  const mbt_real* b_n;     /* [nc] normal velocity bias */
  const mbt_real* R_n;     /* [nc] normal compliance (>= 0) */
  const mbt_real* mu_s;    /* [nc] static friction */
  const mbt_real* mu_d;    /* [nc] dynamic friction (<= mu_s) */
  bool* sliding;           /* [nc] scratch: the contact has slid during the solve */
} mbt__contact_problem;

typedef struct {
  int max_iterations;      /* sweeps */
  mbt_real tolerance;      /* stop when a sweep changes no contact velocity by more than
                              tolerance·max(|v_c*|, |b_n|) (the change W_rr·|Δγ_r| per row) */
} mbt__contact_solver_options;

typedef struct {
  int iterations;
  mbt_real residual;       /* the last sweep's largest velocity change relative to the scale */
  bool converged;
} mbt__contact_solver_stats;

/* Solves the problem by projected (blocked nonsmooth) Gauss–Seidel, starting from γ (warm
 * start; zero it for a cold start). vc (3nc) receives v_c⁺ = v_c* + W·γ. */
mbt__contact_solver_stats mbt__solve_contact_problem(const mbt__contact_problem* p,
                                                     const mbt__contact_solver_options* opt, mbt_real* gamma,
                                                     mbt_real* vc);

/* The same step as a convex minimization in the velocities (Drake's SAP solver on the
 * lagged approximation; sap_solver.c): the implicit normal law of each contact (b_n, R_n),
 * friction bounded by μ·n0 with n0 the normal impulse at the start of the step, regularized by
 * the tangential compliance R_t. */
typedef struct {
  int nv, num_contacts;
  const mbt_real* M;       /* [nv × nv] the mass matrix (both triangles) */
  const mbt_real* J;       /* [3nc × nv] contact Jacobian, rows n, t1, t2 per contact */
  const int* nz;           /* [nc × nv] per contact, the dofs where its rows of J may be nonzero, */
  const int* nnz;          /* [nc] and their count */
  const mbt_real* v_star;  /* [nv] velocities without contact impulses */
  const mbt_real* b_n;     /* [nc] */
  const mbt_real* R_n;     /* [nc] */
  const mbt_real* R_t;     /* [nc] friction regularization (mbt__sap_friction_compliance) */
  const mbt_real* mu;      /* [nc] friction (0: a frictionless row) */
  const mbt_real* n0;      /* [nc] the normal impulse at the start of the step (>= 0) */
} mbt__sap_problem;

/* Scratch of the SAP solver, sized for nv velocities and cap contacts (allocated by the
 * caller at set-up). After a solve: vc = J·v and gamma = γ(v) at the returned v. */
typedef struct {
  mbt_real* H;             /* [nv × nv] */
  mbt_real *grad, *dv, *Mdv, *jtg; /* [nv] */
  mbt_real* GJ;            /* [3nv] */
  mbt_real *vc, *dvc, *gamma;      /* [3cap] */
  mbt_real* G;             /* [9cap] */
} mbt__sap_workspace;

/* R_t,i = σ·trace(W_ii)/3 from the Delassus operator's diagonal blocks (0 where μ_i = 0). */
void mbt__sap_friction_compliance(const mbt_real* W, int num_contacts, const mbt_real* mu, mbt_real* R_t);
/* Minimizes ℓ(v) by Newton's method from v (in/out): v⁺, with γ and v_c in the workspace.
 * iterations: Newton iterations; residual: the relative momentum residual; converged: it is
 * below opt->tolerance. */
mbt__contact_solver_stats mbt__solve_contact_sap(const mbt__sap_problem* p, const mbt__contact_solver_options* opt,
                                                 mbt__sap_workspace* w, mbt_real* v);

#endif /* MBT_CONTACT_INTERNAL_H */

/* ---- the contact model and a simulator's detection workspace ------------------------------ */
#include "mbt/contact.h"
#include "tree/context_internal.h"

typedef struct {
  mbt__cshape shape;
  int body;
  mbt_transform X_BG;
  mbt_contact_material material;
  mbt_vec3* points;          /* owned copy for vertex sets */
} mbt__cgeom;

struct mbt_contact_model {
  const mbt_tree* tree;
  mbt__cgeom* geoms;
  int num_geoms, cap_geoms;
  int* excluded;             /* pairs (a, b), a < b, moving-ancestor bodies */
  int num_excluded, cap_excluded;
  char error[MBT_ERROR_MAX];
};

/* A detected contact with its combined material. */
typedef struct {
  mbt_contact_result r;
  int pair_index;            /* k-th point of its shape pair (matches points across steps) */
  mbt_real mu_s, mu_d, k, tau_d;
} mbt__contact;

typedef struct {
  const mbt_contact_model* model;
  mbt_real margin;           /* speculative distance (m) */
  int num_geoms, capacity;
  int num_contacts;
  long dropped;              /* contacts beyond capacity (the last detection) */
  mbt__contact* contacts;    /* [capacity] */
  mbt_transform* X_WG;       /* [num_geoms] */
  mbt__aabb* box;            /* [num_geoms] */
  int* order;                /* [num_bounded] sort-and-sweep order */
  int* bounded;              /* [num_geoms] shapes with finite boxes, then */
  int num_bounded, num_unbounded;
  int* unbounded;            /* [num_geoms] half spaces */
} mbt__detection;

/* Shapes closer than this are contact candidates (speculative contacts): the implicit normal
 * law applies force as soon as the step would bring them into overlap, so a body reaching
 * 5 m/s at 1 ms steps never enters the other shape unresisted. */
#define MBT__CONTACT_MARGIN 5e-3

/* Whether the body is fixed to the world (through welds). */
bool mbt__contact_body_is_static(const mbt_tree* tree, int body);

/* ---- meshes (mesh_hull.c) ----------------------------------------------------------------- */
/* Vertices a mesh file may hold (more is MBT_ERR_LIMIT). */
#define MBT_MESH_MAX_VERTICES 10000000
/* The vertices of the convex hull of a mesh file's vertices scaled per axis: 3·n coordinates in
 * *points (malloc; the caller frees). A negative status with a message in err (MBT_ERR_IO: the
 * file cannot be read or has no vertex; MBT_ERR_INVALID_ARGUMENT: a flat mesh, or no mesh
 * support in this build). */
int mbt__mesh_hull_vertices(const char* path, mbt_vec3 scale, mbt_real** points, int* num_points, char* err,
                            size_t n_err);
bool mbt__mesh_hulls_available(void);

/* Allocates a workspace for the model's shapes (capacity: 8 per shape, in [32, 512]).
 * NULL if out of memory. */
mbt__detection* mbt__detection_create(const mbt_contact_model* model);
void mbt__detection_destroy(mbt__detection* d);
/* All contacts at the context's q (poses from the context's kinematics). */
int mbt__detect_contacts(mbt__detection* d, mbt_context* ctx);
