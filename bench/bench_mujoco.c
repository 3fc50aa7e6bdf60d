/* bench_mujoco.c: the MuJoCo side of the benchmark (compiled only when MuJoCo is found).
 *
 * The same URDF is loaded by MuJoCo's own parser, with a <mujoco><compiler> element that
 * keeps fixed bodies (fusestatic="false"), takes inertias as written (inertiafromgeom="false",
 * balanceinertia="false"), and with <visual>/<collision> removed (no meshes needed). The
 * joints are matched to mbt's by name; the states are converted once, before timing:
 *   hinge/slide: qpos = q, qvel = v;
 *   free joint:  qpos = [p; quat] from mbt's [quat; p]; qvel = [v_WBo_W; R_WBᵀ·w_WB_W] from
 *                mbt's [w_WB_W; v_WBo_W]. With T the (orthogonal) map v_mj = T·v_mbt:
 *                qacc = T·v̇ (Ṫ·v = 0 because d(R_WBᵀ)/dt·w = −R_WBᵀ·[w]ₓ·w = 0),
 *                qfrc = T·tau (T⁻ᵀ = T), and back: tau = Tᵀ·qfrc, M_mbt = Tᵀ·M_mj·T. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "bench.h"

typedef struct {
  int free_joint;        /* 0: hinge/slide (1 dof), 1: free joint */
  int mbt_q, mbt_v, mj_q, mj_v;
} dof_block;

struct mbt_bench_mj {
  mjModel* m;
  mjData* d;
  const mbt_tree* tree;
  const mbt_bench_states* st;
  int nq, nv, nbody;
  int nblocks;
  dof_block* blocks;
  double* qpos;    /* [S][nq] */
  double* qvel;    /* [S][nv] */
  double* qacc;    /* [S][nv] */
  double* qfrc;    /* [S][nv] */
  double* res;     /* [nv] */
  double* Mfull;   /* [nv*nv] */
  double* T;       /* [nv*nv] */
  double* tmp;     /* [nv*nv] */
};

bool mbt_bench_mujoco_available(void) { return true; }
const char* mbt_bench_mujoco_version(void) { return mj_versionString(); }

/* ---- URDF text for MuJoCo --------------------------------------------------------------- */
static char* read_text_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char* s = malloc(cap);
  while (s) {
    const size_t n = fread(s + len, 1, cap - len - 1, f);
    len += n;
    if (n == 0) break;
    if (len + 1 == cap) {
      char* t = realloc(s, cap *= 2);
      if (!t) {
        free(s);
        s = NULL;
      } else {
        s = t;
      }
    }
  }
  fclose(f);
  if (s) s[len] = '\0';
  return s;
}

/* Removes every <tag ...>...</tag> (or <tag .../>) element, in place. */
static void remove_elements(char* s, const char* tag) {
  char open[64], close[64];
  snprintf(open, sizeof open, "<%s", tag);
  snprintf(close, sizeof close, "</%s>", tag);
  char* p = s;
  while ((p = strstr(p, open)) != NULL) {
    const char c = p[strlen(open)];
    if (c != ' ' && c != '>' && c != '/' && c != '\n' && c != '\t' && c != '\r') {
      p += strlen(open);
      continue;
    }
    char* gt = strchr(p, '>');
    if (!gt) return;
    char* end;
    if (gt[-1] == '/') {
      end = gt + 1;
    } else {
      end = strstr(gt, close);
      if (!end) return;
      end += strlen(close);
    }
    memmove(p, end, strlen(end) + 1);
  }
}

/* The URDF with MuJoCo compiler options, without visuals/collisions, and with the floating
 * joints of the mbt tree (world → root link) added. */
