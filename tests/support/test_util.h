/* test_util.h: what the unit tests share. Include it instead of <cmocka.h> (it includes cmocka
 * and its prerequisites):
 *   - a seeded random number generator (xorshift64*): scalars, vectors, unit quaternions,
 *     rotations, transforms, inertias, arrays and whole states;
 *   - assertions with a tolerance (scalars, vec3, mat3, transforms) that print both values
 *     and fail at the caller's line;
 *   - builders of the standard test trees (a branched tree with every mobilizer type, one
 *     with every joint type and force element, planar links) and a tree+context fixture;
 *   - the shipped models (models/<name>.urdf) and whole-file reading;
 *   - a heap-call counter for the no-allocation tests. */
#ifndef MBT_TEST_UTIL_H
#define MBT_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbt/mbt.h"
#include "mbt/urdf.h"

#define TU_PI 3.14159265358979323846

/* ---- random numbers ------------------------------------------------------------------- */
/* One generator per test executable, seeded with 0x9E3779B97F4A7C15 at start; tu_seed(0)
 * seeds 1 (xorshift's state must not be 0). */
void tu_seed(uint64_t seed);
/* Uniform in [lo, hi): lo + (hi − lo)·u, u = (xorshift64* output >> 11)·2⁻⁵³. */
double tu_uniform(double lo, double hi);
/* Uniform in [−1, 1): tu_uniform(−1, 1). */
double tu_rand(void);
/* scale·(tu_rand(), tu_rand(), tu_rand()), drawn z, y, x. */
mbt_vec3 tu_rand_vec3(double scale);
/* A random unit vector (a tu_rand_vec3(1) of norm >= 0.1, normalized). */
mbt_vec3 tu_rand_unit(void);
/* Four tu_rand() (drawn z, y, x, w) normalized by mbt_quat_normalize, which must succeed. */
mbt_quat tu_rand_unit_quat(void);
/* The rotation of a random unit quaternion (norm >= 0.1 before normalizing), formed here
 * from the quaternion's entries rather than by the library. */
mbt_mat3 tu_rand_rotation(void);
/* R = tu_rand_rotation(), p = tu_rand_vec3(pscale). */
mbt_transform tu_rand_transform(double pscale);
/* A physically valid spatial inertia about Bo, formed here rather than by the library:
 * mass in [0.5, 1.5), principal unit moments satisfying the triangle inequality, rotated,
 * about a center of mass within 0.3 of Bo (parallel axis). */
mbt_spatial_inertia tu_rand_inertia(void);
/* A random central rotational inertia: a solid box's (sides in [0.1, 2), drawn z, y, x),
 * rotated by mbt_rotation_from_quat(tu_rand_unit_quat()), times m. */
mbt_rotational_inertia tu_rand_central_inertia(double m);
/* Mass in [0.5, 5), tu_rand_central_inertia(mass), center of mass at tu_rand_vec3(1). */
mbt_spatial_inertia tu_rand_spatial_inertia(void);
/* x[i] = scale·tu_rand() */
void tu_rand_array(mbt_real* x, int n, double scale);
/* Random q (tu_rand(); quaternions normalized) and v (tu_rand()) in the context. */
void tu_rand_state(const mbt_tree* tree, mbt_context* ctx);

/* ---- small numerics -------------------------------------------------------------------- */
double tu_max_abs(const mbt_real* x, int n);
double tu_max_abs_diff(const mbt_real* a, const mbt_real* b, int n);
/* Solves A·x = b (A n×n row-major) by Gaussian elimination with partial pivoting; A and b
 * are overwritten, x in b. 0, or −1 if a pivot is exactly zero. */
int tu_solve(double* A, double* b, int n);
/* I_Bcm_B = m·(G_Bo − (|c|²·1 − c·cᵀ)), c = p_BoBcm: M's rotational inertia about its center of
 * mass (parallel-axis theorem), formed here rather than by the library. */
mbt_mat3 tu_inertia_about_com(const mbt_spatial_inertia* M);

/* ---- assertions ------------------------------------------------------------------------ */
/* |a − b| <= tol in double precision (cmocka 1.1's assert_float_equal rounds to float); NaN
 * fails. */
