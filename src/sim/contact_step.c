/* contact_step.c: the "time_stepping" integrator (mbt/sim.h) and the simulator's contact API.
 *
 * One step of size h from (q, v) at t, in the scheme of Moreau's time stepping [Moreau 1988;
 * Stewart & Trinkle 1996; Drake's discrete MultibodyPlant, Castro et al. 2022]:
 *   v* = v + h·v̇(t, q, v)                 free motion: forward dynamics with the control,
 *                                          joint-limit penalty, damping and force elements
 *   contacts i at q: point C, normal n, tangents t1, t2 = n × t1, depth φ
 *   J (3nc × nv): rows nᵀ·(J_v,AC − J_v,BC), t1ᵀ·(…), t2ᵀ·(…) (translational Jacobians of
 *       the points of A and B at C)
 *   W = J·M⁻¹·Jᵀ, v_c* = J·v*, γ from the contact problem (contact_solver.c)
 *   v⁺ = v* + M⁻¹·Jᵀ·γ,  q⁺ = q + h·N(q)·v⁺
 * M comes from the composite-rigid-body algorithm and is factored once per step with contact,
 * with the tree's sparsity (M = Lᵀ·D·L, ltdl.c), and W = (J·L⁻¹)·D⁻¹·(J·L⁻¹)ᵀ from sparse rows;
 * a step without contact costs one forward dynamics. Everything is allocated in
 * mbt_simulator_set_contact_model.
 * Joint position limits join the contact problem (as MuJoCo treats them [Todorov, "Convex and
 * analytically-invertible dynamics with contacts and constraints", ICRA 2014]): a coordinate
 * beyond its limit by φ, or able to reach it within the step, is a one-row contact with
 * J = ±e_i, no friction, and the normal law of the limit penalty (k, c: τ_d = c/k) taken at the
 * end of the step. The explicit penalty of the other integrators would make light bodies (a
 * gripper's fingers) unstable at millisecond steps once c·h exceeds twice their inertia. */
#include <stdlib.h>
#include <string.h>

#include "algorithms/cholesky_internal.h"
#include "contact/contact_internal.h"
#include "sim/sim_internal.h"
#include "tree/tree_internal.h"

struct mbt__sim_contact {
  mbt__detection* det;
  int nv, capacity, num_bodies;  /* capacity: the detection's contacts plus the joint limits */
  mbt__contact_solver_options opt[2]; /* per method (mbt_contact_solver_method) */
  mbt_contact_solver_method method;
  mbt_real* M;        /* [nv × nv], then its Cholesky factor */
  mbt_real* M_full;   /* [nv × nv] the mass matrix itself (SAP's cost) */
  mbt_real* v_star;   /* [nv] the free motion's velocities (SAP) */
  mbt_real* R_t;      /* [cap] SAP's friction regularization */
  mbt_real* n0;       /* [cap] the normal impulses at the start of the step (SAP's friction bound) */
  mbt__sap_workspace sap;
  mbt_real* J;        /* [3cap × nv] */
  mbt_real* Z;        /* [3cap × nv] row r: L⁻ᵀ·J_rᵀ (M = Lᵀ·D·L, ltdl.c) */
  int* lambda;        /* [nv] the parent dof of each dof */
  int* nz;            /* [cap × nv] the dofs where contact i's rows of J or Z are nonzero, */
  int* nnz;           /* [cap] and their count */
  mbt_real* u;        /* [nv] Jᵀ·γ, then M⁻¹·Jᵀ·γ */
  mbt_real* W;        /* [3cap × 3cap] */
  mbt_real* Jb;       /* [slots × 6 × nv] spatial Jacobians of bodies' origins, this step */
  int* slot_of;       /* [num_bodies] body → slot in Jb (−1: not computed this step) */
  int num_slots, used_slots;
  mbt_real* vc_star;  /* [3cap] */
  mbt_real* vc;       /* [3cap] */
  mbt_real* gamma;    /* [3cap] */
  mbt_real *b_n, *R_n, *mu_s, *mu_d; /* [cap] */
  bool* sliding;                     /* [cap] solver scratch */
  mbt_vec3* basis;    /* [3cap] n, t1, t2 per contact */
  mbt_contact_result* results;       /* [cap] the last step's */
  int num_results;
  mbt_spatial_force* F_Bo_W;         /* [num_bodies] the last step's totals */
  int num_prev;                      /* the last step's contacts, for the warm start: */
  int* prev_key;                     /* [3cap] shape_A, shape_B, pair_index */
  mbt_vec3* prev_impulse;            /* [cap] γ in W */
};