static char* mujoco_urdf(const char* text, const mbt_tree* tree, bool floating, char* err, size_t err_size) {
  size_t extra = 1024;
  const int nmob = mbt_tree_num_mobilizers(tree);
  for (int mob = 0; mob < nmob; ++mob) extra += 256 + 2 * strlen(mbt_mobilizer_name(tree, mob));
  char* s = malloc(strlen(text) + extra);
  if (!s) {
    snprintf(err, err_size, "out of memory");
    return NULL;
  }
  strcpy(s, text);
  remove_elements(s, "visual");
  remove_elements(s, "collision");
  remove_elements(s, "mujoco");
  char* robot = strstr(s, "<robot");
  char* gt = robot ? strchr(robot, '>') : NULL;
  if (!gt || gt[-1] == '/') {
    snprintf(err, err_size, "no <robot> element");
    free(s);
    return NULL;
  }
  char* ins = malloc(extra);
  if (!ins) {
    free(s);
    snprintf(err, err_size, "out of memory");
    return NULL;
  }
  size_t n = (size_t)snprintf(ins, extra,
                              "\n<mujoco><compiler fusestatic=\"false\" inertiafromgeom=\"false\" "
                              "balanceinertia=\"false\" discardvisual=\"true\" boundmass=\"0\" "
                              "boundinertia=\"0\" angle=\"radian\"/></mujoco>\n");
  if (floating) {
    const bool has_world = strstr(s, "<link name=\"world\"") != NULL;
    bool added_world = has_world;
    for (int mob = 0; mob < nmob; ++mob) {
      if (mbt_mobilizer_type_of(tree, mob) != MBT_MOBILIZER_QUATERNION_FLOATING) continue;
      if (mbt_mobilizer_inboard_body(tree, mob) != mbt_tree_world_body(tree)) continue;
      const int j = mbt_mobilizer_joint(tree, mob);
      const char* jname = j >= 0 ? mbt_joint_name(tree, j) : mbt_mobilizer_name(tree, mob);
      const char* child = mbt_tree_body_name(tree, mbt_mobilizer_outboard_body(tree, mob));
      if (!added_world) {
        n += (size_t)snprintf(ins + n, extra - n, "<link name=\"world\"/>\n");
        added_world = true;
      }
      n += (size_t)snprintf(ins + n, extra - n,
                            "<joint name=\"%s\" type=\"floating\"><parent link=\"world\"/>"
                            "<child link=\"%s\"/></joint>\n",
                            jname, child);
    }
  }
  const size_t head = (size_t)(gt + 1 - s);
  memmove(s + head + n, s + head, strlen(s + head) + 1);
  memcpy(s + head, ins, n);
  free(ins);
  return s;
}

/* ---- model, mapping, states ------------------------------------------------------------------- */
void mbt_bench_mj_destroy(mbt_bench_mj* b) {
  if (!b) return;
  if (b->d) mj_deleteData(b->d);
  if (b->m) mj_deleteModel(b->m);
  free(b->blocks);
  free(b->qpos);
  free(b->qvel);
  free(b->qacc);
  free(b->qfrc);
  free(b->res);
  free(b->Mfull);
  free(b->T);
  free(b->tmp);
  free(b);
}

/* R_WB of a unit quaternion [w x y z], row-major. */
static void quat_to_R(const double* q, double R[9]) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}

/* T (nv×nv, row-major, v_mj = T·v_mbt) at the mbt positions q. */
static void make_T(const mbt_bench_mj* b, const double* q, double* T) {
  const int nv = b->nv;
  memset(T, 0, sizeof(double) * (size_t)nv * (size_t)nv);
  for (int i = 0; i < b->nblocks; ++i) {
    const dof_block* k = &b->blocks[i];
    if (!k->free_joint) {
      T[k->mj_v * nv + k->mbt_v] = 1;
      continue;
    }
    double R[9];
    quat_to_R(q + k->mbt_q, R);
    for (int r = 0; r < 3; ++r) {
      T[(k->mj_v + r) * nv + k->mbt_v + 3 + r] = 1;            /* linear: v_WBo_W */
      for (int c = 0; c < 3; ++c)
        T[(k->mj_v + 3 + r) * nv + k->mbt_v + c] = R[c * 3 + r];  /* angular: R_WBᵀ·w */
    }
  }
}

