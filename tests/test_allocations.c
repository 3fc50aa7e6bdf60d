/* test_allocations.c: every Calc function of kinematics.h and dynamics.h (kinematics,
 * queries, Jacobians, maps, inverse dynamics, force elements, energies, mass matrices, bias, gravity) runs without
 * touching the heap, counted by the heap-call counter of support/test_util.h (malloc, calloc,
 * realloc and free interposed in this executable; AddressSanitizer's allocator hooks under
 * ASan). A first test proves the counter sees allocations. Contact steps (detection, the
 * contact problem by either solver, the step) allocate nothing either: the Panda pressed onto
 * the ground, where the contact set changes every few steps. */
#include "support/test_util.h"

#include "contact/contact_internal.h"

TU_DEFINE_HEAP_COUNTER();

static void test_counter_works(void** s) {
  (void)s;
  tu_require_heap_counter();
}

static void user_force(const mbt_tree* tree, mbt_context* ctx, void* ud, mbt_multibody_forces* forces) {
  (void)tree; (void)ctx; (void)ud;
  forces->tau[0] += 1;
}

static void run_all(mbt_tree* tree) {
  mbt_context* ctx = mbt_context_create(tree);
  mbt_multibody_forces* forces = mbt_multibody_forces_create(tree);
  assert_non_null(ctx);
  assert_non_null(forces);
  const int nv = mbt_tree_num_velocities(tree), nq = mbt_tree_num_positions(tree), nb = mbt_tree_num_bodies(tree);
  mbt_real* vd = calloc((size_t)nv, sizeof(mbt_real));
  mbt_real* tau = calloc((size_t)nv, sizeof(mbt_real));
  mbt_real* qdot = calloc((size_t)nq, sizeof(mbt_real));
  mbt_real* M = calloc((size_t)(nv * nv), sizeof(mbt_real));
  mbt_real* J = calloc((size_t)(6 * nv), sizeof(mbt_real));
  mbt_spatial_acceleration* A = calloc((size_t)nb, sizeof *A);
  mbt_spatial_force* F = calloc((size_t)nb, sizeof *F);
  mbt_spatial_velocity H[6];
  tu_rand_state(tree, ctx);
  tu_rand_array(vd, nv, 1);
  int st = 0;
  mbt_real x;
  mbt_vec3 p;
  mbt_transform X;
  mbt_spatial_velocity V;
  mbt_spatial_acceleration Ab;
  mbt_spatial_inertia Mi;
  mbt_spatial_momentum L;
  mbt_real pB[6] = {1, 2, 3, 4, 5, 6}, pA[6];
  const int body = nb - 1, frame = mbt_tree_num_frames(tree) - 1;

  tu_heap_count_begin();
  st |= mbt_calc_position_kinematics_cache(tree, ctx);
  st |= mbt_calc_velocity_kinematics_cache(tree, ctx);
  st |= mbt_calc_acceleration_kinematics_cache(tree, ctx, vd);
  st |= mbt_calc_spatial_accelerations_from_vdot(tree, ctx, vd, A);
  st |= mbt_context_body_pose_in_world(tree, ctx, body, &X);
  st |= mbt_context_body_spatial_velocity_in_world(tree, ctx, body, &V);
  st |= mbt_context_body_spatial_acceleration_in_world(tree, ctx, body, &Ab);
  st |= mbt_context_body_H_PB_W(tree, ctx, body, H);
  st |= mbt_context_body_spatial_inertia_in_world(tree, ctx, body, &Mi);
  st |= mbt_calc_relative_transform(tree, ctx, frame, 0, &X);
  st |= mbt_calc_points_positions(tree, ctx, frame, pB, 2, 0, pA, 2);
  st |= mbt_calc_frame_spatial_velocity_in_world(tree, ctx, frame, &V);
  st |= mbt_calc_jacobian_spatial_velocity(tree, ctx, frame, mbt_vec3_make(0.1, 0.2, 0.3), J);
  st |= mbt_map_velocity_to_qdot(tree, ctx, mbt_context_v(ctx), qdot);
  st |= mbt_map_qdot_to_velocity(tree, ctx, qdot, tau);
  st |= mbt_calc_center_of_mass_position(tree, ctx, &p);
  st |= mbt_calc_center_of_mass_velocity(tree, ctx, &p);
  st |= mbt_calc_spatial_momentum_in_world_about_point(tree, ctx, p, &L);
  st |= mbt_calc_force_elements_contribution(tree, ctx, forces);
  st |= mbt_calc_inverse_dynamics(tree, ctx, vd, forces->F_BBo_W, forces->tau, A, F, tau);
  st |= mbt_calc_inverse_dynamics(tree, ctx, vd, forces->F_BBo_W, forces->tau, NULL, forces->F_BBo_W, forces->tau);
  st |= mbt_calc_potential_energy(tree, ctx, &x);
  st |= mbt_calc_conservative_power(tree, ctx, &x);
  st |= mbt_calc_kinetic_energy(tree, ctx, &x);
  st |= mbt_calc_mass_matrix(tree, ctx, M);
  st |= mbt_calc_mass_matrix_via_inverse_dynamics(tree, ctx, M);
  st |= mbt_calc_bias_term(tree, ctx, tau);
  st |= mbt_calc_gravity_generalized_forces(tree, ctx, tau);
  /* Error paths format their message without the heap too. */
  const int err = mbt_calc_points_positions(tree, ctx, frame, pB, 2, 0, pA, 1);
  /* State changes invalidate the caches; recomputation allocates nothing either. */
  mbt_context_mutable_q(ctx)[0] += 0.1;
  st |= mbt_calc_kinetic_energy(tree, ctx, &x);
  const long n = tu_heap_count_end();

  assert_int_equal(st, MBT_OK);
  assert_int_equal(err, MBT_ERR_SIZE);
  if (n != 0) fail_msg("%ld heap calls inside the Calc functions", n);
  free(vd); free(tau); free(qdot); free(M); free(J); free(A); free(F);
  mbt_multibody_forces_destroy(forces);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_no_allocation_branched(void** s) {
  (void)s;
  tu_require_heap_counter();
  tu_seed(41);
  run_all(tu_make_branched_tree());
}

static void test_no_allocation_joints(void** s) {
  (void)s;
  tu_require_heap_counter();
  tu_seed(42);
  run_all(tu_make_joint_tree());
}

/* With a user force element (its callback is called inside the window). */
static void test_no_allocation_user(void** s) {
  (void)s;
  tu_require_heap_counter();
  tu_seed(43);
  mbt_tree* tree = mbt_tree_create();
  tu_add_chain(tree, "u", 4, false);
  assert_true(mbt_tree_add_user_force(tree, "user", user_force, NULL) >= 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  run_all(tree);
}

/* The Franka Panda falling onto the ground from a bent pose, stepped by time stepping with the
 * given contact solver: 0.5 s to reach the ground, then 0.5 s of contact counted. */
static void contact_steps_allocate_nothing(mbt_contact_solver_method method) {
  tu_require_heap_counter();
  mbt_urdf_result r;
  assert_int_equal(mbt_urdf_load_file(MBT_SOURCE_DIR "/models/panda.urdf", 0, &r), MBT_OK);
  mbt_contact_model* model = mbt_contact_model_create(r.tree);
  assert_true(mbt_contact_model_add_collision_geometry(model, NULL) > 0);
  assert_true(mbt_contact_model_add_ground(model, mbt_vec3_make(0, 0, 1), 0, NULL) >= 0);
  mbt_context* ctx = mbt_context_create(r.tree);
  const double q2 = 1.2;
  assert_int_equal(mbt_joint_set_positions(ctx, mbt_tree_joint_by_name(r.tree, "panda_joint2"), &q2, 1), MBT_OK);
  mbt_simulator_options opt = mbt_simulator_default_options();
  opt.integrator = MBT_INTEGRATOR_TIME_STEPPING;
  mbt_simulator* sim = mbt_simulator_create(r.tree, ctx, &opt);
  assert_int_equal(mbt_simulator_set_contact_model(sim, model), MBT_OK);
  assert_int_equal(mbt_simulator_set_contact_solver_method(sim, method), MBT_OK);
  assert_int_equal(mbt_simulator_advance_to(sim, 0.5), MBT_OK);
  const mbt_simulator_stats before = mbt_simulator_get_stats(sim);
  tu_heap_count_begin();
  const int st = mbt_simulator_advance_to(sim, 1.0);
  const long n = tu_heap_count_end();
  assert_int_equal(st, MBT_OK);
  assert_true(mbt_simulator_get_stats(sim).contact_points - before.contact_points > 500);
  if (n != 0) fail_msg("%ld heap calls while stepping with contact", n);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(model);
  mbt_urdf_result_free(&r);
}

static void test_no_allocation_contact_sap(void** s) {
  (void)s;
  if (!mbt__mesh_hulls_available()) skip();
  contact_steps_allocate_nothing(MBT_CONTACT_SOLVER_SAP);
}

static void test_no_allocation_contact_pgs(void** s) {
  (void)s;
  if (!mbt__mesh_hulls_available()) skip();
  contact_steps_allocate_nothing(MBT_CONTACT_SOLVER_PGS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counter_works),
      cmocka_unit_test(test_no_allocation_branched),
      cmocka_unit_test(test_no_allocation_joints),
      cmocka_unit_test(test_no_allocation_user),
      cmocka_unit_test(test_no_allocation_contact_sap),
      cmocka_unit_test(test_no_allocation_contact_pgs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