void mbt__sim_contact_destroy(struct mbt__sim_contact* c) {
  if (!c) return;
  mbt__detection_destroy(c->det);
  free(c->M);
  free(c->M_full);
  free(c->v_star);
  free(c->R_t);
  free(c->n0);
  free(c->sap.H);
  free(c->sap.grad);
  free(c->sap.dv);
  free(c->sap.Mdv);
  free(c->sap.jtg);
  free(c->sap.GJ);
  free(c->sap.dvc);
  free(c->sap.G);
  free(c->J);
  free(c->Z);
  free(c->lambda);
  free(c->nz);
  free(c->nnz);
  free(c->u);
  free(c->W);
  free(c->Jb);
  free(c->slot_of);
  free(c->vc_star);
  free(c->vc);
  free(c->gamma);
  free(c->b_n);
  free(c->R_n);
  free(c->mu_s);
  free(c->mu_d);
  free(c->sliding);
  free(c->basis);
  free(c->results);
  free(c->F_Bo_W);
  free(c->prev_key);
  free(c->prev_impulse);
  free(c);
}

static void* zalloc(size_t n, size_t size, bool* failed) {
  void* p = calloc(n ? n : 1, size);
  if (!p) *failed = true;
  return p;
}

static struct mbt__sim_contact* contact_create(const mbt_contact_model* model, int nv, int num_limits) {
  struct mbt__sim_contact* c = calloc(1, sizeof *c);
  if (!c) return NULL;
  bool failed = false;
  c->det = mbt__detection_create(model);
  if (!c->det) {
    free(c);
    return NULL;
  }
  const size_t cap = (size_t)(c->det->capacity + num_limits), n = (size_t)nv;
  c->nv = nv;
  c->capacity = (int)cap;
  c->num_bodies = model->tree->num_bodies;
  /* SAP: Newton converges quadratically, so a tight tolerance costs little (the resting box's
   * contact forces sum to m·g within 1e-9 at 1e-10); PGS: sweeps converge linearly. */
  c->opt[MBT_CONTACT_SOLVER_SAP].max_iterations = 100;
  c->opt[MBT_CONTACT_SOLVER_SAP].tolerance = 1e-10;
  c->opt[MBT_CONTACT_SOLVER_PGS].max_iterations = 100;
  c->opt[MBT_CONTACT_SOLVER_PGS].tolerance = 1e-6;
  c->method = MBT_CONTACT_SOLVER_SAP;
  c->M = zalloc(n * n, sizeof(mbt_real), &failed);
  c->M_full = zalloc(n * n, sizeof(mbt_real), &failed);
  c->v_star = zalloc(n, sizeof(mbt_real), &failed);
  c->R_t = zalloc(cap, sizeof(mbt_real), &failed);
  c->n0 = zalloc(cap, sizeof(mbt_real), &failed);
  c->sap.H = zalloc(n * n, sizeof(mbt_real), &failed);
  c->sap.grad = zalloc(n, sizeof(mbt_real), &failed);
  c->sap.dv = zalloc(n, sizeof(mbt_real), &failed);
  c->sap.Mdv = zalloc(n, sizeof(mbt_real), &failed);
  c->sap.jtg = zalloc(n, sizeof(mbt_real), &failed);
  c->sap.GJ = zalloc(3 * n, sizeof(mbt_real), &failed);
  c->sap.dvc = zalloc(3 * cap, sizeof(mbt_real), &failed);
  c->sap.G = zalloc(9 * cap, sizeof(mbt_real), &failed);
  c->J = zalloc(3 * cap * n, sizeof(mbt_real), &failed);
  c->Z = zalloc(3 * cap * n, sizeof(mbt_real), &failed);
  c->lambda = zalloc(n, sizeof(int), &failed);
  c->nz = zalloc(cap * n, sizeof(int), &failed);
  c->nnz = zalloc(cap, sizeof(int), &failed);
  c->u = zalloc(n, sizeof(mbt_real), &failed);
  c->W = zalloc(9 * cap * cap, sizeof(mbt_real), &failed);
  c->num_slots = c->num_bodies < 64 ? c->num_bodies : 64;
  c->Jb = zalloc((size_t)c->num_slots * 6 * n, sizeof(mbt_real), &failed);
  c->slot_of = zalloc((size_t)c->num_bodies, sizeof(int), &failed);
  c->vc_star = zalloc(3 * cap, sizeof(mbt_real), &failed);
  c->vc = zalloc(3 * cap, sizeof(mbt_real), &failed);
  c->gamma = zalloc(3 * cap, sizeof(mbt_real), &failed);
  c->b_n = zalloc(cap, sizeof(mbt_real), &failed);
  c->R_n = zalloc(cap, sizeof(mbt_real), &failed);
  c->mu_s = zalloc(cap, sizeof(mbt_real), &failed);
  c->mu_d = zalloc(cap, sizeof(mbt_real), &failed);
  c->sliding = zalloc(cap, sizeof(bool), &failed);
  c->basis = zalloc(3 * cap, sizeof(mbt_vec3), &failed);
  c->results = zalloc(cap, sizeof(mbt_contact_result), &failed);
  c->F_Bo_W = zalloc((size_t)c->num_bodies, sizeof(mbt_spatial_force), &failed);
  c->prev_key = zalloc(3 * cap, sizeof(int), &failed);
  c->prev_impulse = zalloc(cap, sizeof(mbt_vec3), &failed);
  if (failed) {
    mbt__sim_contact_destroy(c);
    return NULL;
  }
  c->sap.vc = c->vc;
  c->sap.gamma = c->gamma;
  return c;
}

