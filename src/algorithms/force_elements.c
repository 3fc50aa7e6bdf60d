/* force_elements.c: seed CalcForceElementsContribution, CalcPotentialEnergy and
 * CalcConservativePower for the force elements of forces.h and joint damping. */
#include <string.h>
#include "algorithms/algorithms_internal.h"

/* Below this length a spring's direction PQ is undefined. */
#define MBT__SPRING_MIN_LENGTH 1e-12

/* Spring end points in W and their velocities: p_WP = X_WA·p_AP, v_WP = v_WAo + w_WA × p_AoP_W. */
typedef struct {
  mbt_vec3 p_WP, p_WQ, p_AoP_W, p_BoQ_W;
  int node_A, node_B;
} spring_geometry;

static void spring_points(const mbt_tree* tree, const mbt_context* ctx, const mbt_force_element* fe,
                          spring_geometry* s) {
  s->node_A = tree->bodies[fe->u.spring.body_A].node;
  s->node_B = tree->bodies[fe->u.spring.body_B].node;
  const mbt_transform X_WA = mbt__body_pose_in_world(tree, ctx, s->node_A);
  const mbt_transform X_WB = mbt__body_pose_in_world(tree, ctx, s->node_B);
  s->p_AoP_W = mbt_mat3_mul_vec(&X_WA.R, fe->u.spring.p_AP);
  s->p_BoQ_W = mbt_mat3_mul_vec(&X_WB.R, fe->u.spring.p_BQ);
  s->p_WP = mbt_vec3_add(X_WA.p, s->p_AoP_W);
  s->p_WQ = mbt_vec3_add(X_WB.p, s->p_BoQ_W);
}

/* ℓ̇ = û·(v_WQ − v_WP). Needs the velocity cache. */
static mbt_real spring_length_rate(const mbt_tree* tree, const mbt_context* ctx, const spring_geometry* s, mbt_vec3 u) {
  const mbt_spatial_velocity V_WA = mbt__body_velocity_in_world(tree, ctx, s->node_A);
  const mbt_spatial_velocity V_WB = mbt__body_velocity_in_world(tree, ctx, s->node_B);
  const mbt_vec3 v_WP = mbt_vec3_add(V_WA.v, mbt_vec3_cross(V_WA.w, s->p_AoP_W));
  const mbt_vec3 v_WQ = mbt_vec3_add(V_WB.v, mbt_vec3_cross(V_WB.w, s->p_BoQ_W));
  return mbt_vec3_dot(u, mbt_vec3_sub(v_WQ, v_WP));
}

static int revolute_spring_dof(const mbt_tree* tree, const mbt_force_element* fe, int* q_index, int* v_index) {
  const mbt_joint* j = &tree->joints[fe->u.revolute_spring.joint];
  const mbt_mobilizer* m = &tree->mobilizers[j->mobilizer];
  *q_index = m->q_start;
  *v_index = m->v_start;
  return MBT_OK;
}

static int check_springs(const mbt_tree* tree, const mbt_context* ctx, const char* what) {
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    if (fe->type != MBT_FORCE_LINEAR_SPRING_DAMPER) continue;
    spring_geometry s;
    spring_points(tree, ctx, fe, &s);
    if (mbt_lt(mbt_vec3_norm(mbt_vec3_sub(s.p_WQ, s.p_WP)), MBT__SPRING_MIN_LENGTH))
      return mbt__context_error(ctx, MBT_ERR_SINGULAR, "%s: force element '%s': the spring length is zero", what,
                                fe->name);
  }
  return MBT_OK;
}

/* m·p_BoBcm_W = R_WM·mp_BoBcm_M of every body from its host (the constant mp_BoBcm_M =
 * m·R_MB·p_BoBcm_B is a context parameter, context_internal.h), kept while q and the inertias
 * are unchanged. Needs the position cache. */
static const mbt_vec3* gravity_moments(const mbt_tree* tree, mbt_context* ctx) {
  if (!ctx->gravity_moments_valid) {
    for (int node = 1; node < tree->num_nodes; ++node)
      ctx->mp_BoBcm_W[node] = mbt_mat3_mul_vec(&ctx->pc.X_WM[tree->nodes[node].host].R, ctx->mp_BoBcm_M[node]);
    ctx->gravity_moments_valid = true;
  }
  return ctx->mp_BoBcm_W;
}

