/* view_page.h: the self-contained HTML page of `mbt view` (and of `mbt simulate`): the
 * bundled viewer script (three.js and viewer/src, built at configure time), the model's
 * kinematic data and geometry, its meshes inlined, and optionally a trajectory with X_WB of
 * every body at every embedded frame, computed by the library. Format: docs/viewer.md. */
#ifndef MBT_VIEW_PAGE_H
#define MBT_VIEW_PAGE_H

#include <stdbool.h>
#include "cli_common.h"

/* A trajectory: n frames, times t[n] (increasing), positions q[n·nq] row by row. */
typedef struct {
  int n, nq;
  const double* t;
  const double* q;
} view_trajectory;

/* True if this mbt was built with the viewer's script. */
bool view_page_available(void);

/* Writes the page for `model` (and `traj`, may be NULL) to `path`, creating its folder.
 * Meshes that did not resolve, or that cannot be read, are left out with a message on
 * stderr. Returns false with a message on stderr. */
bool view_page_write(const char* cmd, const cli_model* model, const view_trajectory* traj, const char* path);

/* `path` with its extension (if any) replaced by ".html", in a new buffer (free()). */
char* view_page_path_beside(const char* path);

#endif /* MBT_VIEW_PAGE_H */