/* ---- the contact Jacobian ----------------------------------------------------------------- */
/* t1 ⟂ n from the world axis least aligned with n; t2 = n × t1. */
static void contact_basis(mbt_vec3 n, mbt_vec3* b) {
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (mbt_abs(n.v[i]) < mbt_abs(n.v[k])) k = i;
  mbt_vec3 e = mbt_vec3_zero();
  e.v[k] = 1;
  mbt_vec3 t1 = mbt_vec3_axpy(e, -n.v[k], n);
  t1 = mbt_vec3_scale(t1, 1 / mbt_vec3_norm(t1));
  b[0] = n;
  b[1] = t1;
  b[2] = mbt_vec3_cross(n, t1);
}

/* The spatial Jacobian of body B's origin, J_WBo (rows ω; v), computed once per step for up
 * to num_slots − 1 bodies (the rest at each use, in the last slot). */
static int body_jacobian(mbt_simulator* sim, struct mbt__sim_contact* c, int body, const mbt_real** Jb) {
  int slot = c->slot_of[body];
  if (slot >= 0) {
    *Jb = c->Jb + (size_t)slot * 6 * (size_t)c->nv;
    return MBT_OK;
  }
  if (c->used_slots < c->num_slots - 1) {
    slot = c->used_slots++;
    c->slot_of[body] = slot;
  } else {
    slot = c->num_slots - 1; /* the scratch slot, recomputed at each use */
  }
  mbt_real* J = c->Jb + (size_t)slot * 6 * (size_t)c->nv;
  *Jb = J;
  return mbt_calc_jacobian_spatial_velocity(sim->tree, sim->work, sim->tree->bodies[body].body_frame,
                                            mbt_vec3_zero(), J);
}

/* J_rows (3 × nv) += sign·[b0; b1; b2]ᵀ·J_v,BC: the translational Jacobian of body B's point
 * at p_WC projected on the contact basis, J_v,BC = J_v,Bo + J_ω × p_BoC (rigid body). The
 * world contributes nothing. */
static int add_point_jacobian(mbt_simulator* sim, struct mbt__sim_contact* c, int body, mbt_vec3 p_WC,
                              const mbt_vec3* b, mbt_real sign, mbt_real* J_rows) {
  if (body == 0) return MBT_OK;
  mbt_transform X_WB;
  const mbt_real* Jb = NULL;
  int st = mbt_context_body_pose_in_world(sim->tree, sim->work, body, &X_WB);
  if (!st) st = body_jacobian(sim, c, body, &Jb);
  if (st) return st;
  const mbt_vec3 r = mbt_vec3_sub(p_WC, X_WB.p);
  const int nv = c->nv;
  /* The basis rows as (sign·bᵣ) and (r × sign·bᵣ): bᵀ·(v + ω × r) = bᵀ·v + (r × b)ᵀ·ω. */
  mbt_vec3 bv[3], bw[3];
  for (int i = 0; i < 3; ++i) {
    bv[i] = mbt_vec3_scale(b[i], sign);
    bw[i] = mbt_vec3_cross(r, bv[i]);
  }
  for (int k = 0; k < nv; ++k) {
    const mbt_vec3 w = mbt_vec3_make(Jb[k], Jb[nv + k], Jb[2 * nv + k]);
    const mbt_vec3 v = mbt_vec3_make(Jb[3 * nv + k], Jb[4 * nv + k], Jb[5 * nv + k]);
    for (int i = 0; i < 3; ++i) J_rows[i * nv + k] += mbt_vec3_dot(bv[i], v) + mbt_vec3_dot(bw[i], w);
  }
  return MBT_OK;
}

