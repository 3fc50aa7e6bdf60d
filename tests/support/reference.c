/* reference.c: the reference dynamics files (tests/reference/<label>.json) read with cJSON. */
#define _POSIX_C_SOURCE 200809L
#include "support/reference.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "support/test_util.h"

static int err(mbt_ref_model* ref, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ref->error, sizeof ref->error, fmt, ap);
  va_end(ap);
  return -1;
}

static char* dup_string(const char* s) {
  size_t n = strlen(s) + 1;
  char* c = malloc(n);
  if (c) memcpy(c, s, n);
  return c;
}

static char* read_text(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t len = 0, cap = 1 << 16;
  char* buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) break;
    if (cap - len - 1 == 0) {
      char* nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  if (buf && ferror(f)) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[len] = '\0';
  return buf;
}

static int get_string(mbt_ref_model* ref, const cJSON* obj, const char* key, char** out) {
  const cJSON* it = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsString(it)) return err(ref, "field '%s' is missing or not a string", key);
  *out = dup_string(it->valuestring);
  return *out ? 0 : err(ref, "out of memory");
}

static int get_number(mbt_ref_model* ref, const cJSON* obj, const char* key, double* out) {
  const cJSON* it = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsNumber(it)) return err(ref, "field '%s' is missing or not a number", key);
  *out = it->valuedouble;
  return 0;
}

/* A JSON array of n numbers into out. */
static int get_numbers(mbt_ref_model* ref, const cJSON* arr, double* out, int n, const char* what) {
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != n)
    return err(ref, "%s: expected an array of %d numbers", what, n);
  int k = 0;
  const cJSON* x;
  cJSON_ArrayForEach(x, arr) {
    if (!cJSON_IsNumber(x)) return err(ref, "%s: element %d is not a number", what, k);
    out[k++] = x->valuedouble;
  }
  return 0;
}

static int get_string_list(mbt_ref_model* ref, const cJSON* arr, char*** out, int* n, const char* what) {
  if (!cJSON_IsArray(arr)) return err(ref, "%s: expected an array of strings", what);
  *n = cJSON_GetArraySize(arr);
  *out = calloc((size_t)(*n > 0 ? *n : 1), sizeof(char*));
  if (!*out) return err(ref, "out of memory");
  int k = 0;
  const cJSON* x;
  cJSON_ArrayForEach(x, arr) {
    if (!cJSON_IsString(x)) return err(ref, "%s: element %d is not a string", what, k);
    if (!((*out)[k++] = dup_string(x->valuestring))) return err(ref, "out of memory");
  }
  return 0;
}

/* A dict keyed by joint name into a flat vector in joints order; use_q picks the q slices. */
static int get_joint_vector(mbt_ref_model* ref, const cJSON* state, const char* key, bool use_q, bool nullable,
                            double** out) {
  const cJSON* obj = cJSON_GetObjectItemCaseSensitive(state, key);
  *out = NULL;
  if (nullable && cJSON_IsNull(obj)) return 0;
  if (!cJSON_IsObject(obj)) return err(ref, "state field '%s' is missing or not an object", key);
  const int n = use_q ? ref->nq : ref->nv;
  *out = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
  if (!*out) return err(ref, "out of memory");
  if (cJSON_GetArraySize(obj) != ref->num_joints)
    return err(ref, "state field '%s' has %d joints, expected %d", key, cJSON_GetArraySize(obj), ref->num_joints);
  for (int j = 0; j < ref->num_joints; ++j) {
    const mbt_ref_joint* J = &ref->joints[j];
    char what[160];
    snprintf(what, sizeof what, "state field '%s', joint '%s'", key, J->name);
    const cJSON* arr = cJSON_GetObjectItemCaseSensitive(obj, J->name);
    if (!arr) return err(ref, "%s: missing", what);
    if (get_numbers(ref, arr, *out + (use_q ? J->q_start : J->v_start), use_q ? J->nq : J->nv, what)) return -1;
  }
  return 0;
}