/* y = A·x (n×n) */
static void matvec(const double* A, const double* x, double* y, int n, bool transpose) {
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += (transpose ? A[j * n + i] : A[i * n + j]) * x[j];
    y[i] = s;
  }
}

mbt_bench_mj* mbt_bench_mj_create(const char* urdf_path, const char* urdf_text, bool floating,
                                  const mbt_tree* tree, const mbt_bench_states* st, char* err,
                                  size_t err_size) {
  mbt_bench_mj* b = calloc(1, sizeof *b);
  char* file_text = NULL;
  char* text = NULL;
  mjVFS* vfs = NULL;
  if (!b) goto oom;
  b->tree = tree;
  b->st = st;
  if (!urdf_text) {
    file_text = read_text_file(urdf_path);
    if (!file_text) {
      snprintf(err, err_size, "cannot read '%s'", urdf_path);
      goto fail;
    }
    urdf_text = file_text;
  }
  text = mujoco_urdf(urdf_text, tree, floating, err, err_size);
  if (!text) goto fail;
  vfs = malloc(sizeof *vfs);
  if (!vfs) goto oom;
  mj_defaultVFS(vfs);
  const int len = (int)strlen(text);
  if (mj_makeEmptyFileVFS(vfs, "mbt_bench_model.urdf", len) != 0) {
    snprintf(err, err_size, "MuJoCo: cannot create the virtual file");
    goto fail;
  }
  const int idx = mj_findFileVFS(vfs, "mbt_bench_model.urdf");
  memcpy(vfs->filedata[idx], text, (size_t)len);
  char mjerr[1000] = "";
  b->m = mj_loadXML("mbt_bench_model.urdf", vfs, mjerr, sizeof mjerr);
  mj_deleteVFS(vfs);
  free(vfs);
  vfs = NULL;
  if (!b->m) {
    snprintf(err, err_size, "MuJoCo cannot load the model: %s", mjerr);
    goto fail;
  }
  mjModel* m = b->m;
  /* Same physics as mbt's side: no damping, armature, friction loss, springs; same gravity;
   * contacts and constraints off (they only matter to mj_forward). */
  for (int i = 0; i < m->nv; ++i) {
    m->dof_damping[i] = 0;
    m->dof_armature[i] = 0;
    m->dof_frictionloss[i] = 0;
  }
  for (int j = 0; j < m->njnt; ++j) m->jnt_stiffness[j] = 0;
  const mbt_vec3 g = mbt_tree_gravity(tree);
  for (int i = 0; i < 3; ++i) m->opt.gravity[i] = g.v[i];
  m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT | mjDSBL_EQUALITY | mjDSBL_FRICTIONLOSS | mjDSBL_LIMIT;
  b->d = mj_makeData(m);
  if (!b->d) goto oom;
  b->nq = m->nq;
  b->nv = m->nv;
  b->nbody = m->nbody;

  /* Joint map by name. */
  if (m->nv != mbt_tree_num_velocities(tree) || m->nq != mbt_tree_num_positions(tree)) {
    snprintf(err, err_size, "MuJoCo's model has nq = %d, nv = %d; mbt's has nq = %d, nv = %d", m->nq, m->nv,
             mbt_tree_num_positions(tree), mbt_tree_num_velocities(tree));
    goto fail;
  }
  const int nmob = mbt_tree_num_mobilizers(tree);
  b->blocks = calloc((size_t)nmob + 1, sizeof *b->blocks);
  if (!b->blocks) goto oom;
  int mapped_dofs = 0;
  for (int mob = 0; mob < nmob; ++mob) {
    const mbt_mobilizer_type type = mbt_mobilizer_type_of(tree, mob);
    if (type == MBT_MOBILIZER_WELD) continue;
    const int j = mbt_mobilizer_joint(tree, mob);
    const char* name = j >= 0 ? mbt_joint_name(tree, j) : mbt_mobilizer_name(tree, mob);
    const int mj = mj_name2id(m, mjOBJ_JOINT, name);
    if (mj < 0) {
      snprintf(err, err_size, "joint '%s' of mbt has no MuJoCo joint of that name", name);
      goto fail;
    }
    const int mjtype = m->jnt_type[mj];
    dof_block* k = &b->blocks[b->nblocks++];
    k->mbt_q = mbt_mobilizer_position_start_in_q(tree, mob);
    k->mbt_v = mbt_mobilizer_velocity_start_in_v(tree, mob);
    k->mj_q = m->jnt_qposadr[mj];
    k->mj_v = m->jnt_dofadr[mj];
    if ((type == MBT_MOBILIZER_REVOLUTE && mjtype == mjJNT_HINGE) ||
        (type == MBT_MOBILIZER_PRISMATIC && mjtype == mjJNT_SLIDE)) {
      k->free_joint = 0;
      mapped_dofs += 1;
    } else if (type == MBT_MOBILIZER_QUATERNION_FLOATING && mjtype == mjJNT_FREE) {
      k->free_joint = 1;
      mapped_dofs += 6;
    } else {
      snprintf(err, err_size, "joint '%s': mbt's %s mobilizer has no MuJoCo counterpart here (MuJoCo type %d)",
               name, mbt_mobilizer_type_name(type), mjtype);
      goto fail;
    }
  }
  if (mapped_dofs != m->nv) {
    snprintf(err, err_size, "only %d of MuJoCo's %d dofs map to mbt's joints", mapped_dofs, m->nv);
    goto fail;
  }

  /* States in MuJoCo's coordinates. */
  const size_t S = (size_t)st->num_states, nq = (size_t)m->nq, nv = (size_t)m->nv;
  b->qpos = malloc(sizeof(double) * S * nq + 1);
  b->qvel = malloc(sizeof(double) * S * nv + 1);
  b->qacc = malloc(sizeof(double) * S * nv + 1);
  b->qfrc = malloc(sizeof(double) * S * nv + 1);
  b->res = calloc(nv + 1, sizeof(double));
  b->Mfull = calloc(nv * nv + 1, sizeof(double));
  b->T = calloc(nv * nv + 1, sizeof(double));
  b->tmp = calloc(nv * nv + 1, sizeof(double));
  if (!b->qpos || !b->qvel || !b->qacc || !b->qfrc || !b->res || !b->Mfull || !b->T || !b->tmp) goto oom;
  const int mbt_nx = st->nq + st->nv;
  for (size_t s = 0; s < S; ++s) {
    const double* q = st->x + (size_t)mbt_nx * s;
    const double* v = q + st->nq;
    double* qpos = b->qpos + nq * s;
    for (int i = 0; i < b->nblocks; ++i) {
      const dof_block* k = &b->blocks[i];
      if (!k->free_joint) {
        qpos[k->mj_q] = q[k->mbt_q];
      } else {
        for (int c = 0; c < 3; ++c) qpos[k->mj_q + c] = q[k->mbt_q + 4 + c];
        for (int c = 0; c < 4; ++c) qpos[k->mj_q + 3 + c] = q[k->mbt_q + c];
      }
    }
    make_T(b, q, b->T);
    matvec(b->T, v, b->qvel + nv * s, (int)nv, false);
    matvec(b->T, st->vdot + nv * s, b->qacc + nv * s, (int)nv, false);
    matvec(b->T, st->tau + nv * s, b->qfrc + nv * s, (int)nv, false);
  }
  free(text);
  free(file_text);
  return b;
oom:
  snprintf(err, err_size, "out of memory");
fail:
  if (vfs) {
    mj_deleteVFS(vfs);
    free(vfs);
  }
  free(text);
  free(file_text);
  mbt_bench_mj_destroy(b);
  return NULL;
}