/* Rows nc, nc + 1, ... of the problem: the joint limits that are or may be reached within the
 * step (φ + h·|q̇| > 0), each a frictionless contact on one coordinate. Their count. */
static int add_limit_rows(mbt_simulator* sim, struct mbt__sim_contact* c, int nc, const mbt_real* v_star, mbt_real h) {
  const mbt_real k = sim->limit_stiffness, tau_d = mbt_lt(0, k) ? sim->limit_damping / k : 0;
  int n = nc;
  for (int i = 0; i < sim->num_limits && mbt_lt(0, k); ++i) {
    const mbt__sim_limit* L = &sim->limits[i];
    const mbt_real q = sim->x[L->q_index], reach = h * mbt_abs(v_star[L->v_index]);
    const mbt_real phi_up = q - L->upper, phi_lo = L->lower - q;
    const bool up = mbt_lt(0, phi_up + reach), lo = mbt_lt(0, phi_lo + reach);
    if (!up && !lo) continue;
    mbt_real* J = c->J + (size_t)(3 * n) * (size_t)c->nv;
    memset(J, 0, sizeof(mbt_real) * 3 * (size_t)c->nv);
    J[L->v_index] = up ? -1 : 1; /* the row's normal pushes the coordinate back inside */
    c->R_n[n] = 1 / (h * k * (h + tau_d));
    c->b_n[n] = (up ? phi_up : phi_lo) / (h + tau_d);
    c->mu_s[n] = c->mu_d[n] = 0;
    ++n;
  }
  return n - nc;
}

/* Z = J·L⁻¹·D^(−1/2) by rows (z_r = D^(−1/2)·L⁻ᵀ·j_r, nonzero only on the branches of the
 * contact's bodies), each contact's nonzero dofs, and W = Z·Zᵀ summed over them (only its
 * 3×3 diagonal blocks unless full). */
static void delassus(struct mbt__sim_contact* c, int n, bool full) {
  const int nv = c->nv, n3 = 3 * n;
  for (int r = 0; r < n3; ++r) {
    const mbt_real* j = c->J + (size_t)r * (size_t)nv;
    mbt_real* z = c->Z + (size_t)r * (size_t)nv;
    memcpy(z, j, sizeof(mbt_real) * (size_t)nv);
    mbt__ltdl_solve_lt(c->M, nv, c->lambda, z);
  }
  for (int k = 0; k < nv; ++k) c->u[k] = 1 / mbt_sqrt(c->M[(size_t)k * (size_t)nv + (size_t)k]);
  for (int i = 0; i < n; ++i) {
    mbt_real* z = c->Z + (size_t)(3 * i) * (size_t)nv;
    const mbt_real* j = c->J + (size_t)(3 * i) * (size_t)nv;
    int* nz = c->nz + (size_t)i * (size_t)nv;
    c->nnz[i] = 0;
    for (int k = 0; k < nv; ++k)
      if (z[k] != 0 || z[nv + k] != 0 || z[2 * nv + k] != 0 || j[k] != 0 || j[nv + k] != 0 || j[2 * nv + k] != 0) {
        nz[c->nnz[i]++] = k;
        for (int r = 0; r < 3; ++r) z[r * nv + k] *= c->u[k];
      }
  }
  for (int r = 0; r < n3; ++r) {
    const mbt_real* zr = c->Z + (size_t)r * (size_t)nv;
    const int* nz = c->nz + (size_t)(r / 3) * (size_t)nv;
    const int end = full ? n3 : 3 * (r / 3) + 3;
    for (int q = r; q < end; ++q) {
      const mbt_real* zq = c->Z + (size_t)q * (size_t)nv;
      mbt_real s = 0;
      for (int t = 0; t < c->nnz[r / 3]; ++t) s += zr[nz[t]] * zq[nz[t]];
      c->W[r * n3 + q] = c->W[q * n3 + r] = s;
    }
  }
}

/* J, W = J·M⁻¹·Jᵀ (its 3×3 diagonal blocks alone for SAP), and the normal law's b_n and R_n,
 * for the nc contacts then the joint limits; returns the limits' count in *nl. */