/* Index in v of a dof label "joint" (nv = 1) or "joint:k". */
static int dof_index(const mbt_ref_model* ref, const char* label) {
  const char* colon = strrchr(label, ':');
  size_t n = colon ? (size_t)(colon - label) : strlen(label);
  for (int j = 0; j < ref->num_joints; ++j) {
    const mbt_ref_joint* J = &ref->joints[j];
    if (strlen(J->name) != n || strncmp(J->name, label, n) != 0) continue;
    if (!colon) return J->nv == 1 ? J->v_start : -1;
    char* end = NULL;
    long k = strtol(colon + 1, &end, 10);
    if (*end || k < 0 || k >= J->nv) return -1;
    return J->v_start + (int)k;
  }
  /* A joint name containing ':' with nv = 1. */
  for (int j = 0; j < ref->num_joints; ++j)
    if (strcmp(ref->joints[j].name, label) == 0 && ref->joints[j].nv == 1) return ref->joints[j].v_start;
  return -1;
}

static int load_mass_matrix(mbt_ref_model* ref, const cJSON* state, double** out) {
  const int nv = ref->nv;
  const cJSON* mm = cJSON_GetObjectItemCaseSensitive(state, "mass_matrix");
  const cJSON* dofs = cJSON_GetObjectItemCaseSensitive(mm, "dofs");
  const cJSON* values = cJSON_GetObjectItemCaseSensitive(mm, "values");
  if (!cJSON_IsArray(dofs) || cJSON_GetArraySize(dofs) != nv || !cJSON_IsArray(values) ||
      cJSON_GetArraySize(values) != nv)
    return err(ref, "mass_matrix: expected %d dofs and %d rows", nv, nv);
  int idx[256];
  if (nv > 256) return err(ref, "mass_matrix: nv %d is too large", nv);
  int k = 0;
  const cJSON* d;
  cJSON_ArrayForEach(d, dofs) {
    if (!cJSON_IsString(d) || (idx[k] = dof_index(ref, d->valuestring)) < 0)
      return err(ref, "mass_matrix: unknown dof label %d", k);
    for (int i = 0; i < k; ++i)
      if (idx[i] == idx[k]) return err(ref, "mass_matrix: dof label '%s' repeats", d->valuestring);
    ++k;
  }
  *out = calloc((size_t)(nv > 0 ? nv * nv : 1), sizeof(double));
  double* row = malloc((size_t)(nv > 0 ? nv : 1) * sizeof(double));
  if (!*out || !row) {
    free(row);
    return err(ref, "out of memory");
  }
  int i = 0;
  const cJSON* r;
  cJSON_ArrayForEach(r, values) {
    if (get_numbers(ref, r, row, nv, "mass_matrix row")) {
      free(row);
      return -1;
    }
    for (int j = 0; j < nv; ++j) (*out)[idx[i] * nv + idx[j]] = row[j];
    ++i;
  }
  free(row);
  return 0;
}

static int load_pose(mbt_ref_model* ref, const cJSON* poses, const char* link, mbt_ref_pose* out) {
  const cJSON* pose = cJSON_GetObjectItemCaseSensitive(poses, link);
  if (!cJSON_IsObject(pose)) return err(ref, "link_poses: link '%s' is missing", link);
  if (get_numbers(ref, cJSON_GetObjectItemCaseSensitive(pose, "p_WB"), out->p_WB, 3, "p_WB")) return -1;
  const cJSON* R = cJSON_GetObjectItemCaseSensitive(pose, "R_WB");
  if (!cJSON_IsArray(R) || cJSON_GetArraySize(R) != 3) return err(ref, "link '%s': R_WB is not 3 rows", link);
  for (int i = 0; i < 3; ++i)
    if (get_numbers(ref, cJSON_GetArrayItem(R, i), out->R_WB[i], 3, "R_WB row")) return -1;
  return 0;
}