/* ---- timed operations ------------------------------------------------------------------ */
static int mj_kin_compos(void* u, int k);
static void set_qpos(mbt_bench_mj* b, int k) { mju_copy(b->d->qpos, b->qpos + (size_t)b->nq * (size_t)k, b->nq); }
static void set_qvel(mbt_bench_mj* b, int k) { mju_copy(b->d->qvel, b->qvel + (size_t)b->nv * (size_t)k, b->nv); }

/* fk: qpos ← state; mj_kinematics (xpos, xquat, xmat, xipos, ximat, xanchor, xaxis). */
static int mj_op_fk(void* u, int k) {
  mbt_bench_mj* b = u;
  set_qpos(b, k);
  mj_kinematics(b->m, b->d);
  return 0;
}
/* vk: qvel ← state; mj_comVel (cvel, cdof_dot), positions fixed. */
static int mj_op_vk(void* u, int k) {
  mbt_bench_mj* b = u;
  set_qvel(b, k);
  mj_comVel(b->m, b->d);
  return 0;
}
/* id: qpos, qvel, qacc ← state; mj_kinematics, mj_comPos, mj_comVel, mj_rne(flg_acc = 1):
 * M·qacc + C·qvel − tau_g. */
static int mj_op_id(void* u, int k) {
  mbt_bench_mj* b = u;
  set_qpos(b, k);
  set_qvel(b, k);
  mju_copy(b->d->qacc, b->qacc + (size_t)b->nv * (size_t)k, b->nv);
  mj_kinematics(b->m, b->d);
  mj_comPos(b->m, b->d);
  mj_comVel(b->m, b->d);
  mj_rne(b->m, b->d, 1, b->res);
  return 0;
}
/* crba: qpos ← state; mj_kinematics, mj_comPos, mj_crb (qM, MuJoCo's sparse storage). */
static int mj_op_crba(void* u, int k) {
  mbt_bench_mj* b = u;
  set_qpos(b, k);
  mj_kinematics(b->m, b->d);
  mj_comPos(b->m, b->d);
  mj_crb(b->m, b->d);
  return 0;
}
/* aba: qpos, qvel, qfrc_applied ← state; mj_kinematics, mj_comPos, mj_crb, mj_factorM,
 * mj_comVel, mj_rne(flg_acc = 0) → qfrc_bias; qfrc_smooth = qfrc_applied − qfrc_bias;
 * mj_solveM → qacc (mj_forward's smooth dynamics, without collision, constraints, passive). */