static int assemble(mbt_simulator* sim, struct mbt__sim_contact* c, int nc, const mbt_real* v_star, mbt_real h,
                    int* nl) {
  const int nv = c->nv;
  for (int body = 0; body < c->num_bodies; ++body) c->slot_of[body] = -1;
  c->used_slots = 0;
  for (int i = 0; i < nc; ++i) {
    const mbt__contact* ct = &c->det->contacts[i];
    mbt_vec3* b = &c->basis[3 * i];
    contact_basis(ct->r.nhat_BA_W, b);
    memset(c->J + 3 * i * nv, 0, sizeof(mbt_real) * 3 * (size_t)nv);
    int st = add_point_jacobian(sim, c, ct->r.body_A, ct->r.p_WC, b, 1, c->J + 3 * i * nv);
    if (!st) st = add_point_jacobian(sim, c, ct->r.body_B, ct->r.p_WC, b, -1, c->J + 3 * i * nv);
    if (st) return st;
    /* γ_n = h·k·(φ − h·v_n⁺ − τ_d·v_n⁺) = (b_n − v_n⁺)/R_n (contact_solver.c). */
    c->R_n[i] = 1 / (h * ct->k * (h + ct->tau_d));
    c->b_n[i] = ct->r.depth / (h + ct->tau_d);
    c->mu_s[i] = ct->mu_s;
    c->mu_d[i] = ct->mu_d;
  }
  *nl = add_limit_rows(sim, c, nc, v_star, h);
  delassus(c, nc + *nl, c->method == MBT_CONTACT_SOLVER_PGS);
  return MBT_OK;
}

/* Results of the step: forces (γ/h), velocities after it, per-body totals. Speculative points
 * (a gap at the start of the step) are reported only if they pushed. */
static void record_results(mbt_simulator* sim, struct mbt__sim_contact* c, int nc, mbt_real h) {
  memset(c->F_Bo_W, 0, sizeof(mbt_spatial_force) * (size_t)c->num_bodies);
  int count = 0;
  for (int i = 0; i < nc; ++i) {
    if (!(c->det->contacts[i].r.depth > 0) && !(c->gamma[3 * i] > 0)) continue;
    mbt_contact_result* r = &c->results[count++];
    *r = c->det->contacts[i].r;
    const mbt_vec3* b = &c->basis[3 * i];
    const mbt_real* g = c->gamma + 3 * i;
    const mbt_real* u = c->vc + 3 * i;
    r->fn = g[0] / h;
    r->f_BA_W = mbt_vec3_scale(mbt_vec3_axpy(mbt_vec3_axpy(mbt_vec3_scale(b[0], g[0]), g[1], b[1]), g[2], b[2]), 1 / h);
    r->vn = u[0];
    r->v_slip_W = mbt_vec3_axpy(mbt_vec3_scale(b[1], u[1]), u[2], b[2]);
    const int body[2] = {r->body_A, r->body_B};
    for (int s = 0; s < 2; ++s) {
      mbt_transform X_WB;
      if (mbt_context_body_pose_in_world(sim->tree, sim->work, body[s], &X_WB)) continue;
      const mbt_vec3 f = s ? mbt_vec3_neg(r->f_BA_W) : r->f_BA_W;
      mbt_spatial_force* F = &c->F_Bo_W[body[s]];
      const mbt_vec3 tau = mbt_vec3_cross(mbt_vec3_sub(r->p_WC, X_WB.p), f);
      F->tau = mbt_vec3_add(F->tau, tau);
      F->f = mbt_vec3_add(F->f, f);
    }
  }
  c->num_results = count;
}

/* Warm start: a point found at the last step (same shapes, same place in the pair's list)
 * starts from its last impulse, re-expressed in the new contact basis; others from zero. */
static void warm_start(struct mbt__sim_contact* c, int nc) {
  for (int i = 0; i < nc; ++i) {
    const mbt__contact* ct = &c->det->contacts[i];
    mbt_real* g = c->gamma + 3 * i;
    g[0] = g[1] = g[2] = 0;
    for (int j = 0; j < c->num_prev; ++j) {
      const int* key = c->prev_key + 3 * j;
      if (key[0] != ct->r.shape_A || key[1] != ct->r.shape_B || key[2] != ct->pair_index) continue;
      for (int r = 0; r < 3; ++r) g[r] = mbt_vec3_dot(c->basis[3 * i + r], c->prev_impulse[j]);
      g[0] = mbt_max(g[0], 0);
      break;
    }
  }
}