static int load_state(mbt_ref_model* ref, const cJSON* js, mbt_ref_state* s) {
  double index = 0;
  if (get_number(ref, js, "index", &index)) return -1;
  s->index = (int)index;
  if (get_joint_vector(ref, js, "q", true, false, &s->q) || get_joint_vector(ref, js, "v", false, false, &s->v) ||
      get_joint_vector(ref, js, "vdot", false, false, &s->vdot) ||
      get_joint_vector(ref, js, "tau_id", false, false, &s->tau_id) ||
      get_joint_vector(ref, js, "bias", false, false, &s->bias) ||
      get_joint_vector(ref, js, "gravity_generalized_forces", false, false, &s->gravity_generalized_forces) ||
      get_joint_vector(ref, js, "tau", false, false, &s->tau) ||
      get_joint_vector(ref, js, "qdd", false, true, &s->qdd) || load_mass_matrix(ref, js, &s->mass_matrix) ||
      get_number(ref, js, "potential_energy", &s->potential_energy) ||
      get_number(ref, js, "potential_energy_moving_bodies", &s->potential_energy_moving_bodies) ||
      get_number(ref, js, "kinetic_energy", &s->kinetic_energy))
    return -1;
  const cJSON* cond = cJSON_GetObjectItemCaseSensitive(js, "mass_matrix_condition");
  s->has_condition = cJSON_IsNumber(cond);
  s->mass_matrix_condition = s->has_condition ? cond->valuedouble : 0;
  const cJSON* poses = cJSON_GetObjectItemCaseSensitive(js, "link_poses");
  if (!cJSON_IsObject(poses) || cJSON_GetArraySize(poses) != ref->num_links)
    return err(ref, "link_poses: expected %d links", ref->num_links);
  s->link_poses = calloc((size_t)(ref->num_links > 0 ? ref->num_links : 1), sizeof(mbt_ref_pose));
  if (!s->link_poses) return err(ref, "out of memory");
  for (int l = 0; l < ref->num_links; ++l)
    if (load_pose(ref, poses, ref->link_names[l], &s->link_poses[l])) return -1;
  return 0;
}