static int mj_op_aba(void* u, int k) {
  mbt_bench_mj* b = u;
  mjData* d = b->d;
  set_qpos(b, k);
  set_qvel(b, k);
  mju_copy(d->qfrc_applied, b->qfrc + (size_t)b->nv * (size_t)k, b->nv);
  mj_kinematics(b->m, d);
  mj_comPos(b->m, d);
  mj_crb(b->m, d);
  mj_factorM(b->m, d);
  mj_comVel(b->m, d);
  mj_rne(b->m, d, 0, d->qfrc_bias);
  mju_sub(d->qfrc_smooth, d->qfrc_applied, d->qfrc_bias, b->nv);
  mj_solveM(b->m, d, d->qacc, d->qfrc_smooth, 1);
  return 0;
}
/* crba_chol: qpos ← state; mj_kinematics, mj_comPos, mj_crb, mj_factorM (L·D·Lᵀ), mj_solveM. */
static int mj_op_crba_chol(void* u, int k) {
  mbt_bench_mj* b = u;
  set_qpos(b, k);
  mj_kinematics(b->m, b->d);
  mj_comPos(b->m, b->d);
  mj_crb(b->m, b->d);
  mj_factorM(b->m, b->d);
  mj_solveM(b->m, b->d, b->res, b->qfrc + (size_t)b->nv * (size_t)k, 1);
  return 0;
}

mbt_bench_fn mbt_bench_mj_op(mbt_bench_op op) {
  switch (op) {
    case MBT_BENCH_OP_FK: return mj_op_fk;
    case MBT_BENCH_OP_PK: return mj_kin_compos;
    case MBT_BENCH_OP_VK: return mj_op_vk;
    case MBT_BENCH_OP_ID:
    case MBT_BENCH_OP_ID_FORCES: return mj_op_id;
    case MBT_BENCH_OP_CRBA: return mj_op_crba;
    case MBT_BENCH_OP_ABA: return mj_op_aba;
    case MBT_BENCH_OP_CRBA_CHOL: return mj_op_crba_chol;
    default: return NULL;
  }
}