static void keep_for_warm_start(struct mbt__sim_contact* c, int nc) {
  for (int i = 0; i < nc; ++i) {
    const mbt__contact* ct = &c->det->contacts[i];
    c->prev_key[3 * i] = ct->r.shape_A;
    c->prev_key[3 * i + 1] = ct->r.shape_B;
    c->prev_key[3 * i + 2] = ct->pair_index;
    const mbt_vec3* b = &c->basis[3 * i];
    const mbt_real* g = c->gamma + 3 * i;
    c->prev_impulse[i] = mbt_vec3_axpy(mbt_vec3_axpy(mbt_vec3_scale(b[0], g[0]), g[1], b[1]), g[2], b[2]);
  }
  c->num_prev = nc;
}

/* Whether a joint limit is or may be reached within the step (add_limit_rows' test). */
static bool limits_near(const mbt_simulator* sim, const mbt_real* v_star, mbt_real h) {
  if (!mbt_lt(0, sim->limit_stiffness)) return false;
  for (int i = 0; i < sim->num_limits; ++i) {
    const mbt__sim_limit* L = &sim->limits[i];
    const mbt_real q = sim->x[L->q_index], reach = h * mbt_abs(v_star[L->v_index]);
    if (mbt_lt(0, q - L->upper + reach) || mbt_lt(0, L->lower - q + reach)) return true;
  }
  return false;
}

/* v += M⁻¹·(Jᵀ·γ) over the n contacts' rows (M factored). */
static void add_impulse_velocity(struct mbt__sim_contact* c, int n, mbt_real* v) {
  const int nv = c->nv;
  memset(c->u, 0, sizeof(mbt_real) * (size_t)nv);
  for (int r = 0; r < 3 * n; ++r)
    if (c->gamma[r] != 0)
      for (int k = 0; k < nv; ++k) c->u[k] += c->J[r * nv + k] * c->gamma[r];
  mbt__ltdl_solve(c->M, nv, c->lambda, c->u);
  for (int k = 0; k < nv; ++k) v[k] += c->u[k];
}

/* Projected Gauss–Seidel on the impulses (contact_solver.c) from v_c* = J·v*, warm-started from
 * the last step's impulses (the limit rows up to n from zero), then v⁺ = v* + M⁻¹·Jᵀ·γ in place
 * of v*. */
static mbt__contact_solver_stats solve_pgs(struct mbt__sim_contact* c, int nc, int n, mbt_real* v) {
  const int nv = c->nv;
  for (int r = 0; r < 3 * n; ++r) {
    const mbt_real* j = c->J + (size_t)r * (size_t)nv;
    mbt_real s = 0;
    for (int k = 0; k < nv; ++k) s += j[k] * v[k];
    c->vc_star[r] = s;
  }
  warm_start(c, nc);
  for (int r = 3 * nc; r < 3 * n; ++r) c->gamma[r] = 0;
  const mbt__contact_problem p = {n, c->W, c->vc_star, c->b_n, c->R_n, c->mu_s, c->mu_d, c->sliding};
  const mbt__contact_solver_stats ss = mbt__solve_contact_problem(&p, &c->opt[MBT_CONTACT_SOLVER_PGS], c->gamma, c->vc);
  add_impulse_velocity(c, n, v);
  return ss;
}

/* The normal impulse of each of the nc contacts at the start of the step, the friction bound of
 * the lagged model: n0 = h·k·max(0, φ − τ_d·v_n0), v_n0 = J_n·v0 (v0: the step's initial
 * velocities); 0 for the limit rows up to n. */
static void lagged_normal_impulses(struct mbt__sim_contact* c, int nc, int n, const mbt_real* v0, mbt_real h) {
  const int nv = c->nv;
  for (int i = 0; i < n; ++i) c->n0[i] = 0;
  for (int i = 0; i < nc; ++i) {
    const mbt__contact* ct = &c->det->contacts[i];
    const mbt_real* Jn = c->J + (size_t)(3 * i) * (size_t)nv;
    const int* nz = c->nz + (size_t)i * (size_t)nv;
    mbt_real vn0 = 0;
    for (int t = 0; t < c->nnz[i]; ++t) vn0 += Jn[nz[t]] * v0[nz[t]];
    c->n0[i] = h * ct->k * mbt_max(0, ct->r.depth - ct->tau_d * vn0);
  }
}

