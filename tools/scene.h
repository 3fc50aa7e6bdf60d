/* scene.h: a scene file (JSON) that places several URDF models in one tree as model
 * instances (mbt/model_instance.h); `mbt simulate`, `mbt view` and the other commands take
 * it in place of a URDF (cli_model_load). Format: docs/contact.md#scenes. */
#ifndef MBT_TOOLS_SCENE_H
#define MBT_TOOLS_SCENE_H

#include <stdbool.h>
#include "cli_common.h"

/* Whether the path names a scene file (ends in ".json"). */
bool scene_path_is_scene(const char* path);
/* Loads the scene into model (model->urdf.tree: the finalized tree, robot_name: the scene's
 * name, warnings: those of its URDFs); on failure prints "file: where: problem" and returns
 * false with nothing allocated. */
bool scene_load(const char* cmd, const char* path, const cli_model_options* opts, const char* const* package_paths,
                int num_package_paths, cli_model* model);

#endif
