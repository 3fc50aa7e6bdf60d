/* parameters.c: the public setters and getters of the per-context parameters (mbt/parameters.h)
 * on the context's M_BBo_B[node] and g_W (context_internal.h): each setter checks its value,
 * writes the parameter, and has the merged inertia of the body's local node recomputed. */
#include <stdio.h>

#include "mbt/parameters.h"
#include "tree/context_internal.h"

/* The body's node, or a status with the message in the context. */
static int body_node(const mbt_context* ctx, int body, const char* what) {
  if (!ctx) return MBT_ERR_INVALID_ARGUMENT;
  const mbt_tree* tree = ctx->tree;
  if (body < 0 || body >= tree->num_bodies)
    return mbt__context_error(ctx, MBT_ERR_NOT_FOUND, "%s: no body with index %d", what, body);
  if (body == 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: the world body has no inertia", what);
  return tree->bodies[body].node;
}

/* Checks M and makes it the body's inertia in the context. */
static int set_inertia(mbt_context* ctx, int node, const mbt_spatial_inertia* M, const char* what) {
  char why[256];
  const char* name = ctx->tree->bodies[ctx->tree->nodes[node].body].name;
  if (!mbt_spatial_inertia_is_physically_valid(M, why, sizeof why))
    return mbt__context_error(ctx, MBT_ERR_NONPHYSICAL, "%s: body '%s': %s; unchanged", what, name, why);
  ctx->M_BBo_B[node] = *M;
  mbt__context_update_body_inertia(ctx, node);
  return MBT_OK;
}

int mbt_body_get_spatial_inertia(const mbt_context* ctx, int body, mbt_spatial_inertia* M_BBo_B) {
  const int node = body_node(ctx, body, "mbt_body_get_spatial_inertia");
  if (node < 0) return node;
  if (!M_BBo_B) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "mbt_body_get_spatial_inertia: output is NULL");
  *M_BBo_B = ctx->M_BBo_B[node];
  return MBT_OK;
}

int mbt_body_set_spatial_inertia(mbt_context* ctx, int body, const mbt_spatial_inertia* M_BBo_B) {
  const char* what = "mbt_body_set_spatial_inertia";
  const int node = body_node(ctx, body, what);
  if (node < 0) return node;
  if (!M_BBo_B) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: the inertia is NULL", what);
  return set_inertia(ctx, node, M_BBo_B, what);
}

int mbt_body_get_mass(const mbt_context* ctx, int body, mbt_real* mass) {
  const int node = body_node(ctx, body, "mbt_body_get_mass");
  if (node < 0) return node;
  if (!mass) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "mbt_body_get_mass: output is NULL");
  *mass = ctx->M_BBo_B[node].mass;
  return MBT_OK;
}

/* Only the mass is checked: G_BBo_B and the center of mass stay what they were. */
int mbt_body_set_mass(mbt_context* ctx, int body, mbt_real mass) {
  const char* what = "mbt_body_set_mass";
  const int node = body_node(ctx, body, what);
  if (node < 0) return node;
  if (!(mbt_isfinite(mass) && mbt_le(0, mass)))
    return mbt__context_error(ctx, MBT_ERR_NONPHYSICAL, "%s: body '%s': the mass must be finite and >= 0 (got %g); "
                              "unchanged", what, ctx->tree->bodies[body].name, mbt_value(mass));
  ctx->M_BBo_B[node].mass = mass;
  mbt__context_update_body_inertia(ctx, node);
  return MBT_OK;
}

int mbt_body_get_center_of_mass(const mbt_context* ctx, int body, mbt_vec3* p_BoBcm_B) {
  const int node = body_node(ctx, body, "mbt_body_get_center_of_mass");
  if (node < 0) return node;
  if (!p_BoBcm_B) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "mbt_body_get_center_of_mass: output is NULL");
  *p_BoBcm_B = ctx->M_BBo_B[node].p_PScm_E;
  return MBT_OK;
}

int mbt_body_set_center_of_mass(mbt_context* ctx, int body, mbt_vec3 p_BoBcm_B) {
  const char* what = "mbt_body_set_center_of_mass";
  const int node = body_node(ctx, body, what);
  if (node < 0) return node;
  mbt_spatial_inertia M = ctx->M_BBo_B[node];
  M.p_PScm_E = p_BoBcm_B;
  return set_inertia(ctx, node, &M, what);
}

/* G_BBo = G_BBcm + pt(p_BoBcm_new), G_BBcm = G_BBo_old − pt(p_BoBcm_old) (parallel axes). */
int mbt_body_set_center_of_mass_preserving_central_inertia(mbt_context* ctx, int body, mbt_vec3 p_BoBcm_B) {
  const char* what = "mbt_body_set_center_of_mass_preserving_central_inertia";
  const int node = body_node(ctx, body, what);
  if (node < 0) return node;
  const mbt_spatial_inertia* old = &ctx->M_BBo_B[node];
  const mbt_unit_inertia G_BBcm = mbt_unit_inertia_shift_to_com(&old->G_SP_E, old->p_PScm_E);
  mbt_spatial_inertia M = *old;
  M.p_PScm_E = p_BoBcm_B;
  M.G_SP_E = mbt_unit_inertia_shift_from_com(&G_BBcm, mbt_vec3_scale(p_BoBcm_B, -1));
  return set_inertia(ctx, node, &M, what);
}

mbt_vec3 mbt_context_gravity(const mbt_context* ctx) { return ctx ? ctx->g_W : mbt_vec3_zero(); }

int mbt_context_set_gravity(mbt_context* ctx, mbt_vec3 g_W) {
  if (!ctx) return MBT_ERR_INVALID_ARGUMENT;
  for (int i = 0; i < 3; ++i)
    if (!mbt_isfinite(g_W.v[i]))
      return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "mbt_context_set_gravity: g_W must be finite "
                                "(got %g, %g, %g); unchanged", mbt_value(g_W.v[0]), mbt_value(g_W.v[1]),
                                mbt_value(g_W.v[2]));
  ctx->g_W = g_W;
  /* Gravity enters no cache: the algorithms read it when they run. */
  return MBT_OK;
}