/* Gravity: F_Bo_W += [m·p_BoBcm_W × g; m·g] (gravity_moments).
 * Linear spring-damper: f = k·(ℓ − ℓ0) + c·ℓ̇, û = p_PQ/ℓ; the force f·û acts on A at P and
 * −f·û on B at Q, each shifted to the body origin (tau = p_BoX × f).
 * Revolute spring: tau += −k·(θ − θ0). User elements: their callback adds. Joint damping:
 * tau −= d ⊙ v. */
int mbt__calc_force_elements(const mbt_tree* tree, mbt_context* ctx, mbt_multibody_forces* forces) {
  mbt__ensure_velocity_kinematics(tree, ctx);
  int st = check_springs(tree, ctx, "calc_force_elements_contribution");
  if (st) return st;
  mbt_multibody_forces_set_zero(forces);
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    switch (fe->type) {
      case MBT_FORCE_UNIFORM_GRAVITY: {
        const mbt_vec3 g = ctx->g_W;
        const mbt_vec3* mp_BoBcm_W = gravity_moments(tree, ctx);
        for (int node = 1; node < tree->num_nodes; ++node) {
          mbt_spatial_force* F = &forces->F_BBo_W[node];
          F->tau = mbt_vec3_add(F->tau, mbt_vec3_cross(mp_BoBcm_W[node], g));
          F->f = mbt_vec3_axpy(F->f, ctx->M_BBo_B[node].mass, g);
        }
        break;
      }
      case MBT_FORCE_LINEAR_SPRING_DAMPER: {
        spring_geometry s;
        spring_points(tree, ctx, fe, &s);
        const mbt_vec3 d = mbt_vec3_sub(s.p_WQ, s.p_WP);
        const mbt_real l = mbt_vec3_norm(d);
        const mbt_vec3 u = mbt_vec3_scale(d, 1 / l);
        const mbt_real ldot = spring_length_rate(tree, ctx, &s, u);
        const mbt_real f = fe->u.spring.stiffness * (l - fe->u.spring.free_length) + fe->u.spring.damping * ldot;
        const mbt_vec3 f_P = mbt_vec3_scale(u, f);
        mbt_spatial_force* FA = &forces->F_BBo_W[s.node_A];
        mbt_spatial_force* FB = &forces->F_BBo_W[s.node_B];
        FA->tau = mbt_vec3_add(FA->tau, mbt_vec3_cross(s.p_AoP_W, f_P));
        FA->f = mbt_vec3_add(FA->f, f_P);
        FB->tau = mbt_vec3_sub(FB->tau, mbt_vec3_cross(s.p_BoQ_W, f_P));
        FB->f = mbt_vec3_sub(FB->f, f_P);
        break;
      }
      case MBT_FORCE_REVOLUTE_SPRING: {
        int iq, iv;
        revolute_spring_dof(tree, fe, &iq, &iv);
        forces->tau[iv] -= fe->u.revolute_spring.stiffness * (ctx->q[iq] - fe->u.revolute_spring.nominal_angle);
        break;
      }
      case MBT_FORCE_USER:
        if (fe->u.user.fn) fe->u.user.fn(tree, ctx, fe->u.user.user_data, forces);
        break;
    }
  }
  for (int i = 0; i < tree->nv; ++i) forces->tau[i] -= ctx->damping[i] * ctx->v[i];
  /* The world does not move: nothing applied to it has any effect. */
  for (int i = 0; i < 6; ++i) forces->F_BBo_W[0].coeffs[i] = 0;
  return MBT_OK;
}

int mbt_calc_force_elements_contribution(const mbt_tree* tree, mbt_context* ctx, mbt_multibody_forces* forces) {
  int st = mbt__check_tree_context(tree, ctx, "calc_force_elements_contribution");
  if (st) return st;
  if (!forces)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_force_elements_contribution: forces is NULL");
  if (forces->num_bodies != tree->num_nodes || forces->nv != tree->nv)
    return mbt__context_error(ctx, MBT_ERR_SIZE,
                              "calc_force_elements_contribution: forces sized for %d bodies and %d velocities, "
                              "the tree has %d and %d", forces->num_bodies, forces->nv, tree->num_nodes, tree->nv);
  return mbt__calc_force_elements(tree, ctx, forces);
}