static int load_model(mbt_ref_model* ref, const cJSON* root) {
  if (get_string(ref, root, "model", &ref->model) || get_string(ref, root, "urdf", &ref->urdf)) return -1;
  char* root_kind = NULL;
  if (get_string(ref, root, "root", &root_kind)) return -1;
  ref->floating = strcmp(root_kind, "floating") == 0;
  const bool fixed = strcmp(root_kind, "fixed") == 0;
  free(root_kind);
  if (!ref->floating && !fixed) return err(ref, "root must be \"fixed\" or \"floating\"");
  if (get_numbers(ref, cJSON_GetObjectItemCaseSensitive(root, "gravity"), ref->gravity, 3, "gravity")) return -1;
  const cJSON* joints = cJSON_GetObjectItemCaseSensitive(root, "joints");
  if (!cJSON_IsArray(joints)) return err(ref, "joints: expected an array");
  ref->num_joints = cJSON_GetArraySize(joints);
  ref->joints = calloc((size_t)(ref->num_joints > 0 ? ref->num_joints : 1), sizeof(mbt_ref_joint));
  if (!ref->joints) return err(ref, "out of memory");
  int j = 0;
  const cJSON* jj;
  cJSON_ArrayForEach(jj, joints) {
    mbt_ref_joint* J = &ref->joints[j++];
    double nq = 0, nv = 0;
    if (get_string(ref, jj, "name", &J->name) || get_string(ref, jj, "type", &J->type) ||
        get_number(ref, jj, "nq", &nq) || get_number(ref, jj, "nv", &nv) ||
        get_string(ref, jj, "parent_link", &J->parent_link) || get_string(ref, jj, "child_link", &J->child_link))
      return -1;
    J->nq = (int)nq;
    J->nv = (int)nv;
    if (J->nq < 0 || J->nq > 7 || J->nv < 0 || J->nv > 6) return err(ref, "joint '%s': bad nq/nv", J->name);
    J->q_start = ref->nq;
    J->v_start = ref->nv;
    ref->nq += J->nq;
    ref->nv += J->nv;
  }
  if (get_string_list(ref, cJSON_GetObjectItemCaseSensitive(root, "fixed_joints"), &ref->fixed_joints,
                      &ref->num_fixed_joints, "fixed_joints") ||
      get_string_list(ref, cJSON_GetObjectItemCaseSensitive(root, "massless_links"), &ref->massless_links,
                      &ref->num_massless_links, "massless_links"))
    return -1;
  const cJSON* welded = cJSON_GetObjectItemCaseSensitive(root, "world_welded_links");
  if (get_string_list(ref, cJSON_GetObjectItemCaseSensitive(welded, "links"), &ref->world_welded_links,
                      &ref->num_world_welded_links, "world_welded_links.links") ||
      get_number(ref, welded, "mass", &ref->world_welded_mass) ||
      get_number(ref, welded, "potential_energy", &ref->world_welded_potential_energy))
    return -1;
  const cJSON* states = cJSON_GetObjectItemCaseSensitive(root, "states");
  if (!cJSON_IsArray(states) || cJSON_GetArraySize(states) == 0) return err(ref, "states: expected a non-empty array");
  /* The links of the first state name the poses of every state. */
  const cJSON* poses0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(states, 0), "link_poses");
  if (!cJSON_IsObject(poses0)) return err(ref, "state 0: link_poses is not an object");
  ref->num_links = cJSON_GetArraySize(poses0);
  ref->link_names = calloc((size_t)(ref->num_links > 0 ? ref->num_links : 1), sizeof(char*));
  if (!ref->link_names) return err(ref, "out of memory");
  int l = 0;
  const cJSON* lp;
  cJSON_ArrayForEach(lp, poses0) {
    if (!(ref->link_names[l++] = dup_string(lp->string))) return err(ref, "out of memory");
  }
  ref->num_states = cJSON_GetArraySize(states);
  ref->states = calloc((size_t)ref->num_states, sizeof(mbt_ref_state));
  if (!ref->states) return err(ref, "out of memory");
  int k = 0;
  const cJSON* st;
  cJSON_ArrayForEach(st, states) {
    if (load_state(ref, st, &ref->states[k])) {
      char why[sizeof ref->error];
      snprintf(why, sizeof why, "%s", ref->error);
      return err(ref, "state %d: %s", k, why);
    }
    ++k;
  }
  return 0;
}

int mbt_ref_load(const char* path, mbt_ref_model* ref) {
  memset(ref, 0, sizeof *ref);
  char* text = read_text(path);
  if (!text) return err(ref, "%s: cannot read the file", path);
  cJSON* root = cJSON_Parse(text);
  free(text);
  if (!root) return err(ref, "%s: invalid JSON", path);
  int s = cJSON_IsObject(root) ? load_model(ref, root) : err(ref, "%s: not a JSON object", path);
  cJSON_Delete(root);
  if (s) {
    char why[sizeof ref->error];
    snprintf(why, sizeof why, "%s", ref->error);
    mbt_ref_free(ref);
    err(ref, "%s: %s", path, why);
    return -1;
  }
  return 0;
}

static void free_list(char** list, int n) {
  if (!list) return;
  for (int i = 0; i < n; ++i) free(list[i]);
  free(list);
}