#define assert_near(a, b, tol)                                                                   \
  do {                                                                                           \
    const double a_ = (a), b_ = (b), t_ = (tol);                                                 \
    if (!(fabs(a_ - b_) <= t_)) fail_msg("%s = %.17g, expected %.17g (tol %g)", #a, a_, b_, t_); \
  } while (0)
/* strstr(text, sub) != NULL */
#define assert_contains(text, sub)                                             \
  do {                                                                         \
    const char* t_ = (text);                                                   \
    const char* s_ = (sub);                                                    \
    if (!strstr(t_, s_)) fail_msg("\"%s\" does not contain \"%s\"", t_, s_); \
  } while (0)
/* |a − b| <= tol·max(1, scale); `what` names the quantity in the failure message. */
#define tu_assert_rel(a, b, scale, tol, what) tu__assert_rel((a), (b), (scale), (tol), (what), __FILE__, __LINE__)
/* |a − b| <= tol */
#define tu_assert_close(a, b, tol, what) tu__assert_rel((a), (b), 0, (tol), (what), __FILE__, __LINE__)
/* Element-wise |a − b| <= tol (a, b values for vec3; pointers for mat3 and transforms). */
#define tu_assert_vec3_near(a, b, tol) tu__assert_vec3_near((a), (b), (tol), #a, #b, __FILE__, __LINE__)
#define tu_assert_mat3_near(A, B, tol) tu__assert_mat3_near((A), (B), (tol), #A, #B, __FILE__, __LINE__)
#define tu_assert_transform_near(X, Y, tol) tu__assert_transform_near((X), (Y), (tol), #X, #Y, __FILE__, __LINE__)
void tu__assert_rel(double a, double b, double scale, double tol, const char* what, const char* file, int line);
void tu__assert_vec3_near(mbt_vec3 a, mbt_vec3 b, double tol, const char* ea, const char* eb, const char* file,
                          int line);
void tu__assert_mat3_near(const mbt_mat3* A, const mbt_mat3* B, double tol, const char* eA, const char* eB,
                          const char* file, int line);
void tu__assert_transform_near(const mbt_transform* X, const mbt_transform* Y, double tol, const char* eX,
                               const char* eY, const char* file, int line);

/* ---- test trees ------------------------------------------------------------------------ */
/* A fixed inertia for bodies whose dynamics a test does not look at: mass 2, center of mass
 * (0.1, 0, −0.3), I_Bcm = diag(0.02, 0.03, 0.04). */
mbt_spatial_inertia tu_body_inertia(void);
/* Adds body `name` (tu_rand_inertia) and a mobilizer of `type` from parent_body to it, with
 * random frames F (on the parent) and M (on the child) unless identity_frames, a random unit
 * axis and pitch 0.3·tu_rand(). The body index, or a negative status. */
int tu_add_body_with_mobilizer(mbt_tree* tree, const char* name, int parent_body, mbt_mobilizer_type type,
                               bool identity_frames);
/* Adds a serial chain to the world: bodies "<prefix>0" … "<prefix>{n−1}", each attached to the
 * previous one by tu_add_body_with_mobilizer. All revolute with random frames; with `mixed`,
 * mobilizer i is prismatic if i % 3 == 1 and has identity frames if i is even. Returns the last
 * body; fails the test if one cannot be added. */
int tu_add_chain(mbt_tree* tree, const char* prefix, int n, bool mixed);
/* A branched tree with every mobilizer type, random frames (some identity), finalized:
 *   world → b1 (quaternion floating) → b2 (revolute) → b3 (universal) → b4 (prismatic)
 *                                    → b5 (space_xyz) → b6 (screw)
 *                                    → b7 (planar) → b8 (weld) → b9 (revolute)
 *   world → b10 (revolute) → b11 (prismatic), world → b12 (no mobilizer: floating at finalize).
 * NULL (with the error on stderr) on failure. */
mbt_tree* tu_make_branched_tree(void);
/* A branched tree built with joints of every type (random frames, random damping), a
 * revolute spring on j2, two linear spring-dampers (one to the world) and gravity:
 *   world → c1 (quaternion floating) → c2 (revolute) → c3 (prismatic) → c4 (universal)
 *                                    → c5 (ball_rpy) → c6 (screw)
 *   world → c7 (planar) → c8 (weld) → c9 (revolute).
 * NULL (with the error on stderr) on failure. */
mbt_tree* tu_make_joint_tree(void);
/* A planar link for closed forms: body of mass m whose frame Bo is at its pivot, center of
 * mass at (0, 0, −lc), rotational inertia about Bcm diag(Ixx, Iyy, Izz), attached to `parent`
 * by a revolute joint "<name>_joint" about +y at (0, 0, −l_parent) of the parent's frame. The
 * body index, or a negative status. */
int tu_add_link(mbt_tree* tree, const char* name, int parent, double l_parent, double m, double lc, double Ixx,
                double Iyy, double Izz);
/* Sets every joint's damping to zero in the context. */
void tu_zero_joint_damping(const mbt_tree* tree, mbt_context* ctx);

/* A finalized tree with a context and a forces container, and its sizes. */
typedef struct {
  mbt_tree* tree;
  mbt_context* ctx;
  mbt_multibody_forces* forces;
  int nq, nv, nb;
} tu_fixture;
/* Takes ownership of tree; fails the test if tree is NULL or the context or the forces
 * cannot be made. */
tu_fixture* tu_fixture_create(mbt_tree* tree);
void tu_fixture_destroy(tu_fixture* f);
/* Sets q = q0 + t·qdot and, if v0 is not NULL, v = v0 + t·vdot in f->ctx (through
 * mbt_context_set_q and set_v): a step along the motion, for central differences. At most
 * TU_NMAX positions and velocities. */
#define TU_NMAX 64
void tu_fixture_set_state_along(tu_fixture* f, const mbt_real* q0, const mbt_real* qdot, const mbt_real* v0,
                                const mbt_real* vdot, double t);
/* cmocka group setup: tu_seed(seed), then *state = tu_fixture_create(make_tree()). The
 * matching teardown is tu_fixture_teardown. */
int tu_fixture_setup(void** state, uint64_t seed, mbt_tree* (*make_tree)(void));
int tu_fixture_teardown(void** state);

/* ---- the shipped models and files ------------------------------------------------------ */
/* The models the project ships (models/<name>.urdf); solo12 has a floating base. */
#define TU_NUM_MODELS 5
extern const char* const tu_models[TU_NUM_MODELS];
/* MBT_URDF_FLOATING for the models with a floating base (solo12), else 0. */
int tu_model_flags(const char* name);
/* MBT_SOURCE_DIR "/models/<name>.urdf" into path. */
void tu_model_path(char* path, size_t size, const char* name);
/* Loads models/<name>.urdf with flags into r; fails the test (with the loader's error) if it
 * does not load or has no tree. */
#define tu_load_urdf(name, flags, r) tu__load_urdf((name), (flags), (r), __FILE__, __LINE__)
void tu__load_urdf(const char* name, int flags, mbt_urdf_result* r, const char* file, int line);
/* The tree of models/<name>.urdf (with tu_model_flags), taken out of the loader's result. */
#define tu_load_model(name) tu__load_model((name), __FILE__, __LINE__)
mbt_tree* tu__load_model(const char* name, const char* file, int line);
/* The whole file, NUL-terminated (free it); its length in *n if n is not NULL. Fails the
 * test if it cannot be read. */
char* tu_read_file(const char* path, size_t* n);

/* ---- counting heap calls ---------------------------------------------------------------- */
/* A test file that counts heap calls writes TU_DEFINE_HEAP_COUNTER(); once at file scope.
 * Outside the sanitizers it defines malloc, calloc, realloc and free in the executable,
 * counting and forwarding to glibc's __libc_* entry points; under AddressSanitizer or
 * ThreadSanitizer, whose runtime owns malloc (and calls it before main, through the
 * executable's definition if there is one), the counter uses the sanitizer's allocator hooks
 * instead (installed by tu_heap_count_begin and tu_require_heap_counter). Under valgrind, whose
 * allocator replaces malloc in the executable too, the counter sees nothing. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TU_SANITIZER_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TU_SANITIZER_MALLOC 1
#endif
#endif
#ifdef TU_SANITIZER_MALLOC
#define TU_DEFINE_HEAP_COUNTER() extern int tu__heap_counter_defined
#else
extern void* __libc_malloc(size_t n);
extern void* __libc_calloc(size_t a, size_t n);
extern void* __libc_realloc(void* p, size_t n);
extern void __libc_free(void* p);
#define TU_DEFINE_HEAP_COUNTER()           \
  void* malloc(size_t n) {                 \
    tu__heap_call();                       \
    return __libc_malloc(n);               \
  }                                        \
  void* calloc(size_t a, size_t n) {       \
    tu__heap_call();                       \
    return __libc_calloc(a, n);            \
  }                                        \
  void* realloc(void* p, size_t n) {       \
    tu__heap_call();                       \
    return __libc_realloc(p, n);           \
  }                                        \
  void free(void* p) {                     \
    if (p) tu__heap_call();                \
    __libc_free(p);                        \
  }                                        \
  extern int tu__heap_counter_defined
#endif
void tu__heap_call(void);
/* Counts the heap calls (malloc, calloc, realloc, free of non-NULL) from begin to end. */
void tu_heap_count_begin(void);
long tu_heap_count_end(void);
/* Returns if malloc, calloc, realloc and free are each seen by the counter; otherwise skips
 * the test with a message under valgrind, and fails it anywhere else. */
#define tu_require_heap_counter() tu__require_heap_counter(__FILE__, __LINE__)
void tu__require_heap_counter(const char* file, int line);

#endif /* MBT_TEST_UTIL_H */