/* ---- extra rows ------------------------------------------------------------------------- */
const char* mbt_bench_mj_extra_name(mbt_bench_mj_extra e) {
  static const char* names[] = {"mj_kinematics+mj_comPos", "mj_forward (no contact/constraint)",
                                "mj_kinematics alone", "mj_comPos alone", "mj_comVel alone",
                                "mj_rne alone", "mj_crb alone", "mj_factorM+mj_solveM"};
  return e < MBT_BENCH_MJ_NUM_EXTRA ? names[e] : "?";
}

/* pk: qpos ← state; mj_kinematics, mj_comPos (adds cinert, cdof: the counterparts of mbt's
 * M_Bo_W and H_PB_W). */
static int mj_kin_compos(void* u, int k) {
  mbt_bench_mj* b = u;
  set_qpos(b, k);
  mj_kinematics(b->m, b->d);
  mj_comPos(b->m, b->d);
  return 0;
}
static int mj_forward_all(void* u, int k) {
  mbt_bench_mj* b = u;
  set_qpos(b, k);
  set_qvel(b, k);
  mju_copy(b->d->qfrc_applied, b->qfrc + (size_t)b->nv * (size_t)k, b->nv);
  mj_forward(b->m, b->d);
  return 0;
}
static int mj_stage_kin(void* u, int k) {
  mbt_bench_mj* b = u;
  (void)k;
  mj_kinematics(b->m, b->d);
  return 0;
}
static int mj_stage_compos(void* u, int k) {
  mbt_bench_mj* b = u;
  (void)k;
  mj_comPos(b->m, b->d);
  return 0;
}
static int mj_stage_comvel(void* u, int k) {
  mbt_bench_mj* b = u;
  (void)k;
  mj_comVel(b->m, b->d);
  return 0;
}
static int mj_stage_rne(void* u, int k) {
  mbt_bench_mj* b = u;
  (void)k;
  mj_rne(b->m, b->d, 1, b->res);
  return 0;
}
static int mj_stage_crb(void* u, int k) {
  mbt_bench_mj* b = u;
  (void)k;
  mj_crb(b->m, b->d);
  return 0;
}
static int mj_stage_factor_solve(void* u, int k) {
  mbt_bench_mj* b = u;
  (void)k;
  mj_factorM(b->m, b->d);
  mj_solveM(b->m, b->d, b->res, b->qfrc, 1);
  return 0;
}

mbt_bench_fn mbt_bench_mj_extra_fn(mbt_bench_mj_extra e) {
  switch (e) {
    case MBT_BENCH_MJ_KIN_COMPOS: return mj_kin_compos;
    case MBT_BENCH_MJ_FORWARD: return mj_forward_all;
    case MBT_BENCH_MJ_STAGE_KINEMATICS: return mj_stage_kin;
    case MBT_BENCH_MJ_STAGE_COMPOS: return mj_stage_compos;
    case MBT_BENCH_MJ_STAGE_COMVEL: return mj_stage_comvel;
    case MBT_BENCH_MJ_STAGE_RNE: return mj_stage_rne;
    case MBT_BENCH_MJ_STAGE_CRB: return mj_stage_crb;
    case MBT_BENCH_MJ_STAGE_FACTOR_SOLVE: return mj_stage_factor_solve;
    default: return NULL;
  }
}

/* Every extra row, and the velocity-kinematics op, start from state 0 fully evaluated. */
void mbt_bench_mj_prepare_extra(mbt_bench_mj* b, mbt_bench_mj_extra e) {
  (void)e;
  mj_op_id(b, 0);
  mj_crb(b->m, b->d);
}