void mbt_ref_free(mbt_ref_model* ref) {
  if (!ref) return;
  free(ref->model);
  free(ref->urdf);
  if (ref->joints)
    for (int j = 0; j < ref->num_joints; ++j) {
      free(ref->joints[j].name);
      free(ref->joints[j].type);
      free(ref->joints[j].parent_link);
      free(ref->joints[j].child_link);
    }
  free(ref->joints);
  free_list(ref->fixed_joints, ref->num_fixed_joints);
  free_list(ref->massless_links, ref->num_massless_links);
  free_list(ref->world_welded_links, ref->num_world_welded_links);
  free_list(ref->link_names, ref->num_links);
  if (ref->states)
    for (int k = 0; k < ref->num_states; ++k) {
      mbt_ref_state* s = &ref->states[k];
      free(s->q);
      free(s->v);
      free(s->vdot);
      free(s->tau_id);
      free(s->bias);
      free(s->gravity_generalized_forces);
      free(s->tau);
      free(s->qdd);
      free(s->mass_matrix);
      free(s->link_poses);
    }
  free(ref->states);
  memset(ref, 0, sizeof *ref);
}

int mbt_ref_joint_index(const mbt_ref_model* ref, const char* name) {
  for (int j = 0; j < ref->num_joints; ++j)
    if (strcmp(ref->joints[j].name, name) == 0) return j;
  return -1;
}

int mbt_ref_link_index(const mbt_ref_model* ref, const char* name) {
  for (int l = 0; l < ref->num_links; ++l)
    if (strcmp(ref->link_names[l], name) == 0) return l;
  return -1;
}

/* ---- a reference model with its URDF --------------------------------------------------- */
static int setup_err(mbt_ref_setup* s, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->error, sizeof s->error, fmt, ap);
  va_end(ap);
  return -1;
}

static int setup_maps(mbt_ref_setup* s, const char* label) {
  const mbt_tree* tree = s->urdf.tree;
  const mbt_ref_model* ref = &s->ref;
  s->nq = mbt_tree_num_positions(tree);
  s->nv = mbt_tree_num_velocities(tree);
  if (s->nq != ref->nq || s->nv != ref->nv)
    return setup_err(s, "%s: mbt has nq %d, nv %d; the reference %d, %d", label, s->nq, s->nv, ref->nq, ref->nv);
  const mbt_vec3 g = mbt_tree_gravity(tree);
  for (int k = 0; k < 3; ++k)
    if (g.v[k] != ref->gravity[k]) return setup_err(s, "%s: gravity differs", label);
  s->qmap = malloc((size_t)(s->nq > 0 ? s->nq : 1) * sizeof(int));
  s->vmap = malloc((size_t)(s->nv > 0 ? s->nv : 1) * sizeof(int));
  s->link_body = malloc((size_t)(ref->num_links > 0 ? ref->num_links : 1) * sizeof(int));
  s->q = calloc((size_t)(s->nq > 0 ? s->nq : 1), sizeof(double));
  s->v = calloc((size_t)(s->nv > 0 ? s->nv : 1), sizeof(double));
  int* seen = calloc((size_t)(s->nv > 0 ? s->nv : 1), sizeof(int));
  if (!s->qmap || !s->vmap || !s->link_body || !s->q || !s->v || !seen) {
    free(seen);
    return setup_err(s, "out of memory");
  }
  for (int j = 0; j < ref->num_joints; ++j) {
    const mbt_ref_joint* J = &ref->joints[j];
    const int mj = mbt_tree_joint_by_name(tree, J->name);
    if (mj < 0) {
      free(seen);
      return setup_err(s, "%s: joint '%s' is not in the mbt tree", label, J->name);
    }
    const mbt_joint_type type = mbt_joint_type_of(tree, mj);
    const mbt_joint_type want = strcmp(J->type, "floating") == 0    ? MBT_JOINT_QUATERNION_FLOATING
                                : strcmp(J->type, "prismatic") == 0 ? MBT_JOINT_PRISMATIC
                                                                    : MBT_JOINT_REVOLUTE;
    if (type != want || mbt_joint_num_positions(tree, mj) != J->nq || mbt_joint_num_velocities(tree, mj) != J->nv) {
      free(seen);
      return setup_err(s, "%s: joint '%s' is a %s joint with nq %d, nv %d in mbt; %s with %d, %d in the reference",
                       label, J->name, mbt_joint_type_to_string(type), mbt_joint_num_positions(tree, mj),
                       mbt_joint_num_velocities(tree, mj), J->type, J->nq, J->nv);
    }
    for (int k = 0; k < J->nq; ++k) s->qmap[J->q_start + k] = mbt_joint_position_start(tree, mj) + k;
    for (int k = 0; k < J->nv; ++k) {
      const int iv = mbt_joint_velocity_start(tree, mj) + k;
      s->vmap[J->v_start + k] = iv;
      if (iv < 0 || iv >= s->nv || seen[iv]++) {
        free(seen);
        return setup_err(s, "%s: joint '%s': bad velocity slice", label, J->name);
      }
    }
  }
  free(seen);
  for (int j = 0; j < ref->num_fixed_joints; ++j) {
    const int mj = mbt_tree_joint_by_name(tree, ref->fixed_joints[j]);
    if (mj < 0 || mbt_joint_type_of(tree, mj) != MBT_JOINT_WELD)
      return setup_err(s, "%s: fixed joint '%s' is not a weld in mbt", label, ref->fixed_joints[j]);
  }
  bool has_world = false;
  for (int l = 0; l < ref->num_links; ++l) {
    s->link_body[l] = mbt_tree_body_by_name(tree, ref->link_names[l]);
    if (s->link_body[l] < 0) return setup_err(s, "%s: link '%s' is not an mbt body", label, ref->link_names[l]);
    if (s->link_body[l] == 0) has_world = true;
  }
  if (mbt_tree_num_bodies(tree) != ref->num_links + (has_world ? 0 : 1))
    return setup_err(s, "%s: mbt has %d bodies for %d links", label, mbt_tree_num_bodies(tree), ref->num_links);
  s->same_order = true;
  for (int i = 0; i < s->nq; ++i) s->same_order = s->same_order && s->qmap[i] == i;
  for (int i = 0; i < s->nv; ++i) s->same_order = s->same_order && s->vmap[i] == i;
  return 0;
}