/* SAP's convex minimization (sap_solver.c) from the step's initial velocities v0 (the last
 * step's solution, as Drake's SAP starts); v⁺ in place of v*, with γ and v_c = J·v⁺ in c->gamma
 * and c->vc. nc contacts, then limit rows up to n. */
static mbt__contact_solver_stats solve_sap(struct mbt__sim_contact* c, int nc, int n, const mbt_real* v0, mbt_real* v,
                                           mbt_real h) {
  memcpy(c->v_star, v, sizeof(mbt_real) * (size_t)c->nv);
  mbt__sap_friction_compliance(c->W, n, c->mu_d, c->R_t);
  lagged_normal_impulses(c, nc, n, v0, h);
  memcpy(v, v0, sizeof(mbt_real) * (size_t)c->nv);
  const mbt__sap_problem p = {c->nv, n, c->M_full, c->J, c->nz, c->nnz, c->v_star,
                              c->b_n, c->R_n, c->R_t, c->mu_d, c->n0};
  return mbt__solve_contact_sap(&p, &c->opt[MBT_CONTACT_SOLVER_SAP], &c->sap, v);
}

/* v⁺ = v* + M⁻¹·Jᵀ·γ in place of v*, with the contacts at the work context's q. */
static int apply_contact(mbt_simulator* sim, mbt_real* v, mbt_real h) {
  struct mbt__sim_contact* c = sim->contact;
  int st = mbt__detect_contacts(c->det, sim->work);
  if (st) return mbt__sim_error(sim, st, "contact detection: %s", mbt_context_last_error(sim->work));
  const int nc = c->det->num_contacts, nv = c->nv;
  sim->stats.contact_points += nc;
  sim->stats.contacts_dropped += c->det->dropped;
  c->num_results = 0;
  memset(c->F_Bo_W, 0, sizeof(mbt_spatial_force) * (size_t)c->num_bodies);
  if (nc == 0 && !limits_near(sim, v, h)) {
    c->num_prev = 0;
    return MBT_OK;
  }
  int nl = 0;
  st = mbt_calc_mass_matrix(sim->tree, sim->work, c->M);
  if (!st && c->method == MBT_CONTACT_SOLVER_SAP) memcpy(c->M_full, c->M, sizeof(mbt_real) * (size_t)nv * (size_t)nv);
  if (!st) st = mbt__ltdl_factor_ex(c->M, nv, c->lambda, NULL, 0, NULL);
  if (!st) st = assemble(sim, c, nc, v, h, &nl);
  if (st) return mbt__sim_error(sim, st, "contact step: %s", mbt_context_last_error(sim->work));
  const mbt__contact_solver_stats ss = c->method == MBT_CONTACT_SOLVER_PGS
                                            ? solve_pgs(c, nc, nc + nl, v)
                                            : solve_sap(c, nc, nc + nl, sim->x + sim->nq, v, h);
  sim->stats.contact_iterations += ss.iterations;
  if (!ss.converged) ++sim->stats.contact_unconverged;
  sim->stats.contact_residual_max = mbt_max(sim->stats.contact_residual_max, ss.residual);
  record_results(sim, c, nc, h);
  keep_for_warm_start(c, nc);
  return MBT_OK;
}

int mbt__step_time_stepping(mbt_simulator* sim, mbt_real t, mbt_real h) {
  const int nq = sim->nq, nv = sim->nv;
  sim->limits_in_step = sim->contact != NULL; /* the limits are rows of the contact problem */
  int st = mbt__sim_eval(sim, t, sim->x, sim->k[0]);
  sim->limits_in_step = false;
  if (st) return st;
  mbt_real* v = sim->xn + nq;
  for (int i = 0; i < nv; ++i) v[i] = sim->x[nq + i] + h * sim->k[0][nq + i];
  if (sim->contact) {
    st = apply_contact(sim, v, h);
    if (st) return st;
  }
  /* q⁺ = q + h·N(q)·v⁺: the work context still holds q. */
  st = mbt_map_velocity_to_qdot(sim->tree, sim->work, v, sim->k[1]);
  if (st) return mbt__sim_error(sim, st, "t = %g: %s", mbt_value(t), mbt_context_last_error(sim->work));
  for (int i = 0; i < nq; ++i) sim->xn[i] = sim->x[i] + h * sim->k[1][i];
  return MBT_OK;
}

