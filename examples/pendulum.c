/* A simple pendulum built by hand: inverse and forward dynamics at one state.
 * Build against an installed mbt:  cc pendulum.c $(pkg-config --cflags --libs mbt) -lm */
#include <stdio.h>
#include <mbt/mbt.h>

int main(void) {
  mbt_tree* tree = mbt_tree_create();
  /* A 2 kg point-like bob 0.5 m below the pivot, the rod along −z of the body frame. */
  mbt_rotational_inertia I_BBcm = {1e-3, 1e-3, 1e-3, 0, 0, 0};
  mbt_spatial_inertia M_BBo_B =
      mbt_spatial_inertia_from_com(2.0, mbt_vec3_make(0, 0, -0.5), &I_BBcm);
  int bob = mbt_tree_add_rigid_body(tree, "bob", &M_BBo_B);
  int pin = mbt_tree_add_revolute_joint(tree, "pin", mbt_tree_world_body(tree), NULL, bob, NULL,
                                        mbt_vec3_make(0, 1, 0), 0.0);
  if (bob < 0 || pin < 0 || mbt_tree_finalize(tree) != MBT_OK) {
    fprintf(stderr, "pendulum: %s\n", mbt_tree_last_error(tree));
    mbt_tree_destroy(tree);
    return 1;
  }
  mbt_context* ctx = mbt_context_create(tree);
  mbt_revolute_joint_set_angle(ctx, pin, 0.3);
  mbt_real vdot = 0, tau_g = 0;
  mbt_calc_gravity_generalized_forces(tree, ctx, &tau_g);
  int status = mbt_calc_forward_dynamics(tree, ctx, NULL, NULL, &vdot);
  printf("theta = 0.3 rad: tau_g = %.6f N·m, theta_ddot = %.6f rad/s² (%s)\n", tau_g, vdot,
         mbt_status_string(status));
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
  return status == MBT_OK ? 0 : 1;
}