int mbt_ref_setup_load(const char* reference_dir, const char* models_dir, const char* label, mbt_ref_setup* s) {
  memset(s, 0, sizeof *s);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.json", reference_dir, label);
  if (mbt_ref_load(path, &s->ref)) {
    setup_err(s, "%s", s->ref.error);
    return -1;
  }
  int status = 0;
  snprintf(path, sizeof path, "%s/%s", models_dir, s->ref.urdf);
  if (strcmp(s->ref.model, label) != 0)
    status = setup_err(s, "%s: the file's model is '%s'", label, s->ref.model);
  else if (mbt_urdf_load_file(path, s->ref.floating ? MBT_URDF_FLOATING : 0, &s->urdf) != MBT_OK)
    status = setup_err(s, "%s", s->urdf.error);
  else
    status = setup_maps(s, label);
  if (status) {
    char why[sizeof s->error];
    memcpy(why, s->error, sizeof why);
    mbt_ref_setup_free(s);
    memcpy(s->error, why, sizeof why);
  }
  return status;
}

void mbt_ref_setup_free(mbt_ref_setup* s) {
  if (!s) return;
  free(s->qmap);
  free(s->vmap);
  free(s->link_body);
  free(s->q);
  free(s->v);
  mbt_urdf_result_free(&s->urdf);
  mbt_ref_free(&s->ref);
  memset(s, 0, sizeof *s);
}

void mbt_ref_q_to_mbt(const mbt_ref_setup* s, const double* ref_q, double* q) {
  for (int i = 0; i < s->nq; ++i) q[s->qmap[i]] = ref_q[i];
}

void mbt_ref_v_to_mbt(const mbt_ref_setup* s, const double* ref_v, double* v) {
  for (int i = 0; i < s->nv; ++i) v[s->vmap[i]] = ref_v[i];
}

