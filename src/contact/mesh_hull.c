/* mesh_hull.c: a mesh file's convex hull as a vertex set for contact (mbt/contact.h).
 *
 * The file is read by Open Asset Import (assimp: STL, OBJ, DAE, PLY, ...) with its node
 * transforms applied (aiProcess_PreTransformVertices) and COLLADA's up axis ignored (mesh
 * coordinates are taken as written, as URDF means them); every vertex is scaled per axis,
 * then the convex hull of all vertices is computed by Qhull [Barber, Dobkin & Huhdanpaa 1996,
 * "The Quickhull algorithm for convex hulls", ACM TOMS 22(4)] and its vertices kept. Built
 * only with MBT_HAVE_MESH_HULLS (assimp and qhull found); otherwise every mesh is refused
 * with a message saying so. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact_internal.h"

#ifdef MBT_HAVE_MESH_HULLS
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <libqhull_r/qhull_ra.h>

/* All vertices of the scene's meshes, scaled: 3·n coordinates (malloc), or NULL. */
static double* scene_vertices(const struct aiScene* scene, mbt_vec3 scale, int* n) {
  size_t total = 0;
  for (unsigned i = 0; i < scene->mNumMeshes; ++i) total += scene->mMeshes[i]->mNumVertices;
  *n = 0;
  if (total == 0 || total > (size_t)MBT_MESH_MAX_VERTICES) {
    *n = total == 0 ? 0 : -1;
    return NULL;
  }
  double* p = malloc(3 * total * sizeof *p);
  if (!p) return NULL;
  size_t k = 0;
  for (unsigned i = 0; i < scene->mNumMeshes; ++i) {
    const struct aiMesh* mesh = scene->mMeshes[i];
    for (unsigned v = 0; v < mesh->mNumVertices; ++v, ++k) {
      p[3 * k] = mesh->mVertices[v].x * mbt_value(scale.v[0]);
      p[3 * k + 1] = mesh->mVertices[v].y * mbt_value(scale.v[1]);
      p[3 * k + 2] = mesh->mVertices[v].z * mbt_value(scale.v[2]);
    }
  }
  *n = (int)total;
  return p;
}

/* The hull's vertices of n points (3·n coordinates) by Qhull; its messages go to err. */
static int hull_vertices(double* pts, int n, mbt_real** out, int* num_out, char* err, size_t n_err) {
  char* log = NULL;
  size_t log_len = 0;
  FILE* errfile = open_memstream(&log, &log_len);
  if (!errfile) return snprintf(err, n_err, "out of memory"), MBT_ERR_NO_MEMORY;
  qhT qh_storage;
  qhT* qh = &qh_storage;
  qh_zero(qh, errfile);
  int status = MBT_OK;
  char options[] = "qhull Qt";
  if (qh_new_qhull(qh, 3, n, pts, False, options, NULL, errfile) != 0) {
    fflush(errfile);
    const char* first = log ? log : "";
    snprintf(err, n_err, "no convex hull (flat or degenerate mesh?): %.200s", first);
    status = MBT_ERR_INVALID_ARGUMENT;
  } else {
    *out = malloc(3 * (size_t)qh->num_vertices * sizeof **out);
    if (!*out) {
      snprintf(err, n_err, "out of memory");
      status = MBT_ERR_NO_MEMORY;
    } else {
      int k = 0;
      vertexT* vertex;
      FORALLvertices {
        for (int a = 0; a < 3; ++a) (*out)[3 * k + a] = vertex->point[a];
        ++k;
      }
      *num_out = k;
    }
  }
  int curlong, totlong;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  fclose(errfile);
  free(log);
  return status;
}

int mbt__mesh_hull_vertices(const char* path, mbt_vec3 scale, mbt_real** points, int* num_points, char* err,
                            size_t n_err) {
  *points = NULL;
  *num_points = 0;
  struct aiPropertyStore* props = aiCreatePropertyStore();
  if (!props) return snprintf(err, n_err, "out of memory"), MBT_ERR_NO_MEMORY;
  aiSetImportPropertyInteger(props, "IMPORT_COLLADA_IGNORE_UP_DIRECTION", 1);
  const struct aiScene* scene = aiImportFileExWithProperties(
      path, aiProcess_PreTransformVertices | aiProcess_JoinIdenticalVertices, NULL, props);
  aiReleasePropertyStore(props);
  if (!scene) return snprintf(err, n_err, "cannot read the mesh: %s", aiGetErrorString()), MBT_ERR_IO;
  int n = 0;
  double* pts = scene_vertices(scene, scale, &n);
  aiReleaseImport(scene);
  if (!pts) {
    if (n < 0) return snprintf(err, n_err, "more than %d vertices", MBT_MESH_MAX_VERTICES), MBT_ERR_LIMIT;
    if (n == 0) return snprintf(err, n_err, "the mesh has no vertex"), MBT_ERR_IO;
    return snprintf(err, n_err, "out of memory"), MBT_ERR_NO_MEMORY;
  }
  const int st = hull_vertices(pts, n, points, num_points, err, n_err);
  free(pts);
  return st;
}

bool mbt__mesh_hulls_available(void) { return true; }

#else /* no assimp/qhull */

int mbt__mesh_hull_vertices(const char* path, mbt_vec3 scale, mbt_real** points, int* num_points, char* err,
                            size_t n_err) {
  (void)path;
  (void)scale;
  *points = NULL;
  *num_points = 0;
  snprintf(err, n_err, "this mbt was built without mesh collision geometry (assimp and qhull not found)");
  return MBT_ERR_INVALID_ARGUMENT;
}

bool mbt__mesh_hulls_available(void) { return false; }

#endif
