/* bench_mujoco_none.c: the MuJoCo side when MuJoCo was not found at configure time
 * (scripts/install-deps.sh --bench installs libmujoco-dev). */
#include "bench.h"

bool mbt_bench_mujoco_available(void) { return false; }
const char* mbt_bench_mujoco_version(void) { return ""; }

mbt_bench_mj* mbt_bench_mj_create(const char* urdf_path, const char* urdf_text, bool floating,
                                  const mbt_tree* tree, const mbt_bench_states* states, char* err,
                                  size_t err_size) {
  (void)urdf_path;
  (void)urdf_text;
  (void)floating;
  (void)tree;
  (void)states;
  snprintf(err, err_size,
           "MuJoCo was not found when mbt was configured (install libmujoco-dev: "
           "scripts/install-deps.sh --bench, then reconfigure)");
  return NULL;
}
void mbt_bench_mj_destroy(mbt_bench_mj* b) { (void)b; }
mbt_bench_fn mbt_bench_mj_op(mbt_bench_op op) {
  (void)op;
  return NULL;
}
const char* mbt_bench_mj_extra_name(mbt_bench_mj_extra e) {
  (void)e;
  return "?";
}
mbt_bench_fn mbt_bench_mj_extra_fn(mbt_bench_mj_extra e) {
  (void)e;
  return NULL;
}
void mbt_bench_mj_prepare_extra(mbt_bench_mj* b, mbt_bench_mj_extra e) {
  (void)b;
  (void)e;
}
int mbt_bench_mj_eval(mbt_bench_mj* b, int k, double* tau_id, double* M, double* vdot, mbt_transform* X_WB,
                      bool* found) {
  (void)b;
  (void)k;
  (void)tau_id;
  (void)M;
  (void)vdot;
  (void)X_WB;
  (void)found;
  return MBT_ERR_NOT_FOUND;
}
double mbt_bench_mj_inertia_error(const mbt_bench_mj* b) {
  (void)b;
  return 0;
}