/* ---- public API ---------------------------------------------------------------------------- */
int mbt_simulator_set_contact_model(mbt_simulator* sim, const mbt_contact_model* model) {
  if (!sim) return MBT_ERR_INVALID_ARGUMENT;
  if (!model) {
    mbt__sim_contact_destroy(sim->contact);
    sim->contact = NULL;
    return MBT_OK;
  }
  if (mbt_contact_model_tree(model) != sim->tree)
    return mbt__sim_error(sim, MBT_ERR_INVALID_ARGUMENT,
                          "mbt_simulator_set_contact_model: the contact model belongs to another tree");
  if (sim->opt.integrator != MBT_INTEGRATOR_TIME_STEPPING)
    return mbt__sim_error(sim, MBT_ERR_INVALID_ARGUMENT,
                          "mbt_simulator_set_contact_model: contact needs the 'time_stepping' integrator "
                          "('%s' assumes a smooth state derivative; see docs/contact.md)",
                          mbt_integrator_name(sim->opt.integrator));
  struct mbt__sim_contact* c = contact_create(model, sim->nv, sim->num_limits);
  if (!c) return mbt__sim_error(sim, MBT_ERR_NO_MEMORY, "mbt_simulator_set_contact_model: out of memory");
  if (!mbt__dof_parents(sim->tree, c->lambda)) {
    mbt__sim_contact_destroy(c);
    return mbt__sim_error(sim, MBT_ERR_TOPOLOGY,
                          "mbt_simulator_set_contact_model: the tree's velocities are not numbered parents first");
  }
  if (sim->contact) {
    memcpy(c->opt, sim->contact->opt, sizeof c->opt);
    c->method = sim->contact->method;
  }
  mbt__sim_contact_destroy(sim->contact);
  sim->contact = c;
  return MBT_OK;
}

int mbt_simulator_num_contacts(const mbt_simulator* sim) {
  return sim && sim->contact ? sim->contact->num_results : 0;
}

const mbt_contact_result* mbt_simulator_contact_results(const mbt_simulator* sim) {
  return sim && sim->contact ? sim->contact->results : NULL;
}

int mbt_simulator_contact_body_forces(const mbt_simulator* sim, mbt_spatial_force* F_Bo_W, int num_bodies) {
  if (!sim || !F_Bo_W) return MBT_ERR_INVALID_ARGUMENT;
  if (num_bodies != sim->tree->num_bodies) return MBT_ERR_SIZE;
  if (!sim->contact) {
    memset(F_Bo_W, 0, sizeof(mbt_spatial_force) * (size_t)num_bodies);
    return MBT_OK;
  }
  memcpy(F_Bo_W, sim->contact->F_Bo_W, sizeof(mbt_spatial_force) * (size_t)num_bodies);
  return MBT_OK;
}

int mbt_simulator_set_contact_solver(mbt_simulator* sim, int max_iterations, mbt_real tolerance) {
  if (!sim) return MBT_ERR_INVALID_ARGUMENT;
  if (max_iterations < 1 || !(mbt_isfinite(tolerance) && mbt_lt(0, tolerance)))
    return mbt__sim_error(sim, MBT_ERR_INVALID_ARGUMENT,
                          "mbt_simulator_set_contact_solver: max_iterations must be >= 1 and tolerance finite "
                          "and > 0 (got %d, %g); unchanged", max_iterations, mbt_value(tolerance));
  if (!sim->contact)
    return mbt__sim_error(sim, MBT_ERR_INVALID_ARGUMENT,
                          "mbt_simulator_set_contact_solver: no contact model (mbt_simulator_set_contact_model)");
  sim->contact->opt[sim->contact->method].max_iterations = max_iterations;
  sim->contact->opt[sim->contact->method].tolerance = tolerance;
  return MBT_OK;
}

int mbt_simulator_set_contact_solver_method(mbt_simulator* sim, mbt_contact_solver_method method) {
  if (!sim) return MBT_ERR_INVALID_ARGUMENT;
  if (method != MBT_CONTACT_SOLVER_SAP && method != MBT_CONTACT_SOLVER_PGS)
    return mbt__sim_error(sim, MBT_ERR_INVALID_ARGUMENT,
                          "mbt_simulator_set_contact_solver_method: unknown method %d (MBT_CONTACT_SOLVER_SAP or "
                          "MBT_CONTACT_SOLVER_PGS); unchanged", (int)method);
  if (!sim->contact)
    return mbt__sim_error(sim, MBT_ERR_INVALID_ARGUMENT,
                          "mbt_simulator_set_contact_solver_method: no contact model (mbt_simulator_set_contact_model)");
  sim->contact->method = method;
  return MBT_OK;
}