/* ---- cross-check ---------------------------------------------------------------------------- */
int mbt_bench_mj_eval(mbt_bench_mj* b, int k, double* tau_id, double* M, double* vdot, mbt_transform* X_WB,
                      bool* found) {
  const int nv = b->nv;
  const double* q = b->st->x + (size_t)(b->st->nq + b->st->nv) * (size_t)k;
  make_T(b, q, b->T);
  if (tau_id) {
    mj_op_id(b, k);
    matvec(b->T, b->res, tau_id, nv, true);   /* tau = Tᵀ·qfrc */
  }
  if (M) {
    mj_op_crba(b, k);
    mj_fullM(b->m, b->Mfull, b->d->qM);
    /* M_mbt = Tᵀ·M_mj·T */
    for (int i = 0; i < nv; ++i)
      for (int j = 0; j < nv; ++j) {
        double s = 0;
        for (int l = 0; l < nv; ++l) s += b->Mfull[i * nv + l] * b->T[l * nv + j];
        b->tmp[i * nv + j] = s;
      }
    for (int i = 0; i < nv; ++i)
      for (int j = 0; j < nv; ++j) {
        double s = 0;
        for (int l = 0; l < nv; ++l) s += b->T[l * nv + i] * b->tmp[l * nv + j];
        M[i * nv + j] = s;
      }
  }
  if (vdot) {
    mj_op_aba(b, k);
    matvec(b->T, b->d->qacc, vdot, nv, true);
  }
  if (X_WB) {
    mj_op_fk(b, k);
    const int nb = mbt_tree_num_bodies(b->tree);
    for (int node = 0; node < nb; ++node) {
      const char* name = mbt_tree_body_name(b->tree, mbt_tree_node_body(b->tree, node));
      const int id = node == 0 ? 0 : mj_name2id(b->m, mjOBJ_BODY, name);
      found[node] = id >= 0;
      if (id < 0) continue;
      for (int r = 0; r < 3; ++r) {
        X_WB[node].p.v[r] = b->d->xpos[3 * id + r];
        for (int c = 0; c < 3; ++c) X_WB[node].R.m[r][c] = b->d->xmat[9 * id + 3 * r + c];
      }
    }
  }
  return 0;
}

/* Largest relative difference between the central inertias MuJoCo stores (principal axes
 * body_iquat, moments body_inertia, found by its eigensolver) and mbt's, over the bodies
 * of both models: the floor of any cross-check on models with rotated inertias. */
double mbt_bench_mj_inertia_error(const mbt_bench_mj* b) {
  double worst = 0;
  const int nb = mbt_tree_num_bodies(b->tree);
  for (int body = 1; body < nb; ++body) {
    const int id = mj_name2id(b->m, mjOBJ_BODY, mbt_tree_body_name(b->tree, body));
    const mbt_spatial_inertia* M = mbt_tree_body_spatial_inertia(b->tree, body);
    if (id <= 0 || !(M->mass > 0)) continue;
    /* mbt: I_Bcm = m·(G_Bo − (|p|²·1 − p·pᵀ)), p = p_BoBcm. */
    const double m = M->mass, *p = M->p_PScm_E.v, pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    const mbt_unit_inertia* G = &M->G_SP_E;
    const double Gm[3][3] = {{G->xx, G->xy, G->xz}, {G->xy, G->yy, G->yz}, {G->xz, G->yz, G->zz}};
    double I1[3][3], I2[3][3], R[9], scale = 0, diff = 0;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) I1[r][c] = m * (Gm[r][c] - ((r == c ? pp : 0) - p[r] * p[c]));
    /* MuJoCo: I = R·diag(body_inertia)·Rᵀ with R from body_iquat. */
    quat_to_R(b->m->body_iquat + 4 * id, R);
    const double* d = b->m->body_inertia + 3 * id;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        I2[r][c] = R[3 * r] * d[0] * R[3 * c] + R[3 * r + 1] * d[1] * R[3 * c + 1] + R[3 * r + 2] * d[2] * R[3 * c + 2];
        scale = fmax(scale, fabs(I1[r][c]));
        diff = fmax(diff, fabs(I1[r][c] - I2[r][c]));
      }
    if (scale > 0) worst = fmax(worst, diff / scale);
  }
  return worst;
}