void mbt_ref_v_from_mbt(const mbt_ref_setup* s, const double* v, double* ref_v) {
  for (int i = 0; i < s->nv; ++i) ref_v[i] = v[s->vmap[i]];
}

void mbt_ref_matrix_from_mbt(const mbt_ref_setup* s, const double* M, double* ref_M) {
  for (int i = 0; i < s->nv; ++i)
    for (int j = 0; j < s->nv; ++j) ref_M[i * s->nv + j] = M[s->vmap[i] * s->nv + s->vmap[j]];
}

/* ---- the reference files ----------------------------------------------------------------- */
static int compare_names(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

int mbt_ref_list_labels(const char* dir, char*** labels) {
  *labels = NULL;
  DIR* d = opendir(dir);
  if (!d) return -1;
  int n = 0, cap = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    const size_t len = strlen(e->d_name);
    if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 8;
      char** nl = realloc(*labels, (size_t)cap * sizeof(char*));
      if (!nl) break;
      *labels = nl;
    }
    char* label = malloc(len - 4);
    if (!label) break;
    memcpy(label, e->d_name, len - 5);
    label[len - 5] = '\0';
    (*labels)[n++] = label;
  }
  closedir(d);
  if (n > 0) qsort(*labels, (size_t)n, sizeof(char*), compare_names);
  return n;
}

void mbt_ref_free_labels(char** labels, int n) { free_list(labels, n); }

/* ---- for the cmocka tests ---------------------------------------------------------------- */
void mbt_ref_setup_load_or_fail(const char* label, mbt_ref_setup* s) {
  if (mbt_ref_setup_load(MBT_REF_DIR, MBT_REF_MODELS_DIR, label, s)) print_error("%s\n", s->error);
  assert_string_equal(s->error, "");
}

mbt_context* mbt_ref_context_create(const char* label, mbt_ref_setup* s) {
  mbt_ref_setup_load_or_fail(label, s);
  mbt_context* ctx = mbt_context_create(s->urdf.tree);
  assert_non_null(ctx);
  tu_zero_joint_damping(s->urdf.tree, ctx);
  return ctx;
}

void mbt_ref_set_state(mbt_ref_setup* s, const mbt_ref_state* st, mbt_context* ctx) {
  mbt_ref_q_to_mbt(s, st->q, s->q);
  mbt_ref_v_to_mbt(s, st->v, s->v);
  assert_int_equal(mbt_context_set_q(ctx, s->q, s->nq), MBT_OK);
  assert_int_equal(mbt_context_set_v(ctx, s->v, s->nv), MBT_OK);
}

double mbt_ref_scaled_error(const double* x, const double* x_ref, int n) {
  double err = 0, norm = 0;
  for (int i = 0; i < n; ++i) {
    const double d = fabs(x[i] - x_ref[i]);
    err = isnan(d) || d > err ? d : err;
    norm = fmax(norm, fabs(x_ref[i]));
  }
  return err / fmax(norm, 1e-3);
}

int mbt_ref_run_per_label(const char* group, void (*check)(void** state)) {
  enum { MAX_MODELS = 32 };
  char** labels = NULL;
  const int n = mbt_ref_list_labels(MBT_REF_DIR, &labels);
  /* The five models of tests/reference/README.md must all be there. */
  if (n < 5 || n > MAX_MODELS) {
    fprintf(stderr, "%d reference files in %s, expected 5 to %d\n", n, MBT_REF_DIR, (int)MAX_MODELS);
    mbt_ref_free_labels(labels, n);
    return 1;
  }
  struct CMUnitTest tests[MAX_MODELS];
  for (int i = 0; i < n; ++i) {
    memset(&tests[i], 0, sizeof tests[i]);
    tests[i].name = labels[i];
    tests[i].test_func = check;
    tests[i].initial_state = labels[i];
  }
  const int failed = _cmocka_run_group_tests(group, tests, (size_t)n, NULL, NULL);
  mbt_ref_free_labels(labels, n);
  return failed;
}