/* U = −g·Σ_B m_B·p_WBcm (mbt__mass_moments) + Σ_springs ½·k·(ℓ − ℓ0)² + Σ_revolute springs ½·k·(θ − θ0)². */
int mbt_calc_potential_energy(const mbt_tree* tree, mbt_context* ctx, mbt_real* U) {
  int st = mbt__check_tree_context(tree, ctx, "calc_potential_energy");
  if (st) return st;
  if (!U) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_potential_energy: U is NULL");
  mbt__ensure_position_kinematics(tree, ctx);
  mbt_real sum = 0, m;
  mbt_vec3 mp, mv;
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    switch (fe->type) {
      case MBT_FORCE_UNIFORM_GRAVITY:
        mbt__mass_moments(tree, ctx, false, &m, &mp, &mv);
        sum -= mbt_vec3_dot(ctx->g_W, mp);
        break;
      case MBT_FORCE_LINEAR_SPRING_DAMPER: {
        spring_geometry s;
        spring_points(tree, ctx, fe, &s);
        const mbt_real x = mbt_vec3_norm(mbt_vec3_sub(s.p_WQ, s.p_WP)) - fe->u.spring.free_length;
        sum += 0.5 * fe->u.spring.stiffness * x * x;
        break;
      }
      case MBT_FORCE_REVOLUTE_SPRING: {
        int iq, iv;
        revolute_spring_dof(tree, fe, &iq, &iv);
        const mbt_real x = ctx->q[iq] - fe->u.revolute_spring.nominal_angle;
        sum += 0.5 * fe->u.revolute_spring.stiffness * x * x;
        break;
      }
      case MBT_FORCE_USER:
        break;
    }
  }
  *U = sum;
  return MBT_OK;
}

/* Pc = −dU/dt = g·Σ_B m_B·v_WBcm (mbt__mass_moments) − Σ_springs k·(ℓ − ℓ0)·ℓ̇ − Σ_revolute springs k·(θ − θ0)·θ̇,
 * with v_WBcm = v_WBo + w_WB × p_BoBcm_W. */
int mbt_calc_conservative_power(const mbt_tree* tree, mbt_context* ctx, mbt_real* Pc) {
  int st = mbt__check_tree_context(tree, ctx, "calc_conservative_power");
  if (st) return st;
  if (!Pc) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_conservative_power: Pc is NULL");
  mbt__ensure_velocity_kinematics(tree, ctx);
  st = check_springs(tree, ctx, "calc_conservative_power");
  if (st) return st;
  mbt_real sum = 0, m;
  mbt_vec3 mp, mv;
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    switch (fe->type) {
      case MBT_FORCE_UNIFORM_GRAVITY:
        mbt__mass_moments(tree, ctx, true, &m, &mp, &mv);
        sum += mbt_vec3_dot(ctx->g_W, mv);
        break;
      case MBT_FORCE_LINEAR_SPRING_DAMPER: {
        spring_geometry s;
        spring_points(tree, ctx, fe, &s);
        const mbt_vec3 d = mbt_vec3_sub(s.p_WQ, s.p_WP);
        const mbt_real l = mbt_vec3_norm(d);
        const mbt_real ldot = spring_length_rate(tree, ctx, &s, mbt_vec3_scale(d, 1 / l));
        sum -= fe->u.spring.stiffness * (l - fe->u.spring.free_length) * ldot;
        break;
      }
      case MBT_FORCE_REVOLUTE_SPRING: {
        int iq, iv;
        revolute_spring_dof(tree, fe, &iq, &iv);
        sum -= fe->u.revolute_spring.stiffness * (ctx->q[iq] - fe->u.revolute_spring.nominal_angle) * ctx->v[iv];
        break;
      }
      case MBT_FORCE_USER:
        break;
    }
  }
  *Pc = sum;
  return MBT_OK;
}
